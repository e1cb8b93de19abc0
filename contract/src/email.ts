/**
 * Email (API.md, "Email: verification, self-service recovery, sign-in by code, email change, invites", and "Part 2 in
 * detail", Email): the kinds of mail, the proofs they carry, the outbox the owner reads, and the bodies of the routes.
 */

/**
 * Template kinds; `verify`, `recover`, `otp`, `email-change` and `invite` carry a link and a code. `email-taken` (an
 * addition to API.md's list) tells an address someone tried to move an account to that it already has one.
 */
export const EMAIL_KINDS = ['verify', 'recover', 'otp', 'email-change', 'email-change-notice', 'invite', 'test', 'email-taken'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** The kinds a link's `#type=` names (what the confirm page offers for each: a button, or a password form). */
export const EMAIL_LINK_KINDS = ['verify', 'recover', 'otp', 'email-change', 'invite'] as const;
export type EmailLinkKind = (typeof EMAIL_LINK_KINDS)[number];

/** `auth.emailVerification` of config.json. */
export const EMAIL_VERIFICATION_MODES = ['optional', 'required', 'off'] as const;
export type EmailVerificationMode = (typeof EMAIL_VERIFICATION_MODES)[number];

/** A mail's link works once for 24 hours, its 6-digit code once for 15 minutes; the 5th wrong code voids both. */
export const EMAIL_LINK_TTL_SECONDS = 24 * 60 * 60;
export const EMAIL_CODE_TTL_SECONDS = 15 * 60;
export const EMAIL_CODE_LENGTH = 6;
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** The longest `redirectTo` the email routes take. */
export const REDIRECT_MAX_LENGTH = 2048;
/** A BCP 47 tag as sign-up and the sending endpoints take it. */
export const LOCALE_MAX_LENGTH = 35;
/** The one-time code a sign-in link hands to `redirectTo`, exchanged with PKCE: 5 minutes. */
export const AUTH_CODE_TTL_SECONDS = 5 * 60;

/** Where an outbox mail is: waiting (or between retries), accepted by the SMTP server, given up, or kept for the owner. */
export const OUTBOX_STATUSES = ['queued', 'sent', 'failed', 'unsent'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];
/** `lastError` of a mail written while no SMTP server is configured: it is never sent later. */
export const UNSENT_NO_SMTP = 'unsent: no SMTP';

/** `GET /admin/outbox` items; `link` only while the mail is unsent (its body is deleted once sent or failed). */
export interface OutboxMail {
  id: string;
  kind: EmailKind;
  to: string;
  status: OutboxStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  link: string | null;
  code: string | null;
}

/** What every sending endpoint answers, whether or not the address has an account. */
export interface SentResult {
  sent: true;
}

/** A proof from a mail: its link's token, or the address and the 6-digit code. */
export type EmailProof = { token: string } | { email: string; code: string };

export interface SendInput {
  email: string;
  redirectTo?: string;
  locale?: string;
}

/** `POST /auth/otp`: `codeChallenge` (S256 of the app's verifier) lets Basalt's confirm page hand a code to `redirectTo`. */
export interface EmailSignInInput extends SendInput {
  codeChallenge?: string;
}

export type ResetInput = EmailProof & { newPassword: string };

export interface EmailChangeInput {
  newEmail: string;
  /** The account's password; a passwordless account proves itself with a fresh email `code` instead. */
  password?: string;
  code?: string;
  redirectTo?: string;
  locale?: string;
}

/** `POST /admin/users/invite`: invitees are members. */
export interface InviteInput {
  email: string;
  locale?: string;
  redirectTo?: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: 'member';
  createdAt: string;
}

/** `/admin/settings` `smtp`. */
export interface SmtpSettings {
  configured: boolean;
  from: string | null;
}

/** `POST /auth/oauth/exchange`: the one-time code a sign-in link (or, later, a provider) handed to the app. */
export interface CodeExchangeInput {
  code: string;
  codeVerifier: string;
}
