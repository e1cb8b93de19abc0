import type { ApiKeyAccess, Role } from '@basalt/contract';

/** An API key as verified: which key, what it may do, and the schema version it was checked under (auth/keys.ts). */
export interface KeyCredential {
  id: string;
  /** sha256 of the key: how it is checked again. */
  hash: string;
  access: ApiKeyAccess;
  version: number;
}

/** A signed-in user: by an access token (its session) or by an API key (no session). */
export interface UserCaller {
  kind: 'user';
  id: string;
  role: Role;
  sessionId: string | null;
  key?: KeyCredential;
  /** The account's email was verified (an access token's `verified` claim; a key's account as read). */
  verified?: boolean;
  /** The account's email when verified, else null (`@auth.email`). */
  email?: string | null;
  /** The session's assurance level: 2 after a second factor (an access token's `aal`); keys: 1. */
  aal?: 1 | 2;
  /** When the credential stops being valid (ms since the epoch): a token's `exp`, a key's expiry; none: never. */
  expiresAt?: number;
}

export type KeyCaller = UserCaller & { key: KeyCredential; sessionId: null };

/** Who is calling, as the credentials middleware established it. */
export type Caller = { kind: 'anon' } | UserCaller;

export const ANON: Caller = Object.freeze({ kind: 'anon' });

export function isOwner(caller: Caller): boolean {
  return caller.kind === 'user' && caller.role === 'owner';
}

/** A read-only API key writes nothing, whatever the policy. */
export function isReadOnly(caller: Caller): boolean {
  return caller.kind === 'user' && caller.key?.access === 'read';
}
