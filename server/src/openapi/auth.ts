import { PASSWORD_CONFIRMATION_MAX_LENGTH, REFRESH_TOKEN_MAX_LENGTH, RESET_TOKEN_MAX_LENGTH } from '@basalt/contract';
import { unitsText } from './patterns.js';
import { envelope, jsonBody, object, ref, responses, SECURITY, SHARED_PASSWORD, str, type Operation } from './schema.js';

/**
 * `/auth`: what anyone may call (sign-up, sign-in, refresh, reset, settings; they ignore credential headers) and what
 * a user signed in with an access token may call (an API key is refused on every `/auth` route that needs a caller).
 */

type Paths = Record<string, Record<string, Operation>>;
const tags = ['auth'];

/** A token or password the service holds to a length in UTF-16 code units (JavaScript's), without NUL. */
const text = (max: number, what: string) => str({ pattern: unitsText(1, max), description: `${what}: 1 to ${max} characters (UTF-16 code units), no NUL` });

const post = (operationId: string, summary: string, body: string | Record<string, unknown>, success: { status: number; data: Record<string, unknown>; description: string }, errors: number[]): Operation => ({
  operationId,
  summary,
  tags,
  security: SECURITY.none,
  requestBody: jsonBody(typeof body === 'string' ? ref(body) : body),
  responses: responses({ status: success.status, description: success.description, schema: envelope(success.data) }, errors),
});

export function publicAuthPaths(): Paths {
  return {
    '/auth/signup': {
      post: post('auth.signup', 'Create an account (the first one is the owner) and sign in', 'Credentials', { status: 201, data: ref('AuthResult'), description: 'Signed in' }, [400, 403, 409, 413, 429, 503]),
    },
    '/auth/signin': {
      post: post('auth.signin', 'Sign in with email and password', 'Credentials', { status: 200, data: ref('AuthResult'), description: 'Signed in' }, [400, 401, 413, 429, 503]),
    },
    '/auth/refresh': {
      post: post('auth.refresh', 'Trade a refresh token (single use) for a new pair', object({ refreshToken: text(REFRESH_TOKEN_MAX_LENGTH, 'The refresh token') }), { status: 200, data: ref('TokenPair'), description: 'A new pair' }, [400, 401, 413, 429, 503]),
    },
    '/auth/reset': {
      post: {
        ...post('auth.reset', 'Set a new password with a reset token from the owner', object({ token: text(RESET_TOKEN_MAX_LENGTH, 'The reset token'), newPassword: SHARED_PASSWORD }), { status: 200, data: ref('SignedOut'), description: 'Every session of the account ended' }, [400, 413, 503]),
      },
    },
    '/auth/settings': {
      get: {
        operationId: 'auth.settings',
        summary: 'What a sign-in screen needs to know',
        tags,
        security: SECURITY.none,
        responses: responses({ status: 200, description: 'Settings', schema: envelope(object({ signupEnabled: { type: 'boolean' }, hasOwner: { type: 'boolean' } })) }, [503]),
      },
    },
  };
}

const signedIn = (operationId: string, summary: string, success: { status?: number; data: Record<string, unknown>; description: string }, errors: number[], extra: Operation = {}): Operation => ({
  operationId,
  summary,
  tags,
  security: SECURITY.user,
  ...extra,
  responses: responses({ status: success.status ?? 200, description: success.description, schema: envelope(success.data) }, [401, ...errors, 503]),
});

const idPath = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: str({ minLength: 1 }) });

export function userAuthPaths(): Paths {
  return {
    '/auth/me': {
      get: signedIn('auth.me', 'The signed-in account', { data: ref('Profile'), description: 'The account' }, []),
      delete: signedIn('auth.deleteMe', 'Delete the signed-in account (not the owner\'s)', { data: ref('AuthUser'), description: 'The deleted account' }, [400, 413, 429], {
        requestBody: jsonBody(object({ password: text(PASSWORD_CONFIRMATION_MAX_LENGTH, 'The account\'s password') })),
      }),
    },
    '/auth/signout': {
      post: signedIn('auth.signout', 'End every session of the account', { data: ref('SignedOut'), description: 'Signed out' }, []),
    },
    '/auth/password': {
      post: signedIn('auth.password', 'Change the password; every other session ends', { data: ref('TokenPair'), description: 'A new pair for this device' }, [400, 413, 429], {
        requestBody: jsonBody(object({ currentPassword: text(PASSWORD_CONFIRMATION_MAX_LENGTH, 'The current password'), newPassword: SHARED_PASSWORD })),
      }),
    },
    '/auth/sessions': {
      get: signedIn('auth.sessions', 'The account\'s signed-in devices', { data: { type: 'array', items: ref('Session') }, description: 'Sessions' }, []),
    },
    '/auth/sessions/{id}': {
      delete: signedIn('auth.endSession', 'Sign one device out', { data: ref('SignedOut'), description: 'Signed out' }, [404], { parameters: [idPath('A session id')] }),
    },
    '/auth/keys': {
      get: signedIn('auth.keys', 'The account\'s API keys (never the keys themselves)', { data: { type: 'array', items: ref('ApiKey') }, description: 'Keys' }, []),
      post: signedIn('auth.createKey', 'Create an API key: shown this once', { status: 201, data: ref('CreatedApiKey'), description: 'The key' }, [400, 413], {
        requestBody: jsonBody(ref('CreateApiKey')),
      }),
    },
    '/auth/keys/{id}': {
      delete: signedIn('auth.revokeKey', 'Revoke an API key', { data: ref('ApiKey'), description: 'The revoked key' }, [404], { parameters: [idPath('A key id')] }),
    },
  };
}
