import { createHash, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  REFRESH_TOKEN_TTL_SECONDS,
  ROLES,
  type AccessClaims,
  type RefreshClaims,
  type Role,
} from '@basalt/contract';
import { randomId } from '../ids.js';

const ALGORITHM = 'HS256';

export type VerifiedToken =
  | { kind: 'access'; claims: AccessClaims }
  | { kind: 'anon' }
  | { kind: 'expired' }
  | { kind: 'invalid' };

/** The sessions table stores only this digest of a refresh token. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Signs and verifies the three kinds of JWT (access, refresh, anon) with one secret. The secret is a KeyObject, which
 * makes each call about 50 times faster than passing the string, and verification always names its algorithm.
 */
const VERIFIED_CACHE_SIZE = 2_000;

export class TokenService {
  private readonly key: KeyObject;
  readonly anonKey: string;
  private readonly anonKeyBuffer: Buffer;
  /**
   * Access tokens already verified, until their `exp`: a token is immutable, so one signature check per process is
   * enough, and a busy client presents the same token thousands of times.
   */
  private readonly verified = new Map<string, AccessClaims>();

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    // No iat and no exp: every process and restart with one secret produces the same anon key.
    this.anonKey = jwt.sign({ role: 'anon', typ: 'anon' }, this.key, { algorithm: ALGORITHM, noTimestamp: true });
    this.anonKeyBuffer = Buffer.from(this.anonKey);
  }

  /**
   * `verified` (and, when verified, `email`, which `@auth.email` reads) as the account was when the token was made:
   * they may lag up to a refresh. `aal` is the session's: 2 once a second factor proved it.
   */
  signAccessToken(user: { id: string; role: Role; email?: string; verified?: boolean; aal?: 1 | 2 }, sessionId: string): string {
    const verified = user.verified === true;
    return jwt.sign({ sub: user.id, role: user.role, sid: sessionId, typ: 'access', aal: user.aal ?? 1, verified, ...(verified && user.email ? { email: user.email } : {}) }, this.key, {
      algorithm: ALGORITHM,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
    });
  }

  /** A refresh token and when it expires; `jti` makes every token unique even within one second. */
  signRefreshToken(userId: string, sessionId: string): { token: string; expiresAt: Date } {
    const token = jwt.sign({ sub: userId, sid: sessionId, typ: 'refresh', jti: randomId() }, this.key, {
      algorithm: ALGORITHM,
      expiresIn: REFRESH_TOKEN_TTL_SECONDS,
    });
    return { token, expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000) };
  }

  private isAnonKey(token: string): boolean {
    const candidate = Buffer.from(token);
    return candidate.length === this.anonKeyBuffer.length && timingSafeEqual(candidate, this.anonKeyBuffer);
  }

  /** An access token or the anon key, as presented in `Authorization` or `apikey`. */
  verifyCredential(token: string): VerifiedToken {
    // The anon key is fixed for a secret: comparing bytes is as strong as verifying it, and far cheaper.
    if (this.isAnonKey(token)) return { kind: 'anon' };
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > Date.now()) return { kind: 'access', claims: known };
      this.verified.delete(token);
      return { kind: 'expired' };
    }
    let payload: unknown;
    try {
      payload = jwt.verify(token, this.key, { algorithms: [ALGORITHM] });
    } catch (error) {
      return error instanceof jwt.TokenExpiredError ? { kind: 'expired' } : { kind: 'invalid' };
    }
    if (!isAccessClaims(payload)) return { kind: 'invalid' };
    // Oldest first out: Map keeps insertion order.
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, payload);
    return { kind: 'access', claims: payload };
  }

  verifyRefreshToken(token: string): RefreshClaims | null {
    try {
      const payload = jwt.verify(token, this.key, { algorithms: [ALGORITHM] });
      return isRefreshClaims(payload) ? payload : null;
    } catch {
      return null;
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isAccessClaims(payload: unknown): payload is AccessClaims {
  return (
    isObject(payload) &&
    payload.typ === 'access' &&
    typeof payload.sub === 'string' &&
    typeof payload.sid === 'string' &&
    (ROLES as readonly unknown[]).includes(payload.role) &&
    typeof payload.exp === 'number'
  );
}

function isRefreshClaims(payload: unknown): payload is RefreshClaims {
  return (
    isObject(payload) &&
    payload.typ === 'refresh' &&
    typeof payload.sub === 'string' &&
    typeof payload.sid === 'string' &&
    typeof payload.jti === 'string' &&
    typeof payload.exp === 'number'
  );
}
