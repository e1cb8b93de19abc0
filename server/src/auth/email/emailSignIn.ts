import type { Knex } from 'knex';
import type { AuthResult, AuthUser, EmailProof, EmailSignInInput, MfaStep } from '@basalt/contract';
import { ApiError, invalidField, notFound } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { AccountService, Origin } from '../accounts.js';
import type { Mailer } from './mailer.js';
import { invalidToken, type ProofRow } from './proofs.js';
import { issueAuthCode, redeemAuthCode } from '../authCodes.js';
import { checkRedirect } from './validation.js';
import { addressProven } from '../provenAddress.js';

/**
 * Sign-in by an emailed link or code (`auth.emailSignIn`), and the one-time code a sign-in link hands to the app's
 * `redirectTo` through Basalt's confirm page, exchanged with the app's PKCE verifier (`POST /auth/oauth/exchange`, as
 * an identity provider's code is; auth/authCodes.ts): tokens never travel in a URL. An unknown address gets an account at the proof, and only
 * while sign-ups are enabled; the proof verifies the address.
 */

export class EmailSignIn {
  constructor(
    private readonly mailer: Mailer,
    private readonly accounts: AccountService,
    /** Tokens, or the second step when the account has a factor on (auth/mfa). */
    private readonly complete: (user: AuthUser & { verified?: boolean }, userAgent: string | undefined, db: Knex.Transaction) => Promise<AuthResult | MfaStep>,
  ) {}

  private enabled(): void {
    if (!this.mailer.settings.emailSignIn) throw notFound('Sign-in by email is not enabled for this project (auth.emailSignIn)');
  }

  /** `POST /auth/otp`. */
  async send(input: EmailSignInInput, locale: string | null, origin: Origin): Promise<void> {
    this.enabled();
    const redirectTo = checkRedirect(this.mailer.settings.redirectUrls, input.redirectTo);
    await this.mailer.countSend(origin.address, input.email);
    const user = await this.accounts.profileByEmail(input.email);
    if (!user && !this.accounts.signupEnabled) return;
    await this.mailer.inTransaction(async (trx) => {
      if (user) await this.accounts.rememberLocale(user.id, input.locale, trx);
      await this.mailer.sendProof(trx, { kind: 'otp', userId: user?.id ?? null, email: input.email, redirectTo, codeChallenge: input.codeChallenge ?? null, locale: input.locale ?? locale }, locale ?? user?.locale ?? null);
    });
  }

  /** The account a sign-in proof stands for, made now for a new address (sign-ups enabled), its address verified. */
  private async accountOf(trx: Knex.Transaction, row: ProofRow) {
    const existing = await this.accounts.profileByEmail(row.email, trx);
    if (existing) {
      if (row.user_id !== null && existing.id !== row.user_id) throw invalidToken();
      if (!existing.verified) await addressProven(trx, existing.id);
      return { id: existing.id, email: existing.email, role: existing.role, verified: true };
    }
    if (row.user_id !== null) throw invalidToken();
    if (!this.accounts.signupEnabled) throw new ApiError('SIGNUP_DISABLED', 'Sign-up is disabled for this project');
    return this.accounts.insertUser(randomId(), row.email, { passwordHash: null, verified: true, locale: row.locale }, trx);
  }

  /** `POST /auth/otp/verify`: the sign-in answer. */
  async verify(proof: EmailProof, origin: Origin): Promise<AuthResult | MfaStep> {
    this.enabled();
    return this.mailer.knex.transaction(async (trx) => {
      const row = await this.mailer.proofs.use(trx, proof, ['otp']);
      const account = await this.accountOf(trx, row);
      return this.complete(account, origin.userAgent, trx);
    });
  }

  /** `POST /auth/otp/code`: Basalt's confirm page trades a sign-in link for `redirectTo?code=`. */
  async handOver(token: string): Promise<{ redirectTo: string }> {
    this.enabled();
    return this.mailer.knex.transaction(async (trx) => {
      const row = await this.mailer.proofs.use(trx, { token }, ['otp']);
      if (!row.redirect_to || !row.code_challenge) {
        throw invalidField('token', 'This sign-in link names no app to return to (no redirectTo and codeChallenge): type the code of the mail into the app');
      }
      const account = await this.accountOf(trx, row);
      const code = await issueAuthCode(trx, account.id, row.code_challenge);
      const target = new URL(row.redirect_to);
      target.searchParams.set('code', code);
      return { redirectTo: target.href };
    });
  }

  /** `POST /auth/oauth/exchange`: the one-time code and the verifier whose S256 the app sent first -> the sign-in answer. */
  async exchange(code: string, codeVerifier: string, origin: Origin): Promise<AuthResult | MfaStep> {
    return this.mailer.knex.transaction(async (trx) => {
      const userId = await redeemAuthCode(trx, code, codeVerifier);
      const result = await trx.raw<{ rows: Array<{ id: string; email: string; role: 'owner' | 'member'; verified: boolean }> }>(
        `SELECT id, email, role, email_verified AS verified FROM users WHERE id = ?`,
        [userId],
      );
      const account = result.rows[0];
      if (!account) throw invalidField('code', 'The code is unknown, was already used, has expired or does not match codeVerifier');
      return this.complete(account, origin.userAgent, trx);
    });
  }
}
