import { AUTH_CODE_TTL_SECONDS, REDIRECT_MAX_LENGTH } from '@basalt/contract';
import { pathParameter } from './admin.js';
import { post, signedIn, stepUpNote, text, type Paths } from './auth.js';
import { PKCE, unitsText } from './patterns.js';
import { jsonBody, object, ref, SECURITY, str, type Operation, type Schema } from './schema.js';

/**
 * Identity providers (issue 27, OpenID Connect): the redirect flow (`GET /auth/oauth/{provider}`, its callback by GET
 * or a form POST), a native app's id token (`POST /auth/oauth/{provider}/token`), and linking and unlinking while
 * signed in (`/auth/identities/{provider}`). The redirect flow's successes are 302s outside the envelope (API.md, Part 2
 * in detail, General): a `Location` header and no JSON (at most a line for a person); their errors are the envelope.
 */

/** The longest id token and nonce `POST /auth/oauth/{provider}/token` takes (server/src/auth/providers/validation.ts). */
export const ID_TOKEN_MAX_LENGTH = 16_384;
export const NONCE_MAX_LENGTH = 512;
/** A provider's name as `auth.providers` takes it (server/src/auth/providers/settings.ts). */
const PROVIDER_NAME = '^[a-z][a-z0-9_-]{0,31}$';
/** The codes `?error=` of the callback's redirect carries (server/src/auth/providers/flow.ts). */
const RETURNED_ERRORS = ['ACCOUNT_EXISTS', 'SIGNUP_DISABLED', 'EMAIL_REQUIRED', 'EMAIL_NOT_VERIFIED', 'CONFLICT', 'PROVIDER_ERROR', 'access_denied'];

const STATE_MINUTES = 10;
const NOT_ALLOWED = 'a `redirectTo` that `auth.redirectUrls` does not allow (nor a page of the console) is 400 naming `redirectTo` (the query parameter at the start, the body field at a link)';
const UNKNOWN = 'no provider of this name configured is 404; one whose discovery document has not been read yet (it is retried in the background) 503';
const LIMITED = 'Sign-ins and links started and native id tokens sent count against `providerSignInsPerAddress`: over it, 429';

const provider = pathParameter('provider', 'The name of a configured identity provider (`providers` of GET /auth/settings): a-z, 0-9, `_` and `-`, starting with a letter, at most 32', str({ pattern: PROVIDER_NAME }));

const redirectTo = str({
  format: 'uri',
  pattern: unitsText(1, REDIRECT_MAX_LENGTH),
  description: `Where the browser goes back once the provider is done: a URL of at most ${REDIRECT_MAX_LENGTH} characters (UTF-16 code units) that \`auth.redirectUrls\` allows, or a page of the console`,
});
const codeChallenge = str({
  pattern: PKCE,
  description: 'The S256 challenge of the app\'s PKCE verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636). The one-time code handed back trades only with that verifier (POST /auth/oauth/exchange)',
});

/** What the provider sends to the callback (the query of a GET, the form of a POST); other parameters pass to its checks. */
const callbackFields: Record<string, Schema> = {
  state: str({ minLength: 1, description: `The state of the sign-in, as Basalt made it: unknown, used or older than ${STATE_MINUTES} minutes is 400 naming \`state\`` }),
  code: str({ description: 'The provider\'s authorization code' }),
  error: str({ description: 'The provider\'s refusal (`access_denied`: the user said no)' }),
  error_description: str(),
  iss: str({ description: 'The provider\'s issuer (RFC 9207)' }),
};

/** The document's schemas for identity providers; document.ts adds them to the shared ones. */
export const PROVIDER_SCHEMAS: Record<string, Schema> = {
  ProviderStart: object({ redirectTo, codeChallenge }),
  ProviderIdToken: object({
    idToken: text(ID_TOKEN_MAX_LENGTH, 'The id token the app got from the provider (a JWT signed by the provider\'s keys, for `clientId` or one of `audiences`)'),
    nonce: text(NONCE_MAX_LENGTH, 'The nonce the app gave the provider for this token (the token holds it raw or as its SHA-256 hex); each nonce signs in once'),
  }),
  ProviderCallbackForm: {
    type: 'object',
    properties: callbackFields,
    required: ['state'],
    additionalProperties: { type: 'string' },
    description: 'The provider\'s answer posted by the browser (`response_mode=form_post`, as apple answers): each field once, as text',
  },
};

/** What a 302 carries besides `Location`: a line for a person, as the `Accept` header asks (none for `application/json`). */
const NOTE = str({ description: '`Found. Redirecting to <Location>`: follow the `Location` header instead' });

/** A 302 outside the envelope: its `Location`, and no JSON body. */
const redirect = (description: string, location: Schema): Record<string, unknown> => ({
  description,
  headers: { Location: { required: true, description: 'Where the browser goes next', schema: location } },
  content: { 'text/plain': { schema: NOTE }, 'text/html': { schema: NOTE } },
});

const redirectOperation = (operationId: string, summary: string, description: string, success: Record<string, unknown>, errors: number[], extra: Operation = {}): Operation => ({
  operationId,
  summary,
  description,
  tags: ['auth'],
  security: SECURITY.none,
  ...extra,
  responses: { '302': success, ...Object.fromEntries(errors.map((status) => [status, { $ref: `#/components/responses/E${status}` }])) },
});

const backToApp = redirect(
  `Back to \`redirectTo\` with \`?code=<one-time code>\` (a sign-in: it works once, for ${AUTH_CODE_TTL_SECONDS / 60} minutes, at POST /auth/oauth/exchange with the PKCE verifier), \`?linked=<provider>\` (a link), or \`?error=<code>\`: ${RETURNED_ERRORS.map((code) => `\`${code}\``).join(', ')}`,
  str({ format: 'uri', pattern: '[?&](?:code|linked|error)=[^&#]+' }),
);

const CALLBACK = `The provider sends the browser here. Basalt checks the state (it works once, for ${STATE_MINUTES} minutes), trades the provider's code with its PKCE verifier and checks the id token (issuer, audience, expiry, nonce, the provider's signature). Once the state is known, every outcome goes back to \`redirectTo\`; before that, errors are the envelope: a parameter given more than once is 400 naming it (\`details.parameter\` for the query of a GET, \`details.field\` for the form of a POST), an unknown, used or expired \`state\` 400 naming \`state\` (the same way), ${UNKNOWN}.`;

/** What anyone may call: the redirect flow and a native app's id token (they ignore credential headers). */
export function publicProviderPaths(): Paths {
  return {
    '/auth/oauth/{provider}': {
      get: redirectOperation(
        'auth.providerStart',
        'Sign in with an identity provider: a 302 to its sign-in page',
        `Open it in the browser (it is not JSON). The state, nonce and the provider's PKCE verifier are kept ${STATE_MINUTES} minutes, single use; the callback sends the browser back to \`redirectTo\` with a one-time code for the verifier of \`codeChallenge\`. A missing, repeated or malformed \`redirectTo\` or \`codeChallenge\`, or any other parameter, is 400 naming it (\`details.parameter\`); ${NOT_ALLOWED}; ${UNKNOWN}. ${LIMITED}.`,
        redirect('To the provider\'s authorization endpoint, with state, nonce and PKCE', str({ format: 'uri' })),
        [400, 404, 429, 503],
        {
          parameters: [
            provider,
            { name: 'redirectTo', in: 'query', required: true, description: redirectTo.description, schema: redirectTo },
            { name: 'codeChallenge', in: 'query', required: true, description: codeChallenge.description, schema: codeChallenge },
          ],
        },
      ),
    },
    '/auth/oauth/{provider}/callback': {
      get: redirectOperation('auth.providerCallback', 'The provider\'s answer (by the browser): a 302 back to the app', CALLBACK, backToApp, [400, 404, 503], {
        parameters: [provider, ...Object.entries(callbackFields).map(([name, schema]) => ({ name, in: 'query', required: name === 'state', description: schema.description, schema }))],
      }),
      post: redirectOperation('auth.providerCallbackForm', 'The provider\'s answer posted as a form (`response_mode=form_post`): a 302 back to the app', CALLBACK, backToApp, [400, 404, 413, 503], {
        parameters: [provider],
        requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: ref('ProviderCallbackForm') } } },
      }),
    },
    '/auth/oauth/{provider}/token': {
      post: {
        ...post('auth.providerToken', 'Sign in with an id token a native app got from the provider', 'ProviderIdToken', { status: 200, data: ref('SignInResult'), description: 'Signed in, or the second step (`MfaStep`) when the account has a second factor on' }, [400, 403, 404, 409, 413, 429, 502, 503]),
        parameters: [provider],
        description: [
          'The token must be signed by the provider\'s keys (never `alg: none` or a shared secret), for its issuer, for `clientId` or one of `audiences`, unexpired, and hold the nonce: else 400 naming `idToken` (or `nonce`: not the token\'s, or already used). When the provider\'s keys cannot be fetched: 502 `PROVIDER_ERROR`.',
          'A first sign-in makes the account (a member) while sign-ups are on (else 403 `SIGNUP_DISABLED`), or links to the account of the same address when the provider vouches for it and the account\'s address is verified: else 409 `ACCOUNT_EXISTS` (`details.provider`: sign in another way, then link).',
          'A token without an email address cannot make an account: 400 `EMAIL_REQUIRED`. Under `auth.emailVerification` `required`, a new account needs the provider to vouch for the address: else 403 `EMAIL_NOT_VERIFIED`.',
          `Also: ${UNKNOWN}. ${LIMITED}. With a second factor on, \`{ mfaRequired: true, mfaToken }\` instead of tokens (POST /auth/mfa/challenge).`,
        ].join(' '),
      },
    },
  };
}

/** What a user signed in with an access token may call: link and unlink. */
export function userProviderPaths(): Paths {
  return {
    '/auth/identities/{provider}': {
      post: signedIn('auth.linkIdentity', 'Link an identity provider to this account: the URL of its sign-in page', { data: object({ url: str({ format: 'uri', description: 'Open it in the browser: the provider\'s sign-in page, then the callback, then `redirectTo?linked=<provider>` (or `?error=`)' }) }), description: 'Where to send the browser' }, [400, 403, 404, 409, 413, 429], {
        parameters: [provider],
        requestBody: jsonBody(ref('ProviderStart')),
        description: `The same redirect flow as GET /auth/oauth/{provider}, ending in a link instead of a sign-in. An account has at most one identity of a provider: 409 \`{ constraint: 'unique', column: 'identities.provider' }\` when it has one (unlink it first). A body field missing or malformed is 400 naming it; ${NOT_ALLOWED}; ${UNKNOWN}. ${LIMITED}. An identity that belongs to another account ends at \`redirectTo?error=ACCOUNT_EXISTS\`. ${stepUpNote('').trim()}`,
      }),
      delete: signedIn('auth.unlinkIdentity', 'Unlink an identity provider from this account', { data: object({ unlinked: { const: true } }), description: 'Unlinked' }, [400, 403, 404], {
        parameters: [provider],
        description: 'Refused while it is the account\'s last way in (no password, no other identity, and no sign-in by email: `auth.emailSignIn` with the address verified): 400 naming `provider`. No identity of this provider on the account: 404. ' + stepUpNote('').trim(),
      }),
    },
  };
}
