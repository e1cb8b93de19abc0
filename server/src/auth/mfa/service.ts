import type { Knex } from 'knex';
import type { TotpEnabled, TotpEnrollment } from '@basalt/contract';
import { accountGone, invalidField } from '../../errors.js';
import type { Origin } from '../accounts.js';
import type { AbuseLimiter } from '../limits.js';
import type { SessionStore } from '../sessions.js';
import { MfaSignIn } from './signIn.js';
import { TotpFactors } from './totp.js';

/** The second factor, wired: TOTP factors, the sign-in step, enrolment. */
export class Mfa {
  readonly totp: TotpFactors;
  readonly signIn: MfaSignIn;

  constructor(
    private readonly knex: Knex,
    jwtSecret: string,
    issuer: string,
    private readonly sessions: SessionStore,
    limiter: AbuseLimiter,
  ) {
    this.totp = new TotpFactors(knex, jwtSecret, issuer);
    this.signIn = new MfaSignIn(knex, this.totp, sessions, limiter);
  }

  async enroll(userId: string): Promise<TotpEnrollment | undefined> {
    const user = await this.knex('users').where({ id: userId }).first<{ email: string } | undefined>('email');
    // Deleted since the route checked it: the account's 401, not a 500.
    if (!user) throw accountGone();
    return this.totp.enroll(userId, user.email);
  }

  /**
   * `POST /auth/mfa/totp/verify`: the pending factor's first code turns it on; every other session ends, this device
   * goes on at `aal: 2` with new tokens, and the recovery codes are answered this once.
   */
  async turnOn(userId: string, code: string, origin: Origin): Promise<TotpEnabled> {
    if (await this.totp.isEnabled(userId)) throw invalidField('code', 'A second factor is already on');
    return this.knex.transaction(async (trx) => {
      if (!(await this.totp.accept(userId, code, 'pending', trx))) throw invalidField('code', 'The code is wrong: type the current code of the authenticator app (ask for a new secret if none was made)');
      const recoveryCodes = await this.totp.enable(userId, trx);
      await this.sessions.endAll(userId, null, trx);
      const user = await trx('users').where({ id: userId }).first<{ id: string; email: string; role: 'owner' | 'member'; email_verified: boolean } | undefined>('id', 'email', 'role', 'email_verified');
      if (!user) throw accountGone();
      const pair = await this.sessions.open({ id: user.id, email: user.email, role: user.role, verified: user.email_verified }, origin.userAgent, trx, 2);
      return { recoveryCodes, ...pair };
    });
  }
}
