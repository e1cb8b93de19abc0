import type { Request, RequestHandler } from 'express';
import { APIKEY_HEADER } from '@basalt/contract';
import type { TokenService } from './tokens.js';
import { isApiKey, type KeyService } from './keys/service.js';
import { ANON, type Caller } from '../policies/caller.js';
import { ApiError, accountGone, tokenExpired, unauthorized } from '../errors.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by `authenticate` before any route that needs credentials runs. */
    caller?: Caller;
  }
}

const BEARER = /^bearer[ ]+([^\s]+)[ ]*$/i;

/**
 * The credential rules of the contract (an API key is a Bearer credential starting `bsk_`, taken only where `keys`
 * is given: the record API; /auth and /admin refuse it with 401):
 * - a present `Authorization` header decides alone: a valid access token is that user, the anon key is anon, anything
 *   else is 401 (never a fallback to `apikey`);
 * - without it, a valid `apikey` is anon and an invalid one is 401; no credentials at all is 401.
 */
export function resolveCaller(req: Request, tokens: TokenService, keys?: KeyService): Caller | Promise<Caller> {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1];
    if (!token) throw unauthorized('The Authorization header must be "Bearer <token>"');
    if (isApiKey(token)) {
      if (!keys) throw unauthorized('API keys are not accepted here: /auth and /admin need a signed-in user');
      return keys.verify(token);
    }
    const verified = tokens.verifyCredential(token);
    switch (verified.kind) {
      case 'access':
        return {
          kind: 'user',
          id: verified.claims.sub,
          role: verified.claims.role,
          sessionId: verified.claims.sid,
          expiresAt: verified.claims.exp * 1000,
          verified: verified.claims.verified === true,
          email: verified.claims.verified === true ? (verified.claims.email ?? null) : null,
          aal: verified.claims.aal === 2 ? 2 : 1,
        };
      case 'anon':
        return ANON;
      case 'expired':
        throw tokenExpired();
      case 'invalid':
        throw unauthorized('The bearer token is not valid');
    }
  }
  const apikey = req.headers[APIKEY_HEADER];
  if (apikey !== undefined) {
    if (typeof apikey === 'string' && tokens.verifyCredential(apikey.trim()).kind === 'anon') return ANON;
    throw unauthorized('The apikey is not valid');
  }
  throw unauthorized('Credentials are required: an Authorization bearer token or an apikey header');
}

/** Establishes `req.caller` before the body is read, so a request without valid credentials is 401 whatever it sends. */
export function authenticate(tokens: TokenService): RequestHandler {
  return (req, _res, next) => {
    // Without a KeyService the answer is never a promise.
    req.caller = resolveCaller(req, tokens) as Caller;
    next();
  };
}

/** For `/auth/me` and `/auth/signout`: a signed-in user, never the anon key. */
export const requireUser: RequestHandler = (req, _res, next) => {
  if (req.caller?.kind !== 'user') throw unauthorized('This endpoint needs a signed-in user, not the anon key');
  next();
};

/**
 * For the signed-in routes: the account behind the token still exists. Access tokens are stateless and outlive a
 * deleted account; its token is 401 here, before the body is read, and never reaches a write (a key for no user, a
 * foreign key naming `user_id`).
 */
export function requireAccount(exists: (userId: string) => Promise<boolean>): RequestHandler {
  return async (req, _res, next) => {
    if (!(await exists(userOf(req).id))) throw accountGone();
    next();
  };
}

export function callerOf(req: Request): Caller {
  if (!req.caller) throw new ApiError('INTERNAL_ERROR', 'credentials were not checked');
  return req.caller;
}

export function userOf(req: Request): Extract<Caller, { kind: 'user' }> {
  const caller = callerOf(req);
  if (caller.kind !== 'user') throw unauthorized('This endpoint needs a signed-in user, not the anon key');
  return caller;
}

/** The caller a request log line names: the user id, or `anon` (also before or without credentials). */
export function loggedCaller(req: Request): string {
  return req.caller?.kind === 'user' ? req.caller.id : 'anon';
}
