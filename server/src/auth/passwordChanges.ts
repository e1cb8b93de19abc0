import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { RESET_TOKEN_TTL_SECONDS, type ResetLink, type TokenPair } from '@basalt/contract';
import { invalidField, notFound } from '../errors.js';
import { forExistingAccount, type AccountService, type Origin } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import type { SessionStore } from './sessions.js';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const invalidToken = () => invalidField('token', 'The reset token is unknown, was already used or has expired');

/**
 * Changing a password: by the signed-in user (their current password confirms it), or with a single-use reset token
 * the owner made for them (no mail server needed). Either way the account's other sessions end; API keys stay.
 */
export class PasswordChanges {
  constructor(
    private readonly knex: Knex,
    private readonly accounts: AccountService,
    private readonly sessions: SessionStore,
    private readonly passwords: PasswordHasher,
  ) {}

  /**
   * `POST /auth/password`: every other session of the caller ends; the calling device gets new tokens for its own
   * session (a new session when it was ended meanwhile). A wrong current password counts as a failed sign-in.
   */
  async change(userId: string, sessionId: string | null, currentPassword: string | undefined, newPassword: string, origin: Origin): Promise<TokenPair> {
    const row = await this.accounts.confirmPassword(userId, currentPassword, 'currentPassword', origin);
    const passwordHash = await this.passwords.hash(newPassword);
    return forExistingAccount(
      this.knex.transaction(async (trx) => {
        await trx('users').where({ id: userId }).update({ password_hash: passwordHash });
        await this.sessions.endAll(userId, sessionId, trx);
        const renewed = sessionId === null ? undefined : await this.sessions.renew(sessionId, userId, null, trx);
        return renewed ?? (await this.sessions.open({ id: row.id, email: row.email, role: row.role, verified: row.email_verified }, origin.userAgent, trx));
      }),
    );
  }

  /** `POST /admin/users/:id/reset-link`: a token valid one hour, stored as its digest. */
  createResetLink(userId: string): Promise<ResetLink> {
    return createResetLink(this.knex, userId);
  }

  /** Whether `token` is a live reset token the owner made (`POST /auth/reset` takes it beside mails' tokens). */
  async isResetToken(token: string): Promise<boolean> {
    const known = await this.knex('_basalt_reset_tokens').where({ token_hash: digest(token) }).andWhere('expires_at', '>', this.knex.fn.now()).first('user_id');
    return known !== undefined;
  }

  /**
   * `POST /auth/reset`: the token is used up in the statement that finds it (of two parallel resets one wins), every
   * other reset token of the account goes too, and every session of the account ends.
   */
  async reset(token: string, newPassword: string): Promise<void> {
    // An unknown token is refused before any hashing: guessing tokens costs the service nothing.
    const known = await this.knex('_basalt_reset_tokens').where({ token_hash: digest(token) }).andWhere('expires_at', '>', this.knex.fn.now()).first('user_id');
    if (!known) throw invalidToken();
    const passwordHash = await this.passwords.hash(newPassword);
    await this.knex.transaction(async (trx) => {
      const used = await trx.raw<{ rows: Array<{ user_id: string }> }>(
        `DELETE FROM _basalt_reset_tokens WHERE token_hash = ? AND expires_at > now() RETURNING user_id`,
        [digest(token)],
      );
      const userId = used.rows[0]?.user_id;
      if (!userId) throw invalidToken();
      await trx('_basalt_reset_tokens').where({ user_id: userId }).delete();
      await trx('users').where({ id: userId }).update({ password_hash: passwordHash });
      await this.sessions.endAll(userId, null, trx);
    });
  }
}

/** A single-use reset token for a user, valid one hour, stored as its digest; 404 for no such user. */
export async function createResetLink(knex: Knex, userId: string): Promise<ResetLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + RESET_TOKEN_TTL_SECONDS * 1000);
  try {
    await knex('_basalt_reset_tokens').insert({ token_hash: digest(token), user_id: userId, expires_at: expiresAt });
  } catch (error) {
    // The user is gone (or never was): the foreign key says so.
    if ((error as { code?: string }).code === '23503') throw notFound(`No user ${userId}`);
    throw error;
  }
  return { token, expiresAt: expiresAt.toISOString() };
}

/** The reset link for an email (`npm run admin -- reset-link <email>`, which reads the database directly). */
export async function createResetLinkFor(knex: Knex, email: string): Promise<ResetLink> {
  const user = await knex('users').where({ email: email.trim().toLowerCase() }).first<{ id: string } | undefined>('id');
  if (!user) throw notFound(`No account with the email ${email}`);
  return createResetLink(knex, user.id);
}

/** Where the console takes a reset token: in the fragment, which never reaches a server or its logs. */
export const resetPagePath = (token: string) => `/console/reset#token=${encodeURIComponent(token)}`;
