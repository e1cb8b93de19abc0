import type { Knex } from 'knex';
import { MFA_MAX_WRONG_CODES, MFA_TOKEN_TTL_SECONDS, type AuthResult, type AuthUser, type MfaChallengeInput, type MfaStep } from '@basalt/contract';
import { invalidField } from '../../errors.js';
import type { Origin } from '../accounts.js';
import { signinCounters, type AbuseLimiter, type Counter } from '../limits.js';
import type { SessionStore } from '../sessions.js';
import type { TotpFactors } from './totp.js';
import { newToken, tokenDigest as digest } from '../sealed.js';

/**
 * The second step of every way in (password, emailed code or link, later providers): an account with a factor on
 * gets `{ mfaRequired, mfaToken }` instead of tokens, and `POST /auth/mfa/challenge` trades the token and a TOTP or
 * recovery code for the tokens, at `aal: 2`. The mfaToken lives 5 minutes, single use; its 5th wrong code voids it.
 * Wrong codes count against the sign-in limits of the account and address and `mfaFailuresPerAccount` (any address),
 * and over them the challenge is refused before any code is checked.
 */
const invalidMfaToken = () => invalidField('mfaToken', 'The sign-in step is unknown, was already used or has expired: sign in again');

interface StepRow {
  user_id: string;
  user_agent: string | null;
  email: string;
  role: AuthUser['role'];
  verified: boolean;
}

export class MfaSignIn {
  constructor(
    private readonly knex: Knex,
    private readonly totp: TotpFactors,
    private readonly sessions: SessionStore,
    private readonly limiter: AbuseLimiter,
  ) {}

  /** Tokens for an account proven by its first factor, or the second step when it has a factor on. */
  readonly complete = async (user: AuthUser & { verified?: boolean }, userAgent: string | undefined, db: Knex | Knex.Transaction = this.knex): Promise<AuthResult | MfaStep> => {
    if (!(await this.totp.isEnabled(user.id, db))) return { user: { id: user.id, email: user.email, role: user.role }, ...(await this.sessions.open(user, userAgent, db)) };
    const mfaToken = newToken();
    await db.raw(`INSERT INTO _basalt_mfa_tokens (token_hash, user_id, user_agent, expires_at) VALUES (?, ?, ?, now() + make_interval(secs => ?))`, [
      digest(mfaToken),
      user.id,
      userAgent?.slice(0, 512) ?? null,
      MFA_TOKEN_TTL_SECONDS,
    ]);
    return { mfaRequired: true, mfaToken };
  };

  /** `POST /auth/mfa/challenge`. */
  async challenge(input: MfaChallengeInput, origin: Origin): Promise<AuthResult> {
    const step = await this.knex.raw<{ rows: StepRow[] }>(
      `SELECT t.user_id, t.user_agent, u.email, u.role, u.email_verified AS verified
       FROM _basalt_mfa_tokens t JOIN users u ON u.id = t.user_id
       WHERE t.token_hash = ? AND t.expires_at > now() AND t.wrong_codes < ?`,
      [digest(input.mfaToken), MFA_MAX_WRONG_CODES],
    );
    const row = step.rows[0];
    if (!row) throw invalidMfaToken();
    const counters: Counter[] = [...signinCounters(row.email, origin.address), { name: 'mfaFailuresPerAccount', subject: row.user_id }];
    const attempt = await this.limiter.reserve(counters);
    const field = 'code' in input ? 'code' : 'recoveryCode';
    const result = await this.knex.transaction(async (trx) => {
      const proven = 'code' in input ? await this.totp.accept(row.user_id, input.code, 'enabled', trx) : await this.totp.useRecoveryCode(row.user_id, input.recoveryCode, trx);
      if (!proven) return null;
      const used = await trx('_basalt_mfa_tokens').where({ token_hash: digest(input.mfaToken) }).delete();
      if (used !== 1) return null;
      const user: AuthUser = { id: row.user_id, email: row.email, role: row.role };
      return { user, ...(await this.sessions.open({ ...user, verified: row.verified }, row.user_agent ?? undefined, trx, 2)) };
    });
    if (!result) {
      await attempt.failed();
      const counted = await this.knex.raw<{ rows: Array<{ wrong_codes: number }> }>(
        `UPDATE _basalt_mfa_tokens SET wrong_codes = wrong_codes + 1 WHERE token_hash = ? RETURNING wrong_codes`,
        [digest(input.mfaToken)],
      );
      if ((counted.rows[0]?.wrong_codes ?? 0) >= MFA_MAX_WRONG_CODES) await this.knex('_basalt_mfa_tokens').where({ token_hash: digest(input.mfaToken) }).delete();
      throw invalidField(field, field === 'code' ? 'The code is wrong or was already used: type the current code of the authenticator app' : 'The recovery code is wrong or was already used');
    }
    await attempt.succeeded(counters[0]!);
    return result;
  }
}
