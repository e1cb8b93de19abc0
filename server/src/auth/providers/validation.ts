import Joi from 'joi';
import { REDIRECT_MAX_LENGTH } from '@basalt/contract';
import { invalidField, invalidParameter } from '../../errors.js';
import { parseBody } from '../validation.js';

/** The query and bodies of the provider routes, checked before any database or provider work; a refusal names its field. */

/** A refusal naming a query parameter or a body field. */
export const refusal = (where: 'parameter' | 'field', name: string, message: string) => (where === 'parameter' ? invalidParameter(name, message) : invalidField(name, message));

export const PKCE_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
const ID_TOKEN_MAX_LENGTH = 16_384;
const NONCE_MAX_LENGTH = 512;
const PKCE_MESSAGE = 'must be the S256 challenge of a PKCE verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~';
const REDIRECT_MESSAGE = `must be a URL of at most ${REDIRECT_MAX_LENGTH} characters allowed by auth.redirectUrls`;

export interface StartInput {
  redirectTo: string;
  codeChallenge: string;
}

/** `GET /auth/oauth/<name>?redirectTo=&codeChallenge=`: each once, as text. */
export function parseStartQuery(query: Record<string, unknown>): StartInput {
  for (const key of Object.keys(query)) {
    if (key !== 'redirectTo' && key !== 'codeChallenge') throw invalidParameter(key, `${key} is not a parameter of this route (redirectTo, codeChallenge)`);
  }
  const { redirectTo, codeChallenge } = query;
  if (typeof redirectTo !== 'string' || redirectTo === '' || redirectTo.length > REDIRECT_MAX_LENGTH || redirectTo.includes('\u0000')) throw invalidParameter('redirectTo', `redirectTo ${REDIRECT_MESSAGE}`);
  if (typeof codeChallenge !== 'string' || !PKCE_PATTERN.test(codeChallenge)) throw invalidParameter('codeChallenge', `codeChallenge ${PKCE_MESSAGE}`);
  return { redirectTo, codeChallenge };
}

const linkSchema = Joi.object<StartInput>({
  redirectTo: Joi.string().min(1).max(REDIRECT_MAX_LENGTH).required(),
  codeChallenge: Joi.string().pattern(PKCE_PATTERN).required(),
}).unknown(false);

/** `POST /auth/identities/<name>` `{ redirectTo, codeChallenge }`. */
export const parseLinkBody = (body: unknown): StartInput =>
  parseBody(linkSchema, body, { redirectTo: `redirectTo ${REDIRECT_MESSAGE}`, codeChallenge: `codeChallenge ${PKCE_MESSAGE}` });

const nativeSchema = Joi.object<{ idToken: string; nonce: string }>({
  idToken: Joi.string().min(1).max(ID_TOKEN_MAX_LENGTH).required(),
  nonce: Joi.string().min(1).max(NONCE_MAX_LENGTH).required(),
}).unknown(false);

/** `POST /auth/oauth/<name>/token` `{ idToken, nonce }`. */
export const parseNativeBody = (body: unknown): { idToken: string; nonce: string } =>
  parseBody(nativeSchema, body, {
    idToken: `idToken must be the provider's id token (a JWT of at most ${ID_TOKEN_MAX_LENGTH} characters)`,
    nonce: `nonce must be the nonce the app gave the provider (1 to ${NONCE_MAX_LENGTH} characters)`,
  });

/** The callback's parameters, from the query (GET) or a form body (POST, apple's form_post): text values only. */
export function callbackParameters(source: unknown, where: 'parameter' | 'field'): URLSearchParams {
  const parameters = new URLSearchParams();
  if (source === null || typeof source !== 'object') return parameters;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value !== 'string') throw refusal(where, key, `${key} must be given once, as text`);
    parameters.set(key, value);
  }
  return parameters;
}
