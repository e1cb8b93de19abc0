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
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface AuthResult extends TokenPair {
  user: AuthUser;
}

export interface AuthSettings {
  signupEnabled: boolean;
  hasOwner: boolean;
}

export interface AdminSettings {
  anonKey: string;
  signupEnabled: boolean;
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
