import type { Knex } from 'knex';
import type { AuthUser, EmailVerificationMode } from '@basalt/contract';
import { ApiError, conflict, invalidField, notFound } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { AccountService } from '../accounts.js';
import type { ProviderIdentity } from './claims.js';

/**
 * Which account a provider's identity signs in, or links to (API.md, "Accounts" of the providers section): an identity
 * (provider, subject) belongs to one account and an account has at most one per provider. A first sign-in whose email
 * belongs to an account links only when the provider vouches for the email and the account's email is verified, else
 * `ACCOUNT_EXISTS` (sign in, then link). A new address makes an account (a member, never the owner) while sign-ups are
 * enabled; its email is verified when the provider vouches for it, and an identity that made or joined an unverified
 * account is marked so a later proof of the address by mail removes it (auth/provenAddress.ts).
 */
export type SignedInAccount = AuthUser & { verified: boolean };

interface IdentityRow {
  user_id: string;
  email: string;
  role: AuthUser['role'];
  verified: boolean;
}

const UNIQUE_PER_ACCOUNT = '_basalt_identities_user_provider';
const accountExists = (provider: string) =>
  new ApiError('ACCOUNT_EXISTS', 'An account with this email already exists: sign in to it another way, then link this provider', { provider });

export class Identities {
  constructor(
    private readonly accounts: AccountService,
    private readonly settings: { signupEnabled: boolean; site: { verification: EmailVerificationMode } },
  ) {}

  private async owner(trx: Knex.Transaction, provider: string, subject: string): Promise<IdentityRow | undefined> {
    const result = await trx.raw<{ rows: IdentityRow[] }>(
      `SELECT i.user_id, u.email, u.role, u.email_verified AS verified FROM _basalt_identities i JOIN users u ON u.id = i.user_id
       WHERE i.provider = ? AND i.subject = ? FOR UPDATE OF i`,
      [provider, subject],
    );
    return result.rows[0];
  }

  private async insert(trx: Knex.Transaction, provider: string, identity: ProviderIdentity, userId: string, unverifiedLink: boolean): Promise<void> {
    try {
      await trx.raw(`SAVEPOINT identity_insert`);
      await trx.raw(`INSERT INTO _basalt_identities (provider, subject, user_id, email, unverified_link) VALUES (?, ?, ?, ?, ?)`, [
        provider,
        identity.subject,
        userId,
        identity.email,
        unverifiedLink,
      ]);
      await trx.raw(`RELEASE SAVEPOINT identity_insert`);
    } catch (error) {
      await trx.raw(`ROLLBACK TO SAVEPOINT identity_insert`);
      if ((error as { constraint?: string }).constraint === UNIQUE_PER_ACCOUNT) {
        throw conflict('identities.provider', `This account already has an identity of ${provider}: unlink it first`);
      }
      throw error;
    }
  }

  /** The account a provider sign-in signs in, made or linked now where the rules allow. */
  async signIn(trx: Knex.Transaction, provider: string, identity: ProviderIdentity): Promise<SignedInAccount> {
    const known = await this.owner(trx, provider, identity.subject);
    if (known) return { id: known.user_id, email: known.email, role: known.role, verified: known.verified };
    if (!identity.email) throw new ApiError('EMAIL_REQUIRED', `${provider} did not share an email address, which a new account needs: allow it at the provider`);
    const existing = await this.accounts.profileByEmail(identity.email, trx);
    if (existing) {
      if (!identity.emailVerified || !existing.verified) throw accountExists(provider);
      await this.insert(trx, provider, identity, existing.id, false);
      return { id: existing.id, email: existing.email, role: existing.role, verified: true };
    }
    if (!this.settings.signupEnabled) throw new ApiError('SIGNUP_DISABLED', 'Sign-up is disabled for this project');
    if (!identity.emailVerified && this.settings.site.verification === 'required') {
      throw new ApiError('EMAIL_NOT_VERIFIED', `${provider} does not vouch for this email address, and this project requires a verified one: sign up with the address instead`);
    }
    const user = await this.accounts.insertUser(randomId(), identity.email, { passwordHash: null, verified: identity.emailVerified, role: 'member' }, trx);
    await this.insert(trx, provider, identity, user.id, !identity.emailVerified);
    return user;
  }

  /** Links the identity to the signed-in account (`POST /auth/identities/<provider>`, at the callback). */
  async link(trx: Knex.Transaction, provider: string, identity: ProviderIdentity, userId: string): Promise<void> {
    const known = await this.owner(trx, provider, identity.subject);
    if (known && known.user_id !== userId) throw accountExists(provider);
    if (known) return;
    const account = await trx.raw<{ rows: Array<{ verified: boolean }> }>(`SELECT email_verified AS verified FROM users WHERE id = ?`, [userId]);
    if (!account.rows[0]) throw notFound('The account no longer exists');
    await this.insert(trx, provider, identity, userId, !account.rows[0].verified);
  }

  /** Refuses a link to start when the account already has this provider. */
  async assertUnlinked(userId: string, provider: string): Promise<void> {
    const row = await this.accounts.knex('_basalt_identities').where({ user_id: userId, provider }).first('provider');
    if (row) throw conflict('identities.provider', `This account already has an identity of ${provider}: unlink it first`);
  }

  /**
   * `DELETE /auth/identities/<provider>`, unless it is the last way in: no password, no other identity, and no
   * sign-in by email (`auth.emailSignIn` with the address verified).
   */
  async unlink(userId: string, provider: string, emailSignIn: boolean): Promise<void> {
    await this.accounts.knex.transaction(async (trx) => {
      const result = await trx.raw<{ rows: Array<{ has_password: boolean; verified: boolean; others: number; linked: boolean }> }>(
        `SELECT u.password_hash IS NOT NULL AS has_password, u.email_verified AS verified,
                (SELECT count(*) FROM _basalt_identities i WHERE i.user_id = u.id AND i.provider <> ?)::int AS others,
                EXISTS (SELECT 1 FROM _basalt_identities i WHERE i.user_id = u.id AND i.provider = ?) AS linked
         FROM users u WHERE u.id = ? FOR UPDATE`,
        [provider, provider, userId],
      );
      const row = result.rows[0];
      if (!row || !row.linked) throw notFound(`This account has no identity of ${provider}`);
      if (!row.has_password && row.others === 0 && !(emailSignIn && row.verified)) {
        throw invalidField('provider', `${provider} is this account's only way in: set a password or link another provider first`);
      }
      await trx('_basalt_identities').where({ user_id: userId, provider }).delete();
    });
  }
}
