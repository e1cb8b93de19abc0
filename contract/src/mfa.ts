/**
 * The second factor (API.md, "Sign in with identity providers, and a second factor", and "Part 2 in detail"): TOTP
 * (RFC 6238, SHA-1, 6 digits, 30 s, +-1 step, each step accepted once), recovery codes, and the sign-in step between
 * the first proof and the tokens.
 */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
/** A recovery code: two groups of five of these letters and digits (no 0/O, 1/I/L), joined by a dash. */
export const RECOVERY_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const RECOVERY_CODE_PATTERN = /^[A-Za-z2-9]{5}[- ]?[A-Za-z2-9]{5}$/;
/** The token of a sign-in waiting for its second step lives 5 minutes; its 5th wrong code voids it. */
export const MFA_TOKEN_TTL_SECONDS = 5 * 60;
export const MFA_MAX_WRONG_CODES = 5;

/** `POST /auth/mfa/totp`: the secret (base32) and its otpauth:// URI, for an authenticator app or a QR code. */
export interface TotpEnrollment {
  secret: string;
  uri: string;
}

/** A sign-in whose account has a factor on answers this instead of tokens. */
export interface MfaStep {
  mfaRequired: true;
  mfaToken: string;
}

export type MfaChallengeInput = { mfaToken: string; code: string } | { mfaToken: string; recoveryCode: string };

/** `POST /auth/mfa/totp/verify`: the factor is on; its recovery codes, shown this once, and tokens at `aal: 2`. */
export interface TotpEnabled {
  recoveryCodes: string[];
  accessToken: string;
  refreshToken: string;
}
