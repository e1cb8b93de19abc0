import type { Knex } from 'knex';
import type { AuthUser, Role, SessionInfo, TokenPair } from '@basalt/contract';
import { notFound, unauthorized } from '../errors.js';
import { randomId } from '../ids.js';
import type { AbuseLimiter } from './limits.js';
import { hashRefreshToken, type TokenService } from './tokens.js';

/** A user agent is kept for the sessions list, cut to a sane length. */
const USER_AGENT_MAX = 512;
const userAgentOf = (value: string | undefined) => (value ? value.slice(0, USER_AGENT_MAX) : null);

interface SessionRow {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
}

/**
 * Sessions, one per signed-in device. A session keeps its id from sign-in through every refresh; each refresh
 * replaces its token (only the sha256 of the refresh token is stored) and stamps `last_used_at`.
 */
export class SessionStore {
  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService,
    private readonly limiter: AbuseLimiter,
  ) {}

  /** A new device session, in the given transaction when there is one; `aal` 2 after a second factor, kept by refreshes. */
  async open(user: AuthUser & { verified?: boolean }, userAgent: string | undefined, db: Knex | Knex.Transaction = this.knex, aal: 1 | 2 = 1): Promise<TokenPair> {
    const sessionId = randomId();
    const refresh = this.tokens.signRefreshToken(user.id, sessionId);
    await db('sessions').insert({
      id: sessionId,
      user_id: user.id,
      token_hash: hashRefreshToken(refresh.token),
      expires_at: refresh.expiresAt,
      user_agent: userAgentOf(userAgent),
      aal,
    });
    return { accessToken: this.tokens.signAccessToken({ ...user, aal }, sessionId), refreshToken: refresh.token };
  }

  /**
   * New tokens for an existing session (`userId`'s): the stored token is replaced in one statement, so of parallel
   * refreshes with one token only the first finds it, and the others get 401. Undefined: no such live session.
   */
  async renew(sessionId: string, userId: string, oldTokenHash: string | null, db: Knex | Knex.Transaction = this.knex): Promise<TokenPair | undefined> {
    const next = this.tokens.signRefreshToken(userId, sessionId);
    const result = await db.raw<{ rows: Array<{ id: string; role: Role; email: string; verified: boolean; aal: 1 | 2 }> }>(
      `UPDATE sessions s SET token_hash = ?, expires_at = ?, last_used_at = now()
       FROM users u
       WHERE s.id = ? AND s.user_id = ? AND u.id = s.user_id AND s.expires_at > now() AND (?::text IS NULL OR s.token_hash = ?)
       RETURNING u.id, u.role, u.email, u.email_verified AS verified, s.aal`,
      [hashRefreshToken(next.token), next.expiresAt, sessionId, userId, oldTokenHash, oldTokenHash],
    );
    const user = result.rows[0];
    return user ? { accessToken: this.tokens.signAccessToken(user, sessionId), refreshToken: next.token } : undefined;
  }

  /** Exchanges a refresh token for a new pair; the session keeps its id. Refreshes per session are limited. */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const claims = this.tokens.verifyRefreshToken(refreshToken);
    if (!claims) throw unauthorized('The refresh token is not valid');
    await this.limiter.consume({ name: 'refreshesPerSession', subject: claims.sid });
    const pair = await this.renew(claims.sid, claims.sub, hashRefreshToken(refreshToken));
    if (!pair) throw unauthorized('The refresh token is not valid, was already used or was revoked');
    return pair;
  }

  async list(userId: string, currentSessionId: string | null): Promise<SessionInfo[]> {
    const rows = await this.knex('sessions')
      .where({ user_id: userId })
      .andWhere('expires_at', '>', this.knex.fn.now())
      .orderBy([{ column: 'last_used_at', order: 'desc' }, { column: 'id' }])
      .select<SessionRow[]>('id', 'created_at', 'last_used_at', 'user_agent');
    return rows.map((row) => ({
      id: row.id,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      userAgent: row.user_agent,
      current: row.id === currentSessionId,
    }));
  }

  /** Ends one device's session of this user; another user's id, or none, is 404. */
  async end(userId: string, sessionId: string): Promise<void> {
    const deleted = await this.knex('sessions').where({ user_id: userId, id: sessionId }).delete();
    if (deleted === 0) throw notFound(`No session ${sessionId}`);
  }

  /** Ends every session of the user, or every one but `keep`. */
  async endAll(userId: string, keep: string | null = null, db: Knex | Knex.Transaction = this.knex): Promise<void> {
    const all = db('sessions').where({ user_id: userId });
    await (keep === null ? all : all.andWhereNot({ id: keep })).delete();
  }
}
