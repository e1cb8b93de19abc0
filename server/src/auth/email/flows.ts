import type { Knex } from 'knex';
import type { AuthResult, AuthUser, EmailProof, MfaStep, SendInput, VerifyResult } from '@basalt/contract';
import { conflict } from '../../errors.js';
import type { AccountService, Origin } from '../accounts.js';
import type { PasswordChanges } from '../passwordChanges.js';
import type { PasswordHasher } from '../passwords.js';
import type { SessionStore } from '../sessions.js';
import type { Mailer } from './mailer.js';
import { invalidCode, invalidToken, type ProofRow } from './proofs.js';
import { checkRedirect } from './validation.js';
import { addressProven } from '../provenAddress.js';

/**
 * Verification, recovery and email change (API.md, "Email"). Every sending call answers the same whether or not the
 * address has an account: the limits count either way, the templates render either way, and only a known address
 * gets the transaction that writes its proof and mail.
 */
export class EmailFlows {
  constructor(
    private readonly mailer: Mailer,
    private readonly accounts: AccountService,
    private readonly sessions: SessionStore,
    private readonly passwords: PasswordHasher,
    private readonly passwordChanges: PasswordChanges,
    /** Tokens, or the second step when the account has a factor on (auth/mfa): a verification that signs in asks it too. */
    private readonly complete: (user: AuthUser & { verified?: boolean }, userAgent: string | undefined, db: Knex.Transaction) => Promise<AuthResult | MfaStep>,
  ) {}

  private get settings() {
    return this.mailer.settings;
  }

  /** Sign-up's mail (accounts.ts calls it): a verification mail, unless verification is off. */
  readonly sendVerificationFor = async (user: AuthUser, locale: string | null): Promise<void> => {
    await this.mailer.inTransaction((trx) => this.mailer.sendProof(trx, { kind: 'verify', userId: user.id, email: user.email }, locale));
  };

  /** `POST /auth/verify/send`. */
  async sendVerification(input: SendInput, locale: string | null, origin: Origin): Promise<void> {
    const redirectTo = checkRedirect(this.settings.redirectUrls, input.redirectTo);
    await this.mailer.countSend(origin.address, input.email);
    const user = await this.accounts.profileByEmail(input.email);
    if (!user || user.verified || this.settings.verification === 'off') return;
    await this.mailer.inTransaction(async (trx) => {
      await this.accounts.rememberLocale(user.id, input.locale, trx);
      await this.mailer.sendProof(trx, { kind: 'verify', userId: user.id, email: user.email, redirectTo }, locale ?? user.locale);
    });
  }

  /** The account a proof was made for, at the address it was sent to; a proof whose account moved on is spent. */
  private async provenAccount(trx: Knex.Transaction, row: ProofRow, field: 'token' | 'code') {
    const user = await this.accounts.profileByEmail(row.email, trx);
    if (!user || (row.user_id !== null && user.id !== row.user_id)) throw field === 'token' ? invalidToken() : invalidCode();
    return user;
  }

  /** `POST /auth/verify`: the user, and a token pair under `required` (the proof signs in). */
  async verify(proof: EmailProof, userAgent: string | undefined): Promise<VerifyResult | (MfaStep & { user: VerifyResult['user'] })> {
    return this.mailer.knex.transaction(async (trx) => {
      const row = await this.mailer.proofs.use(trx, proof, ['verify']);
      const user = await this.provenAccount(trx, row, 'token' in proof ? 'token' : 'code');
      await addressProven(trx, user.id);
      const verified = { id: user.id, email: user.email, role: user.role, verified: true };
      if (this.settings.verification !== 'required') return { user: verified };
      const signedIn = await this.complete(verified, userAgent, trx);
      return 'mfaRequired' in signedIn ? { user: verified, ...signedIn } : { user: verified, accessToken: signedIn.accessToken, refreshToken: signedIn.refreshToken };
    });
  }

  /** `POST /auth/recover`. */
  async recover(input: SendInput, locale: string | null, origin: Origin): Promise<void> {
    const redirectTo = checkRedirect(this.settings.redirectUrls, input.redirectTo);
    await this.mailer.countSend(origin.address, input.email);
    const user = await this.accounts.profileByEmail(input.email);
    if (!user) return;
    await this.mailer.inTransaction(async (trx) => {
      await this.accounts.rememberLocale(user.id, input.locale, trx);
      await this.mailer.sendProof(trx, { kind: 'recover', userId: user.id, email: user.email, redirectTo }, locale ?? user.locale);
    });
  }

  /**
   * `POST /auth/reset`: a recovery or invite mail's token or code, or the owner-made reset token (turn 2). The address
   * is proven by it (an invite's account becomes verified); every session of the account ends.
   */
  async reset(proof: EmailProof, newPassword: string): Promise<void> {
    if ('token' in proof && (await this.passwordChanges.isResetToken(proof.token))) return this.passwordChanges.reset(proof.token, newPassword);
    if ('token' in proof && !(await this.mailer.proofs.exists(proof.token, ['recover', 'invite']))) throw invalidToken();
    const passwordHash = await this.passwords.hash(newPassword);
    await this.mailer.knex.transaction(async (trx) => {
      const row = await this.mailer.proofs.use(trx, proof, ['recover', 'invite']);
      const user = await this.provenAccount(trx, row, 'token' in proof ? 'token' : 'code');
      await trx('users').where({ id: user.id }).update({ password_hash: passwordHash });
      await addressProven(trx, user.id);
      await trx('_basalt_reset_tokens').where({ user_id: user.id }).delete();
      await this.sessions.endAll(user.id, null, trx);
    });
  }

  /**
   * `POST /auth/email` (signed in, the password or a fresh email code checked by the route): a confirmation to the new
   * address and a notice to the old; a taken address is told so instead, and the caller's answer is the same.
   */
  async changeEmail(userId: string, newEmail: string, redirectTo: string | null, locale: string | null, origin: Origin): Promise<void> {
    await this.mailer.countSend(origin.address, newEmail);
    const user = await this.accounts.profile(userId);
    const taken = await this.accounts.profileByEmail(newEmail);
    await this.mailer.inTransaction(async (trx) => {
      const language = locale ?? user.locale;
      if (taken) {
        if (taken.id !== user.id) await this.mailer.sendNotice(trx, 'email-taken', newEmail, taken.locale ?? language);
        return;
      }
      await this.mailer.sendProof(trx, { kind: 'email-change', userId, email: newEmail, newEmail, redirectTo }, language, { email: user.email });
      await this.mailer.sendNotice(trx, 'email-change-notice', user.email, language, { newEmail });
    });
  }

  /** `POST /auth/email/confirm`: the account takes the new address, verified. */
  async confirmEmailChange(proof: EmailProof): Promise<VerifyResult> {
    return this.mailer.knex.transaction(async (trx) => {
      const row = await this.mailer.proofs.use(trx, proof, ['email-change']);
      if (!row.user_id || !row.new_email) throw invalidToken();
      try {
        const updated = await trx('users').where({ id: row.user_id }).update({ email: row.new_email, email_verified: true }).returning<AuthUser[]>(['id', 'email', 'role']);
        const user = updated[0];
        if (!user) throw invalidToken();
        return { user: { ...user, verified: true } };
      } catch (error) {
        if ((error as { code?: string } | null)?.code === '23505') throw conflict('users.email', 'An account with this email already exists');
        throw error;
      }
    });
  }
}
