import { MFA_MAX_WRONG_CODES, MFA_TOKEN_TTL_SECONDS, RECOVERY_CODE_ALPHABET, RECOVERY_CODE_COUNT, RECOVERY_CODE_PATTERN, TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '@basalt/contract';
import { admin, pathParameter } from './admin.js';
import { post, signedIn, stepUpNote, text, type Paths } from './auth.js';
import { digitsCode } from './patterns.js';
import { jsonBody, object, ref, str, type Schema } from './schema.js';

/**
 * The second factor (issue 27): TOTP enrolment and removal, recovery codes, the sign-in's second step
 * (`POST /auth/mfa/challenge`) and the owner's removal of a member's factor. Sign-in, the emailed code and the code
 * exchange answer `SignInResult`: the tokens, or `MfaStep` when the account has a factor on.
 */

/** The longest `mfaToken` the challenge takes (server/src/auth/mfa/routes.ts; the contract does not name it). */
export const MFA_TOKEN_MAX_LENGTH = 256;

const recoveryCodeOut = str({ pattern: `^[${RECOVERY_CODE_ALPHABET}]{5}-[${RECOVERY_CODE_ALPHABET}]{5}$`, description: 'A recovery code (`XXXXX-XXXXX`): each works once in place of a code' });
const recoveryCodes = { type: 'array', items: recoveryCodeOut, minItems: RECOVERY_CODE_COUNT, maxItems: RECOVERY_CODE_COUNT, description: `The ${RECOVERY_CODE_COUNT} recovery codes, shown this once (stored as HMACs)` };
const totpCode = str({ pattern: digitsCode(TOTP_DIGITS), description: `The ${TOTP_DIGITS}-digit code the authenticator app shows (RFC 6238, ${TOTP_PERIOD_SECONDS} s steps, one step either side; each step is accepted once per account)` });
const mfaToken = text(MFA_TOKEN_MAX_LENGTH, `The \`mfaToken\` of the sign-in's answer (it works once, for ${MFA_TOKEN_TTL_SECONDS / 60} minutes; its ${MFA_MAX_WRONG_CODES}th wrong code voids it)`);
const recoveryCode = str({ pattern: RECOVERY_CODE_PATTERN.source, description: 'One of the account\'s recovery codes: case does not matter, the dash may be a space or left out' });

/** The MFA schemas; document.ts adds them to the shared ones (a document keeps those it refers to). */
export const MFA_SCHEMAS: Record<string, Schema> = {
  MfaStep: object(
    { mfaRequired: { const: true }, mfaToken: str({ description: 'Trade it, with a code, at POST /auth/mfa/challenge' }) },
    ['mfaRequired', 'mfaToken'],
    { description: 'The account has a second factor on: no tokens until POST /auth/mfa/challenge' },
  ),
  SignInResult: { oneOf: [ref('AuthResult'), ref('MfaStep')], description: 'Signed in, or (the account has a second factor on) the second step' },
  TotpEnrollment: object({
    secret: str({ pattern: '^[A-Z2-7]+$', description: 'The secret in base32, for an authenticator app' }),
    uri: str({ format: 'uri', pattern: '^otpauth://totp/', description: 'The otpauth:// URI of the secret (for a QR code), naming the project and the account\'s email' }),
  }),
  TotpEnabled: object({ recoveryCodes, accessToken: str(), refreshToken: str() }),
  MfaChallenge: {
    oneOf: [object({ mfaToken, code: totpCode }), object({ mfaToken, recoveryCode })],
    description: 'The sign-in\'s `mfaToken` and a code of the authenticator app, or one of the recovery codes (not both)',
  },
  Removed: object({ removed: { const: true } }),
};

/** What anyone may call: the sign-in's second step. */
export function publicMfaPaths(): Paths {
  return {
    '/auth/mfa/challenge': {
      post: {
        ...post('auth.mfaChallenge', 'Finish a sign-in whose account has a second factor on: its mfaToken and a code (or a recovery code)', 'MfaChallenge', { status: 200, data: ref('AuthResult'), description: 'Signed in, at `aal` 2' }, [400, 413, 429, 503]),
        description: `An unknown, used or expired \`mfaToken\` is 400 naming it; a wrong code is 400 naming \`code\` (or \`recoveryCode\`). Wrong codes count against \`signinFailuresPerAccountAndAddress\`, \`signinFailuresPerAddress\` and \`mfaFailuresPerAccount\`: over any of them the challenge is 429 before a code is checked.`,
      },
    },
  };
}

/** What a user signed in with an access token may call. */
export function userMfaPaths(): Paths {
  return {
    '/auth/mfa/totp': {
      post: signedIn('auth.mfaEnroll', 'Start turning TOTP on: a new pending secret (replacing a pending one)', { data: ref('TotpEnrollment'), description: 'The secret and its otpauth:// URI' }, [409], {
        description: 'With a factor already on, 409 (remove it first). The factor is on once POST /auth/mfa/totp/verify takes a code of this secret.',
      }),
      delete: signedIn('auth.mfaRemove', 'Turn the second factor off (and void its recovery codes)', { data: ref('Removed'), description: 'Removed' }, [403, 404], {
        description: stepUpNote('No factor on: 404.'),
      }),
    },
    '/auth/mfa/totp/verify': {
      post: signedIn('auth.mfaVerify', 'Turn TOTP on with the pending secret\'s current code; every other session ends', { data: ref('TotpEnabled'), description: 'The factor is on: the recovery codes (this once) and tokens for this device, at `aal` 2' }, [400, 413], {
        requestBody: jsonBody(object({ code: totpCode })),
        description: 'A wrong code, no pending secret, or a factor already on: 400 naming `code`.',
      }),
    },
    '/auth/mfa/recovery-codes': {
      post: signedIn('auth.mfaRecoveryCodes', 'New recovery codes: the old ones void', { data: object({ recoveryCodes }), description: 'The new codes, shown this once' }, [403, 404], {
        description: stepUpNote('No factor on: 404.'),
      }),
    },
  };
}

/** The owner's removal of a member's factor (one who lost both the app and the codes). */
export function ownerMfaPaths(): Paths {
  return {
    '/admin/users/{id}/mfa': {
      delete: admin('admin.removeMfa', 'Remove an account\'s second factor (its owner lost the app and the recovery codes)', 'users', { data: ref('Removed'), description: 'Removed' }, [404], {
        parameters: [pathParameter('id', 'An account id')],
        description: 'No such account, or no factor on: 404.',
      }),
    },
  };
}
