import Joi from 'joi';
import {
  API_KEY_ACCESS,
  API_KEY_NAME_MAX_LENGTH,
  EMAIL_CODE_LENGTH,
  EMAIL_MAX_LENGTH,
  LOCALE_MAX_LENGTH,
  PASSWORD_CONFIRMATION_MAX_LENGTH,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_BYTES,
  REFRESH_TOKEN_MAX_LENGTH,
  RESET_TOKEN_MAX_LENGTH,
  type ChangePasswordInput,
  type CreateApiKeyInput,
  type Credentials,
  type ResetPasswordInput,
} from '@basalt/contract';
import { invalidBody, invalidField, notFound } from '../errors.js';

/**
 * The edge of /auth: every body is checked here, before any hashing or database work, and a refusal names its field.
 * A text holding a NUL character is refused whatever the field: Postgres cannot store one (it would come back as a
 * translated 22021 that names no field), and no email, password, token or name has one.
 */

const NUL = '\u0000';

export const password = () =>
  Joi.string()
    .required()
    .custom((value: string, helpers) => {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes < PASSWORD_MIN_BYTES || bytes > PASSWORD_MAX_BYTES) return helpers.error('password.length');
      return value;
    });

export const passwordMessage = (field: string) => `${field} must be a string of ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes`;

/**
 * Validates a small body against `schema`; the first failing field is named, with the message the caller chose for
 * it. `convert` lets the schema normalise values (the email is trimmed and lower-cased, a key's name trimmed).
 */
export function parseBody<T>(schema: Joi.ObjectSchema<T>, body: unknown, messages: Record<string, string>, convert = false): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidBody('The request body must be a JSON object');
  for (const [field, value] of Object.entries(body)) {
    if (typeof value === 'string' && value.includes(NUL)) throw invalidField(field, `${field} must not contain a NUL character`);
  }
  const { value, error } = schema.validate(body, { abortEarly: true, convert });
  if (!error) return value;
  const detail = error.details[0];
  const field = String(detail?.path[0] ?? detail?.context?.key ?? 'body');
  if (detail?.type === 'object.unknown') throw invalidField(field, `${field} is not a known field (expected ${Object.keys(messages).join(', ')})`);
  throw invalidField(field, messages[field] ?? `${field} is not valid`);
}

// Trimmed and lower-cased; the TLD is not checked (a@x.test works) but the domain needs two labels (not a@localhost).
export const emailAddress = () => Joi.string().trim().lowercase().max(EMAIL_MAX_LENGTH).email({ tlds: false, minDomainSegments: 2 });
/** A BCP 47 tag (sign-up and the sending endpoints store it on the account). */
export const localeTag = () => Joi.string().max(LOCALE_MAX_LENGTH).pattern(/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/);
export const LOCALE_MESSAGE = `locale must be a BCP 47 language tag such as en or pt-BR (at most ${LOCALE_MAX_LENGTH} characters)`;

const credentialsSchema = Joi.object<Credentials & { locale?: string }>({
  email: emailAddress().required(),
  password: password(),
  locale: localeTag(),
}).unknown(false);

/** `{ email, password, locale? }` of sign-up and sign-in. */
export function parseCredentials(body: unknown): Credentials & { locale?: string } {
  return parseBody(credentialsSchema, body, { email: 'email must be a valid email address', password: passwordMessage('password'), locale: LOCALE_MESSAGE }, true);
}

const refreshSchema = Joi.object<{ refreshToken: string }>({ refreshToken: Joi.string().min(1).max(REFRESH_TOKEN_MAX_LENGTH).required() }).unknown(false);

export function parseRefreshBody(body: unknown): string {
  return parseBody(refreshSchema, body, { refreshToken: 'refreshToken must be a non-empty string' }).refreshToken;
}

// currentPassword is checked by the service: an account without a password (emailed sign-in, invite) sends none.
const passwordChangeSchema = Joi.object<ChangePasswordInput>({ currentPassword: Joi.string().min(1).max(PASSWORD_CONFIRMATION_MAX_LENGTH), newPassword: password() }).unknown(false);

export function parsePasswordChange(body: unknown): ChangePasswordInput {
  return parseBody(passwordChangeSchema, body, {
    currentPassword: 'currentPassword must be a non-empty string',
    newPassword: passwordMessage('newPassword'),
  });
}

const passwordResetSchema = Joi.object<ResetPasswordInput>({ token: Joi.string().min(1).max(RESET_TOKEN_MAX_LENGTH).required(), newPassword: password() }).unknown(false);

export function parsePasswordReset(body: unknown): ResetPasswordInput {
  return parseBody(passwordResetSchema, body, {
    token: 'token must be the reset token, a non-empty string',
    newPassword: passwordMessage('newPassword'),
  });
}

const passwordConfirmationSchema = Joi.object<{ password?: string; code?: string }>({
  password: Joi.string().min(1).max(PASSWORD_CONFIRMATION_MAX_LENGTH),
  code: Joi.string().pattern(new RegExp(`^[0-9]{${EMAIL_CODE_LENGTH}}$`)),
})
  .unknown(false)
  .xor('password', 'code');

/** `{ password }`, or `{ code }` (a fresh emailed sign-in code) for an account without a password. */
export function parsePasswordConfirmation(body: unknown): { password: string } | { code: string } {
  const messages = { password: 'password must be the account password, a non-empty string (or send the code of a fresh sign-in mail as code)', code: 'code must be the 6-digit code of a fresh sign-in mail' };
  const given = parseBody(passwordConfirmationSchema, body, messages);
  return given.code !== undefined ? { code: given.code } : { password: given.password! };
}

const keyInputSchema = Joi.object<CreateApiKeyInput>({
  // Trimmed, as an email is: white space pasted around a name is no part of it. The length counts what is kept.
  name: Joi.string().trim().min(1).max(API_KEY_NAME_MAX_LENGTH).required(),
  access: Joi.string().valid(...API_KEY_ACCESS).required(),
  expiresAt: Joi.alternatives(Joi.string().max(64), Joi.number(), Joi.valid(null)),
}).unknown(false);

export const KEY_EXPIRY_MESSAGE = 'expiresAt must be a time in the future: ISO 8601 (no offset means UTC) or epoch milliseconds, or null';

export function parseKeyInput(body: unknown): CreateApiKeyInput {
  return parseBody(
    keyInputSchema,
    body,
    {
      name: `name must be a string of 1 to ${API_KEY_NAME_MAX_LENGTH} characters besides white space at either end (which is trimmed)`,
      access: `access must be one of ${API_KEY_ACCESS.join(', ')}`,
      expiresAt: KEY_EXPIRY_MESSAGE,
    },
    true,
  );
}

/**
 * The id of a session, key or account in a path (`DELETE /auth/sessions/:id`, `DELETE /admin/users/:id`): one holding
 * a NUL names none, so it is 404 here, as a record id that cannot be coerced is on /api, without asking the database.
 */
export function parsePathId(id: string, what: 'session' | 'API key' | 'user' | 'mail'): string {
  if (id.includes(NUL)) throw notFound(`No ${what} with this id`);
  return id;
}
