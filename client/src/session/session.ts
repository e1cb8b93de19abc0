import { ROLES, type AuthResult, type AuthUser, type Role, type TokenPair } from '@basalt/contract';
import { accessTokenExpiresAt, decodeJwtPayload } from './accessToken.js';

/** What the client keeps for a signed-in user: the token pair, the user, and when the access token expires. */
export interface Session extends AuthResult {
  /** Epoch milliseconds, on this machine's clock, at which the access token expires. */
  expiresAt: number;
}

/** The three things `auth.onChange` reports. */
export type AuthChangeEvent = 'signed_in' | 'refreshed' | 'signed_out';

export function sessionFromAuthResult(result: AuthResult, receivedAt = Date.now()): Session {
  return {
    user: { id: result.user.id, email: result.user.email, role: result.user.role },
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
    // A token without a readable exp is refreshed when the server says it expired (401 token_expired).
    expiresAt: accessTokenExpiresAt(result.accessToken, receivedAt) ?? Number.POSITIVE_INFINITY,
  };
}

/** The session after a refresh: new tokens, same user, with the role the new access token carries. */
export function sessionFromRefresh(previous: Session, pair: TokenPair, receivedAt = Date.now()): Session {
  const role = decodeJwtPayload(pair.accessToken)?.role;
  const user: AuthUser = (ROLES as readonly unknown[]).includes(role) ? { ...previous.user, role: role as Role } : previous.user;
  return sessionFromAuthResult({ user, ...pair }, receivedAt);
}

export function serializeSession(session: Session): string {
  return JSON.stringify({ ...session, expiresAt: Number.isFinite(session.expiresAt) ? session.expiresAt : null });
}

function isUser(value: unknown): value is AuthUser {
  if (typeof value !== 'object' || value === null) return false;
  const user = value as Record<string, unknown>;
  return typeof user.id === 'string' && typeof user.email === 'string' && (ROLES as readonly unknown[]).includes(user.role);
}

/**
 * Reads a stored session back, tolerating what another tab, an older version or a hand-edited value may have left:
 * anything unreadable is treated as "no session" rather than crashing the app at start-up.
 */
export function parseSession(raw: string | null | undefined): Session | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const stored = value as Record<string, unknown>;
  if (typeof stored.accessToken !== 'string' || typeof stored.refreshToken !== 'string' || !isUser(stored.user)) return null;
  const expiresAt =
    typeof stored.expiresAt === 'number' ? stored.expiresAt : (accessTokenExpiresAt(stored.accessToken) ?? Number.POSITIVE_INFINITY);
  return {
    user: { id: stored.user.id, email: stored.user.email, role: stored.user.role },
    accessToken: stored.accessToken,
    refreshToken: stored.refreshToken,
    expiresAt,
  };
}

/** Two sessions are the same when they hold the same token pair; a refresh or a new sign-in changes both. */
export function sameSession(a: Session | null, b: Session | null): boolean {
  return a?.refreshToken === b?.refreshToken && a?.accessToken === b?.accessToken;
}
