import { createHmac, randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { RECOVERY_CODE_ALPHABET, RECOVERY_CODE_COUNT, TOTP_DIGITS, TOTP_PERIOD_SECONDS, type TotpEnrollment } from '@basalt/contract';
import { deriveKey, Sealer } from '../sealed.js';

/**
 * TOTP factors (RFC 6238 by otplib: SHA-1, 6 digits, 30 s, one step either side) and recovery codes. The secret is
 * sealed at rest; each time step is accepted once per account (`last_step` moves forward in the statement that
 * accepts a code, so two parallel uses of one code cannot both pass); recovery codes are stored as HMACs and each is
 * deleted by its use.
 */
interface FactorRow {
  secret: Buffer;
  enabled: boolean;
  last_step: string;
}

function recoveryCode(): string {
  const pick = () => RECOVERY_CODE_ALPHABET[randomInt(0, RECOVERY_CODE_ALPHABET.length)]!;
  const group = () => Array.from({ length: 5 }, pick).join('');
  return `${group()}-${group()}`;
}

/** A recovery code as typed: dashes, spaces and case do not matter. */
const normalised = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();

export class TotpFactors {
  private readonly secrets: Sealer;
  private readonly codeKey: Buffer;

  constructor(
    private readonly knex: Knex,
    jwtSecret: string,
    private readonly issuer: string,
  ) {
    this.secrets = new Sealer(jwtSecret, 'basalt totp secret');
    this.codeKey = deriveKey(jwtSecret, 'basalt recovery code');
  }

  private digest(userId: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${userId}\0${normalised(code)}`).digest('base64url');
  }

  async isEnabled(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    const row = await db('_basalt_totp').where({ user_id: userId, enabled: true }).first('user_id');
    return row !== undefined;
  }

  /** A new pending secret (replacing a pending one); undefined when a factor is already on. */
  async enroll(userId: string, label: string): Promise<TotpEnrollment | undefined> {
    const secret = generateSecret();
    const written = await this.knex.raw<{ rowCount: number }>(
      `INSERT INTO _basalt_totp (user_id, secret) VALUES (?, ?)
       ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, last_step = 0, created_at = now() WHERE NOT _basalt_totp.enabled`,
      [userId, this.secrets.seal(secret)],
    );
    if (written.rowCount === 0) return undefined;
    return { secret, uri: generateURI({ issuer: this.issuer, label, secret, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS }) };
  }

  /**
   * Whether `code` is the account's current code (pending or on, as asked), each time step once: the step is taken in
   * the statement that checks it has not been taken.
   */
  async accept(userId: string, code: string, state: 'pending' | 'enabled', db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    const row = await db('_basalt_totp').where({ user_id: userId, enabled: state === 'enabled' }).first<FactorRow | undefined>('secret', 'enabled', 'last_step');
    if (!row) return false;
    let secret: string;
    try {
      secret = this.secrets.open<string>(row.secret);
    } catch {
      return false;
    }
    const result = verifySync({ secret, token: code, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, epochTolerance: TOTP_PERIOD_SECONDS, afterTimeStep: Number(row.last_step) });
    if (!result.valid || !('timeStep' in result)) return false;
    // HOTP's result type has no time step; a TOTP verification always answers one.
    const step = result.timeStep;
    const taken = await db.raw<{ rowCount: number }>(`UPDATE _basalt_totp SET last_step = ? WHERE user_id = ? AND last_step < ?`, [step, userId, step]);
    return taken.rowCount === 1;
  }

  /** Turns the pending factor on, with a fresh set of recovery codes (returned this once). */
  async enable(userId: string, trx: Knex.Transaction): Promise<string[]> {
    await trx('_basalt_totp').where({ user_id: userId }).update({ enabled: true, enabled_at: trx.fn.now() });
    return this.replaceRecoveryCodes(userId, trx);
  }

  async replaceRecoveryCodes(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
    await db('_basalt_recovery_codes').where({ user_id: userId }).delete();
    await db('_basalt_recovery_codes').insert(codes.map((code) => ({ user_id: userId, code_hash: this.digest(userId, code) })));
    return codes;
  }

  /** Uses a recovery code up; false when it is not one of the account's (or was used). */
  async useRecoveryCode(userId: string, code: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    const used = await db('_basalt_recovery_codes').where({ user_id: userId, code_hash: this.digest(userId, code) }).delete();
    return used === 1;
  }

  /** Removes the factor and its recovery codes; false when there was none on. */
  async remove(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    await db('_basalt_recovery_codes').where({ user_id: userId }).delete();
    const removed = await db('_basalt_totp').where({ user_id: userId }).delete().returning<Array<{ enabled: boolean }>>(['enabled']);
    return removed.some((row) => row.enabled);
  }
}
