import { EMAIL_CODE_LENGTH, EMAIL_VERIFICATION_MODES, PASSWORD_CONFIRMATION_MAX_LENGTH, REFRESH_TOKEN_MAX_LENGTH } from '@basalt/contract';
import { digitsCode, unitsText } from './patterns.js';
import { bool, envelope, jsonBody, object, providersSchema, ref, responses, SECURITY, SHARED_PASSWORD, str, type Operation } from './schema.js';

/**
 * `/auth`: what anyone may call (sign-up, sign-in, refresh, reset, settings; they ignore credential headers) and what
 * a user signed in with an access token may call (an API key is refused on every `/auth` route that needs a caller).
 */

export type Paths = Record<string, Record<string, Operation>>;
const tags = ['auth'];

/** A token or password the service holds to a length in UTF-16 code units (JavaScript's), without NUL. */
export const text = (max: number, what: string) => str({ pattern: unitsText(1, max), description: `${what}: 1 to ${max} characters (UTF-16 code units), no NUL` });

const STEP_UP = 'With a second factor on, a session that has not proven it (`aal` 1: opened before the factor was turned on) gets 403 `MFA_REQUIRED`.';
/** The description of a route that needs the second factor proven in this session when the account has one (step-up). */
export const stepUpNote = (what: string): string => `${what} ${STEP_UP}`;

export const post = (operationId: string, summary: string, body: string | Record<string, unknown>, success: { status: number; data: Record<string, unknown>; description: string }, errors: number[]): Operation => ({
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
      post: post('auth.signup', 'Create an account (the first one is the owner) and sign in; a verification mail goes out unless verification is off', 'Credentials', { status: 201, data: ref('SignUpResult'), description: 'Signed in (under required verification: the user alone)' }, [400, 403, 409, 413, 429, 503]),
    },
    '/auth/signin': {
      post: {
        ...post('auth.signin', 'Sign in with email and password', 'Credentials', { status: 200, data: ref('SignInResult'), description: 'Signed in, or the second step (`MfaStep`) when the account has a second factor on' }, [400, 401, 403, 413, 429, 503]),
        description: 'Under `auth.emailVerification` `required`, an account whose address is not verified is refused with 403 `EMAIL_NOT_VERIFIED` once its password matched. With a second factor on, the answer is `{ mfaRequired: true, mfaToken }` instead of tokens: POST /auth/mfa/challenge finishes the sign-in.',
      },
    },
    '/auth/refresh': {
      post: post('auth.refresh', 'Trade a refresh token (single use) for a new pair', object({ refreshToken: text(REFRESH_TOKEN_MAX_LENGTH, 'The refresh token') }), { status: 200, data: ref('TokenPair'), description: 'A new pair' }, [400, 401, 413, 429, 503]),
    },
    '/auth/reset': {
      post: {
        ...post('auth.reset', 'Set a new password with a recovery or invite mail\'s token or code, or a reset token from the owner', 'ResetPassword', { status: 200, data: ref('SignedOut'), description: 'Every session of the account ended' }, [400, 413, 503]),
        description: 'The address is proven by it (an invited account becomes verified). A token or code that is unknown, used or expired is 400 naming `token` or `code`.',
      },
    },
    '/auth/settings': {
      get: {
        operationId: 'auth.settings',
        summary: 'What a sign-in screen needs to know',
        tags,
        security: SECURITY.none,
        responses: responses(
          {
            status: 200,
            description: 'Settings',
            schema: envelope(
              object({
                signupEnabled: bool,
                hasOwner: bool,
                emailSignIn: { ...bool, description: '`auth.emailSignIn`: sign-in by an emailed link or code (POST /auth/otp)' },
                emailVerification: str({ enum: [...EMAIL_VERIFICATION_MODES], description: '`auth.emailVerification`' }),
                providers: providersSchema,
              }),
            ),
          },
          [503],
        ),
      },
    },
  };
}

export const signedIn = (operationId: string, summary: string, success: { status?: number; data: Record<string, unknown>; description: string }, errors: number[], extra: Operation = {}): Operation => ({
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
      delete: signedIn('auth.deleteMe', 'Delete the signed-in account (not the owner\'s)', { data: ref('AuthUser'), description: 'The deleted account' }, [400, 403, 413, 429], {
        description: stepUpNote('The password (or, for an account without one, a fresh sign-in code) confirms it.'),
        requestBody: jsonBody({
          oneOf: [
            object({ password: text(PASSWORD_CONFIRMATION_MAX_LENGTH, 'The account\'s password') }),
            object({ code: str({ pattern: digitsCode(EMAIL_CODE_LENGTH), description: 'For an account without a password: the code of a fresh sign-in mail (POST /auth/otp)' }) }),
          ],
        }),
      }),
    },
    '/auth/signout': {
      post: signedIn('auth.signout', 'End every session of the account', { data: ref('SignedOut'), description: 'Signed out' }, []),
    },
    '/auth/password': {
      post: signedIn('auth.password', 'Change the password; every other session ends', { data: ref('TokenPair'), description: 'A new pair for this device' }, [400, 403, 413, 429], {
        description: stepUpNote('A wrong current password counts as a failed sign-in.'),
        requestBody: jsonBody(object({ currentPassword: text(PASSWORD_CONFIRMATION_MAX_LENGTH, 'The current password (required unless the account has none: made by an emailed code or an invite)'), newPassword: SHARED_PASSWORD }, ['newPassword'])),
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
      post: signedIn('auth.createKey', 'Create an API key: shown this once', { status: 201, data: ref('CreatedApiKey'), description: 'The key' }, [400, 403, 413], {
        description: stepUpNote('A key acts at `aal` 1.'),
        requestBody: jsonBody(ref('CreateApiKey')),
      }),
    },
    '/auth/keys/{id}': {
      delete: signedIn('auth.revokeKey', 'Revoke an API key', { data: ref('ApiKey'), description: 'The revoked key' }, [404], { parameters: [idPath('A key id')] }),
    },
  };
}
