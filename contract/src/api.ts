import type { EmailVerificationMode, SmtpSettings } from './email.js';
import type { ErrorCode } from './errors.js';

export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface AuthUser {
  id: string;
  email: string;
  role: Role;
}

export interface Profile extends AuthUser {
  createdAt: string;
  /** The address was proven (a mail's link or code, an invite; accounts made before verification was required). */
  verified: boolean;
  /** false for an account made by an emailed sign-in code or an invite not yet accepted. */
  hasPassword: boolean;
  /** BCP 47, from sign-up or a sending endpoint; null: none given. */
  locale: string | null;
  /** A second factor (TOTP) is on. */
  mfa: boolean;
  /** Identity providers linked to the account, oldest first. */
  identities: Identity[];
}

/** An identity provider's account linked to a Basalt account: the email the provider gave, when it was linked. */
export interface Identity {
  provider: string;
  email: string | null;
  createdAt: string;
}

/** `/admin/users` items: the profile, as the owner sees it. */
export type AdminUser = Profile;

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface AuthResult extends TokenPair {
  user: AuthUser;
}

/** `POST /auth/verify` and `/auth/email/confirm`: the user; under `required` a verification also signs in. */
export interface VerifyResult extends Partial<TokenPair> {
  user: AuthUser & { verified: boolean };
}

export interface AuthSettings {
  signupEnabled: boolean;
  hasOwner: boolean;
  /** `auth.emailSignIn`: sign-in by an emailed link or code. */
  emailSignIn: boolean;
  emailVerification: EmailVerificationMode;
  providers: Array<{ name: string; displayName: string }>;
}

export interface AdminSettings {
  anonKey: string;
  signupEnabled: boolean;
  smtp: SmtpSettings;
  providers: Array<{ name: string; displayName: string }>;
}

export interface TypesResult {
  typescript: string;
}

export interface DataResponse<T> {
  data: T;
}

export interface ListResponse<T> {
  data: T[];
  total: number;
}

export interface Credentials {
  email: string;
  password: string;
}

/** Claims of the tokens the service signs (HS256). */
export interface AccessClaims {
  sub: string;
  role: Role;
  sid: string;
  typ: 'access';
  /** Authentication assurance: 1, or 2 after a second factor (issue 27). */
  aal?: 1 | 2;
  /** Whether the account's email was verified when the token was made (may lag up to a refresh). */
  verified?: boolean;
  /** The account's email, present only when verified: what `@auth.email` reads. */
  email?: string;
  iat: number;
  exp: number;
}

export interface RefreshClaims {
  sub: string;
  sid: string;
  typ: 'refresh';
  jti: string;
  iat: number;
  exp: number;
}

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Header names the service reads. */
export const APIKEY_HEADER = 'apikey';
export const REQUEST_ID_HEADER = 'x-request-id';

export type { ErrorCode };
