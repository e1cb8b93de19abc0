import Joi from 'joi';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES, type Credentials } from '@basalt/contract';
import { invalidField } from '../errors.js';

const credentialsSchema = Joi.object<Credentials>({
  // Trimmed and lower-cased; the TLD is not checked (a@x.test works) but the domain needs two labels (not a@localhost).
  email: Joi.string().trim().lowercase().max(EMAIL_MAX_LENGTH).email({ tlds: false, minDomainSegments: 2 }).required(),
  password: Joi.string()
    .required()
    .custom((value: string, helpers) => {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes < PASSWORD_MIN_BYTES || bytes > PASSWORD_MAX_BYTES) return helpers.error('password.length');
      return value;
    }),
})
  .unknown(false)
  .messages({ 'password.length': `password must be ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes long` });

/** Validates `{ email, password }` at the edge; the first failing field is named in `details.field`. */
export function parseCredentials(body: unknown): Credentials {
  const { value, error } = credentialsSchema.validate(body, { abortEarly: true, convert: true });
  if (error) {
    const detail = error.details[0];
    const field = String(detail?.path[0] ?? detail?.context?.key ?? 'body');
    const message =
      detail?.type === 'object.unknown'
        ? `${field} is not a known field (expected email and password)`
        : field === 'email'
          ? 'email must be a valid email address'
          : field === 'password'
            ? `password must be a string of ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes`
            : (detail?.message ?? 'invalid body');
    throw invalidField(field, message);
  }
  return value;
}

const refreshSchema = Joi.object<{ refreshToken: string }>({ refreshToken: Joi.string().min(1).max(4096).required() }).unknown(false);

export function parseRefreshBody(body: unknown): string {
  const { value, error } = refreshSchema.validate(body);
  if (error) {
    const field = String(error.details[0]?.path[0] ?? 'refreshToken');
    throw invalidField(field, field === 'refreshToken' ? 'refreshToken must be a non-empty string' : `${field} is not a known field`);
  }
  return value.refreshToken;
}
