import type { TokenPair } from './api.js';

/**
 * Accounts beyond sign-in (API.md, "Accounts: abuse limits, sessions, passwords, keys"): sessions per device, password
 * change and reset, API keys, and the abuse limits set in config.json.
 */

/** `GET /auth/sessions`: one per signed-in device; `current` is the session of the calling token. */
export interface SessionInfo {
  id: string;
  /** The sign-in that opened it. */
  createdAt: string;
  /** The last sign-in or refresh of this device. */
  lastUsedAt: string;
  userAgent: string | null;
  current: boolean;
}

export interface ChangePasswordInput {
  /** Required unless the account has no password yet (made by an emailed code or an invite). */
  currentPassword?: string;
  newPassword: string;
}

export type ChangePasswordResult = TokenPair;

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

/** `POST /admin/users/:id/reset-link`: a single-use token for `POST /auth/reset`, valid one hour. */
export interface ResetLink {
  token: string;
  expiresAt: string;
}
export const RESET_TOKEN_TTL_SECONDS = 60 * 60;

export const API_KEY_ACCESS = ['read', 'read-write'] as const;
export type ApiKeyAccess = (typeof API_KEY_ACCESS)[number];
/** Every key starts so, for secret scanners (and for the service to tell keys from tokens). */
export const API_KEY_PREFIX = 'bsk_';
/** In UTF-16 code units, after white space at either end is trimmed (it is stored trimmed, as an email is). */
export const API_KEY_NAME_MAX_LENGTH = 100;

/**
 * Bounds on texts the service only compares (UTF-16 code units): generous beside what it issues (a refresh token is a
 * JWT of a few hundred characters, a reset token 43), they only spare hashing or looking up megabytes.
 */
export const REFRESH_TOKEN_MAX_LENGTH = 4096;
export const RESET_TOKEN_MAX_LENGTH = 256;
/** A password checked against the account's (`currentPassword`, `DELETE /auth/me`): bounded, not held to a new one's bytes. */
export const PASSWORD_CONFIRMATION_MAX_LENGTH = 1024;

export interface CreateApiKeyInput {
  name: string;
  access: ApiKeyAccess;
  /** ISO 8601 or epoch milliseconds, in the future; none: the key does not expire. */
  expiresAt?: string | number | null;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  access: ApiKeyAccess;
  createdAt: string;
  expiresAt: string | null;
  /** To the minute; null until first used. */
  lastUsedAt: string | null;
}

/** `POST /auth/keys` answers the key itself, this once. */
export interface CreatedApiKey extends Omit<ApiKeyInfo, 'lastUsedAt'> {
  key: string;
}

/** A limit of config.json: at most `max` events per `windowSeconds`. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

export const LIMIT_NAMES = [
  'signinFailuresPerAccountAndAddress',
  'signinFailuresPerAddress',
  'signupsPerAddress',
  'refreshesPerSession',
  'emailsPerAddress',
  'emailsPerRecipient',
  'mfaFailuresPerAccount',
  'providerSignInsPerAddress',
  'uploadsPerUser',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, RateLimit> & {
  /** Open realtime streams per caller and process (a count, not a rate). */
  realtimeStreamsPerCaller: number;
  /** Bytes of files one account's uploads may hold, over every bucket (a total, not a rate): past it 413. */
  storageBytesPerUser: { max: number };
};

export const DEFAULT_LIMITS: Limits = {
  realtimeStreamsPerCaller: 10,
  signinFailuresPerAccountAndAddress: { max: 10, windowSeconds: 900 },
  signinFailuresPerAddress: { max: 100, windowSeconds: 900 },
  signupsPerAddress: { max: 100, windowSeconds: 3600 },
  refreshesPerSession: { max: 30, windowSeconds: 60 },
  /** Mails asked for from one client address, and mails to one (normalised) address, known or not. */
  emailsPerAddress: { max: 20, windowSeconds: 3600 },
  emailsPerRecipient: { max: 5, windowSeconds: 3600 },
  /** Wrong second-factor codes of one account, whatever the address (they count against the sign-in limits too). */
  mfaFailuresPerAccount: { max: 10, windowSeconds: 900 },
  /** Identity-provider sign-ins and links started, and native id tokens sent, from one address. */
  providerSignInsPerAddress: { max: 100, windowSeconds: 900 },
  /** Files uploaded (created, replaced or resumable uploads started) by one account, or by anon from one address. */
  uploadsPerUser: { max: 1000, windowSeconds: 3600 },
  storageBytesPerUser: { max: 10 * 1024 * 1024 * 1024 },
};

/** `details` of a 429: which limit, and the seconds also sent in `Retry-After`. */
export interface RateLimitedDetails {
  limit: LimitName;
  retryAfter: number;
}
