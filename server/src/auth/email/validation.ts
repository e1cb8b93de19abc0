import type { Request } from 'express';
import Joi from 'joi';
import {
  EMAIL_CODE_LENGTH,
  PASSWORD_CONFIRMATION_MAX_LENGTH,
  REDIRECT_MAX_LENGTH,
  RESET_TOKEN_MAX_LENGTH,
  type CodeExchangeInput,
  type EmailChangeInput,
  type EmailProof,
  type EmailSignInInput,
  type InviteInput,
  type SendInput,
} from '@basalt/contract';
import { invalidField } from '../../errors.js';
import { emailAddress, localeTag, LOCALE_MESSAGE, parseBody, password, passwordMessage } from '../validation.js';
import { allowedRedirect, type RedirectRule } from './redirects.js';
import { preferredLocale } from './templates.js';

/** The bodies of the email routes, checked before any database work; a refusal names its field. */

const redirect = () => Joi.string().max(REDIRECT_MAX_LENGTH);
const token = () => Joi.string().min(1).max(RESET_TOKEN_MAX_LENGTH);
const code = () => Joi.string().pattern(new RegExp(`^[0-9]{${EMAIL_CODE_LENGTH}}$`));
/** RFC 7636: an S256 challenge (43 characters) or a verifier, 43-128 unreserved characters. */
const pkce = () => Joi.string().min(43).max(128).pattern(/^[A-Za-z0-9._~-]+$/);

const MESSAGES = {
  email: 'email must be a valid email address',
  newEmail: 'newEmail must be a valid email address',
  to: 'to must be a valid email address',
  redirectTo: `redirectTo must be a URL of at most ${REDIRECT_MAX_LENGTH} characters allowed by auth.redirectUrls`,
  locale: LOCALE_MESSAGE,
  token: 'token must be the token of a mail\'s link, a non-empty string',
  code: `code must be the ${EMAIL_CODE_LENGTH}-digit code of a mail`,
  codeChallenge: 'codeChallenge must be the S256 challenge of a PKCE verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~',
  codeVerifier: 'codeVerifier must be the PKCE verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~',
  newPassword: passwordMessage('newPassword'),
  password: 'password must be the account password, a non-empty string',
  role: 'role cannot be chosen: invited accounts are members',
};

const sendSchema = Joi.object<SendInput>({ email: emailAddress().required(), redirectTo: redirect(), locale: localeTag() }).unknown(false);
export const parseSend = (body: unknown): SendInput => parseBody(sendSchema, body, MESSAGES, true);

const signInSchema = Joi.object<EmailSignInInput>({ email: emailAddress().required(), redirectTo: redirect(), locale: localeTag(), codeChallenge: pkce() }).unknown(false);
export const parseEmailSignIn = (body: unknown): EmailSignInInput => parseBody(signInSchema, body, MESSAGES, true);

/** `{ token }` or `{ email, code }`, with `extra` fields. */
function proofSchema(extra: Record<string, Joi.Schema> = {}) {
  return Joi.object({ token: token(), email: emailAddress(), code: code(), ...extra })
    .unknown(false)
    .xor('token', 'code')
    .with('code', 'email')
    .without('token', 'email');
}

/** Joi's names for the `xor`/`with` failures: which field to name. */
function parseProof<T extends object>(schema: Joi.ObjectSchema, body: unknown): EmailProof & T {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const given = body as Record<string, unknown>;
    if (given.token === undefined && given.code === undefined) throw invalidField('token', 'Send { token } (from the mail\'s link) or { email, code } (the mail\'s code)');
    if (given.code !== undefined && given.email === undefined) throw invalidField('email', 'A code goes with the email it was sent to: { email, code }');
    if (given.token !== undefined && (given.code !== undefined || given.email !== undefined)) throw invalidField('token', 'Send either { token } or { email, code }, not both');
  }
  return parseBody(schema, body, MESSAGES, true) as EmailProof & T;
}

const plainProof = proofSchema();
export const parseProofBody = (body: unknown): EmailProof => parseProof(plainProof, body);

const resetProof = proofSchema({ newPassword: password() });
export function parseResetBody(body: unknown): { proof: EmailProof; newPassword: string } {
  const { newPassword, ...proof } = parseProof<{ newPassword: string }>(resetProof, body);
  return { proof, newPassword };
}

const tokenOnly = Joi.object<{ token: string }>({ token: token().required() }).unknown(false);
export const parseTokenBody = (body: unknown): string => parseBody(tokenOnly, body, MESSAGES).token;

const changeSchema = Joi.object<EmailChangeInput>({
  newEmail: emailAddress().required(),
  password: Joi.string().min(1).max(PASSWORD_CONFIRMATION_MAX_LENGTH),
  code: code(),
  redirectTo: redirect(),
  locale: localeTag(),
})
  .unknown(false)
  .oxor('password', 'code');
export function parseEmailChange(body: unknown): EmailChangeInput {
  const parsed = parseBody(changeSchema, body, MESSAGES, true);
  if (parsed.password === undefined && parsed.code === undefined) throw invalidField('password', 'password (or, for an account without one, the code of a fresh sign-in mail) is required');
  return parsed;
}

const inviteSchema = Joi.object<InviteInput & { role?: never }>({ email: emailAddress().required(), locale: localeTag(), redirectTo: redirect(), role: Joi.forbidden() }).unknown(false);
export const parseInvite = (body: unknown): InviteInput => parseBody(inviteSchema, body, MESSAGES, true);

const testSchema = Joi.object<{ to: string }>({ to: emailAddress().required() }).unknown(false);
export const parseTestMail = (body: unknown): string => parseBody(testSchema, body, MESSAGES, true).to;

const exchangeSchema = Joi.object<CodeExchangeInput>({ code: token().required(), codeVerifier: pkce().required() }).unknown(false);
export const parseExchange = (body: unknown): CodeExchangeInput =>
  parseBody(exchangeSchema, body, { ...MESSAGES, code: 'code must be the one-time code handed to redirectTo, a non-empty string' });

/** An allowed `redirectTo` as it will be used, null when none was given; 400 naming `redirectTo` otherwise. */
export function checkRedirect(rules: RedirectRule[], candidate: string | undefined): string | null {
  if (candidate === undefined) return null;
  const allowed = allowedRedirect(rules, candidate);
  if (allowed === null) throw invalidField('redirectTo', 'redirectTo is not allowed: it must match an entry of auth.redirectUrls');
  return allowed;
}

/** The locale of a mail: the body's `locale`, else `Accept-Language`, else null (the account's, then `en`). */
export function requestLocale(req: Request, locale: string | undefined): string | null {
  return locale ?? preferredLocale(req.headers['accept-language']);
}
