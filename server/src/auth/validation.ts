import Joi from 'joi';
import {
  API_KEY_ACCESS,
  API_KEY_NAME_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_BYTES,
  type ChangePasswordInput,
  type CreateApiKeyInput,
  type Credentials,
  type ResetPasswordInput,
} from '@basalt/contract';
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

const password = () =>
  Joi.string()
    .required()
    .custom((value: string, helpers) => {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes < PASSWORD_MIN_BYTES || bytes > PASSWORD_MAX_BYTES) return helpers.error('password.length');
      return value;
    });

/** Validates a small body against `schema`; the first failing field is named, with a message the caller chose. */
function parseBody<T>(schema: Joi.ObjectSchema<T>, body: unknown, messages: Record<string, string>): T {
  const { value, error } = schema.validate(body, { abortEarly: true, convert: false });
  if (!error) return value;
  const detail = error.details[0];
  const field = String(detail?.path[0] ?? detail?.context?.key ?? 'body');
  if (detail?.type === 'object.unknown') throw invalidField(field, `${field} is not a known field (expected ${Object.keys(messages).join(', ')})`);
  if (detail?.type === 'object.base') throw invalidField('body', 'The body must be a JSON object');
  throw invalidField(field, messages[field] ?? `${field} is not valid`);
}

const passwordMessage = (field: string) => `${field} must be a string of ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes`;

export function parsePasswordChange(body: unknown): ChangePasswordInput {
  return parseBody(Joi.object<ChangePasswordInput>({ currentPassword: Joi.string().min(1).max(1024).required(), newPassword: password() }).unknown(false), body, {
    currentPassword: 'currentPassword must be a non-empty string',
    newPassword: passwordMessage('newPassword'),
  });
}

export function parsePasswordReset(body: unknown): ResetPasswordInput {
  return parseBody(Joi.object<ResetPasswordInput>({ token: Joi.string().min(1).max(256).required(), newPassword: password() }).unknown(false), body, {
    token: 'token must be the reset token, a non-empty string',
    newPassword: passwordMessage('newPassword'),
  });
}

export function parsePasswordConfirmation(body: unknown): string {
  return parseBody(Joi.object<{ password: string }>({ password: Joi.string().min(1).max(1024).required() }).unknown(false), body, {
    password: 'password must be the account password, a non-empty string',
  }).password;
}

export function parseKeyInput(body: unknown): CreateApiKeyInput {
  return parseBody(
    Joi.object<CreateApiKeyInput>({
      name: Joi.string().trim().min(1).max(API_KEY_NAME_MAX_LENGTH).required(),
      access: Joi.string().valid(...API_KEY_ACCESS).required(),
      expiresAt: Joi.alternatives(Joi.string().max(64), Joi.number(), Joi.valid(null)),
    }).unknown(false),
    body,
    {
      name: `name must be a non-empty string of at most ${API_KEY_NAME_MAX_LENGTH} characters`,
      access: `access must be one of ${API_KEY_ACCESS.join(', ')}`,
      expiresAt: 'expiresAt must be a future time: ISO 8601 or epoch milliseconds, or null',
    },
  );
}
