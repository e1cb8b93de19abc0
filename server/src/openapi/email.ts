import { EMAIL_CODE_LENGTH, EMAIL_KINDS, OUTBOX_STATUSES, PASSWORD_CONFIRMATION_MAX_LENGTH, REDIRECT_MAX_LENGTH, RESET_TOKEN_MAX_LENGTH, ROLES } from '@basalt/contract';
import { admin, pagingParameters, pathParameter } from './admin.js';
import { post, signedIn, stepUpNote, text, type Paths } from './auth.js';
import { digitsCode, PKCE, unitsText } from './patterns.js';
import { bool, dateTime, int, jsonBody, localeSchema, nullable, object, ref, SHARED_EMAIL, SHARED_PASSWORD, str, type Schema } from './schema.js';

/**
 * Email (issue 26): verification, recovery, sign-in by an emailed link or code, email change (`/auth`), and the
 * owner's outbox, invites and test mail (`/admin`). Basalt's confirm page (`GET /auth/confirm`) is an HTML page of the
 * console and, as the console, is not part of this document.
 */

const CODE_TTL = 'works once, for 15 minutes';

const redirectTo = str({
  format: 'uri',
  pattern: unitsText(1, REDIRECT_MAX_LENGTH),
  description: `Where the mail's link leads once used: a URL of at most ${REDIRECT_MAX_LENGTH} characters (UTF-16 code units) that \`auth.redirectUrls\` allows (else 400 naming \`redirectTo\`)`,
});
const mailLocale = localeSchema('the language of the mail (else `Accept-Language`, else the account\'s)');
const linkToken = text(RESET_TOKEN_MAX_LENGTH, 'The token of the mail\'s link (`token` in its fragment; it works once, for 24 hours)');
const code = str({ pattern: digitsCode(EMAIL_CODE_LENGTH), description: `The ${EMAIL_CODE_LENGTH}-digit code of the latest such mail to the address (it ${CODE_TTL})` });
const address = { ...SHARED_EMAIL, description: `The address the mail went to. ${SHARED_EMAIL.description as string}` };
const pkce = (what: string) => str({ pattern: PKCE, description: `${what}: 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)` });

/** `{ token }` or `{ email, code }` (and `extra` in both). */
const proof = (extra: Record<string, Schema> = {}, token = linkToken): Schema[] => [object({ token, ...extra }), object({ email: address, code, ...extra })];

/** The email schemas; document.ts adds them to the shared ones (a document keeps those it refers to). */
export const EMAIL_SCHEMAS: Record<string, Schema> = {
  EmailProof: { oneOf: proof(), description: 'A mail\'s proof: the token of its link, or the address it went to and its code' },
  ResetPassword: {
    oneOf: proof(
      { newPassword: SHARED_PASSWORD },
      text(RESET_TOKEN_MAX_LENGTH, 'The token of a recovery or invite mail\'s link, or a reset token from the owner (POST /admin/users/{id}/reset-link)'),
    ),
    description: 'A recovery or invite mail\'s token or code (or the owner\'s reset token), and the new password',
  },
  SendMail: object({ email: SHARED_EMAIL, redirectTo, locale: mailLocale }, ['email']),
  Sent: object({ sent: { const: true } }),
  VerifiedUser: object({ id: str(), email: str({ description: 'The account\'s email address, lower-cased' }), role: str({ enum: [...ROLES] }), verified: bool }),
  VerifyResult: {
    oneOf: [
      object({ user: ref('VerifiedUser') }),
      object({ user: ref('VerifiedUser'), accessToken: str(), refreshToken: str() }),
      object({ user: ref('VerifiedUser'), mfaRequired: { const: true }, mfaToken: str() }),
    ],
    description: 'The user; under `auth.emailVerification` `required` also a token pair (the proof signs in), or the second step when the account has a factor on',
  },
  OutboxMail: object({
    id: str(),
    kind: str({ enum: [...EMAIL_KINDS] }),
    to: str(),
    status: str({ enum: [...OUTBOX_STATUSES], description: '`queued` (waiting, or between attempts), `sent`, `failed` (given up), `unsent` (written without SMTP: never sent)' }),
    attempts: int({ minimum: 0 }),
    lastError: nullable(str()),
    createdAt: dateTime,
    link: nullable(str({ description: 'The link the mail carries: only while it is `unsent`' })),
    code: nullable(str({ description: 'The code the mail carries: only while it is `unsent`' })),
  }),
};

const sent = (description: string) => ({ status: 200, data: ref('Sent'), description });
const SAME_ANSWER = 'Sent, or nothing to send: the answer is the same whether or not the address has an account';

/** What anyone may call (they ignore credential headers, as sign-in does). */
export function publicEmailPaths(): Paths {
  return {
    '/auth/verify/send': {
      post: post('auth.sendVerification', 'Send a verification mail (again)', 'SendMail', sent(SAME_ANSWER), [400, 413, 429, 503]),
    },
    '/auth/verify': {
      post: post('auth.verify', 'Verify the address with a verification mail\'s token or code', 'EmailProof', { status: 200, data: ref('VerifyResult'), description: 'Verified; under `auth.emailVerification` `required` also signed in' }, [400, 413, 503]),
    },
    '/auth/recover': {
      post: post('auth.recover', 'Send a recovery mail (its token or code sets a new password: POST /auth/reset)', 'SendMail', sent(SAME_ANSWER), [400, 413, 429, 503]),
    },
    '/auth/otp': {
      post: {
        ...post('auth.otp', 'Send a sign-in mail (a link and a code)', object({ email: SHARED_EMAIL, redirectTo, codeChallenge: pkce('The S256 challenge of the app\'s PKCE verifier: with `redirectTo`, the link hands a one-time code to the app'), locale: mailLocale }, ['email']), sent(SAME_ANSWER), [400, 404, 413, 429, 503]),
        description: '404 when sign-in by email is not enabled (`auth.emailSignIn`). An address without an account gets one at the proof, while sign-ups are enabled.',
      },
    },
    '/auth/otp/verify': {
      post: {
        ...post('auth.otpVerify', 'Sign in with a sign-in mail\'s token or code', 'EmailProof', { status: 200, data: ref('SignInResult'), description: 'Signed in, or the second step (`MfaStep`) when the account has a second factor on' }, [400, 403, 404, 413, 503]),
        description: '404 when sign-in by email is not enabled; 403 `SIGNUP_DISABLED` for a new address while sign-ups are off. With a second factor on, `{ mfaRequired: true, mfaToken }` instead of tokens (POST /auth/mfa/challenge).',
      },
    },
    '/auth/otp/code': {
      post: {
        ...post('auth.otpCode', 'Trade a sign-in link for a one-time code handed to its redirectTo (Basalt\'s confirm page)', object({ token: linkToken }), { status: 200, data: object({ redirectTo: str({ format: 'uri', description: '`<redirectTo>?code=<one-time code>` (5 minutes; POST /auth/oauth/exchange)' }) }), description: 'Where to go' }, [400, 403, 404, 413, 503]),
        description: 'Only for a link sent with `redirectTo` and `codeChallenge` (else 400 naming `token`: type the mail\'s code into the app).',
      },
    },
    '/auth/oauth/exchange': {
      post: {
        ...post('auth.exchange', 'Trade a one-time code handed to the app, with its PKCE verifier, for a sign-in', object({ code: text(RESET_TOKEN_MAX_LENGTH, 'The one-time code (`code` of the redirect)'), codeVerifier: pkce('The PKCE verifier whose S256 challenge was sent first') }), { status: 200, data: ref('SignInResult'), description: 'Signed in, or the second step (`MfaStep`) when the account has a second factor on' }, [400, 413, 503]),
        description: 'With a second factor on, `{ mfaRequired: true, mfaToken }` instead of tokens (POST /auth/mfa/challenge).',
      },
    },
    '/auth/email/confirm': {
      post: post('auth.confirmEmail', 'Move the account to its new address with the email-change mail\'s token or code (`email`: the new address)', 'EmailProof', { status: 200, data: object({ user: ref('VerifiedUser') }), description: 'The account at its new address, verified' }, [400, 409, 413, 503]),
    },
  };
}

/** What a user signed in with an access token may call. */
export function userEmailPaths(): Paths {
  const change = (confirm: Record<string, Schema>) => object({ newEmail: { ...SHARED_EMAIL, description: `The new address. ${SHARED_EMAIL.description as string}` }, ...confirm, redirectTo, locale: mailLocale }, ['newEmail', ...Object.keys(confirm)]);
  return {
    '/auth/email': {
      post: signedIn('auth.changeEmail', 'Change the account\'s address: a confirmation mail to the new one, a notice to the old', sent('Sent (an address already taken is told so by mail instead: the answer is the same)'), [400, 403, 413, 429], {
        description: stepUpNote('The password (or, for an account without one, a fresh sign-in code) confirms it.'),
        requestBody: jsonBody({
          oneOf: [
            change({ password: text(PASSWORD_CONFIRMATION_MAX_LENGTH, 'The account\'s password') }),
            change({ code: { ...code, description: `For an account without a password: the code of a fresh sign-in mail (POST /auth/otp; it ${CODE_TTL})` } }),
          ],
        }),
      }),
    },
  };
}

const mailId = pathParameter('id', 'A mail id (GET /admin/outbox)');
const userId = pathParameter('id', 'An account id');

/** The owner's mails under /admin. */
export function ownerEmailPaths(): Paths {
  return {
    '/admin/outbox': {
      get: admin('admin.outbox', 'Every mail, newest first (an unsent one with its link and code)', 'email', { data: { type: 'array', items: ref('OutboxMail') }, more: { total: int({ minimum: 0 }) }, description: 'A page of mails' }, [400], {
        parameters: [...pagingParameters('Mails'), { name: 'status', in: 'query', required: false, description: 'Only mails of this status', schema: str({ enum: [...OUTBOX_STATUSES] }) }],
      }),
    },
    '/admin/outbox/{id}/retry': {
      post: admin('admin.retryMail', 'Try a queued mail (waiting for its next attempt) now', 'email', { data: ref('OutboxMail'), description: 'The mail' }, [400, 404], {
        parameters: [mailId],
        description: 'A mail that is sent, failed, unsent, or being sent right now is 400 naming `id`.',
      }),
    },
    '/admin/users/invite': {
      post: admin('admin.invite', 'Invite a member: an account without a password, and a mail whose token or code sets one (POST /auth/reset)', 'users', {
        status: 201,
        data: object({ id: str(), email: str({ description: 'The account\'s email address, lower-cased' }), role: { const: 'member' }, createdAt: dateTime }),
        description: 'The invited account',
      }, [400, 409, 413], {
        requestBody: jsonBody(object({ email: SHARED_EMAIL, locale: localeSchema('the language of the account and its mails'), redirectTo }, ['email'])),
        description: 'Works with sign-ups disabled. Invitees are members: a `role` in the body is 400. A taken address is 409.',
      }),
    },
    '/admin/users/{id}/resend': {
      post: admin('admin.resendMail', 'Send the invite again (an account without a password), else the verification mail', 'users', {
        data: object({ sent: { const: true }, kind: str({ enum: ['invite', 'verify'] }) }),
        description: 'What was sent',
      }, [400, 404], {
        parameters: [userId],
        description: 'An account that is verified and has a password has nothing to be sent: 400 naming `id`.',
      }),
    },
    '/admin/email/test': {
      post: admin('admin.testMail', 'Send a test mail through the outbox', 'email', { data: ref('Sent'), description: 'Queued (or, without SMTP, kept unsent in the outbox)' }, [400, 413], {
        requestBody: jsonBody(object({ to: SHARED_EMAIL })),
      }),
    },
  };
}
