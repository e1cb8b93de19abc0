import type { Knex } from 'knex';
import { Housekeeping } from '../db/housekeeping.js';

export const SWEEP_EVERY_MS = 5 * 60_000;
/** The swept tables are vacuumed once this many of their rows went (docs/operations.md, "Housekeeping"). */
export const VACUUM_AFTER_ROWS = 10_000;

/**
 * Deletes what can never be used again: limit windows that ended, sessions whose refresh token expired (a refresh of
 * one is refused, and the sessions list leaves them out, whether or not the row is there), reset tokens past their
 * hour, email proofs, one-time codes, sign-in steps, provider states and native nonces past their time, outbox rows a week after their last change. In one statement, by one process at a time (the others skip that round); every process runs it on a timer.
 * Without it, each sign-in left a row for good, and an address-spraying attack its limit windows.
 */
export const SWEEP_SQL = `
  WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('basalt auth sweep')) AS held),
       limits AS (DELETE FROM _basalt_limits WHERE window_end < now() AND (SELECT held FROM lock) RETURNING 1),
       sessions AS (DELETE FROM sessions WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       resets AS (DELETE FROM _basalt_reset_tokens WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       proofs AS (DELETE FROM _basalt_email_proofs WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       codes AS (DELETE FROM _basalt_auth_codes WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       steps AS (DELETE FROM _basalt_mfa_tokens WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       states AS (DELETE FROM _basalt_oauth_states WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       nonces AS (DELETE FROM _basalt_oauth_nonces WHERE expires_at < now() AND (SELECT held FROM lock) RETURNING 1),
       mails AS (DELETE FROM _basalt_outbox WHERE updated_at < now() - interval '7 days' AND status <> 'queued' AND (SELECT held FROM lock) RETURNING 1)
  SELECT (SELECT count(*) FROM limits)::int AS limits, (SELECT count(*) FROM sessions)::int AS sessions,
         ((SELECT count(*) FROM resets) + (SELECT count(*) FROM proofs) + (SELECT count(*) FROM codes) + (SELECT count(*) FROM steps)
          + (SELECT count(*) FROM states) + (SELECT count(*) FROM nonces))::int AS resets,
         (SELECT count(*) FROM mails)::int AS mails`;

export interface Swept {
  limits: number;
  sessions: number;
  /** Reset tokens, email proofs and one-time codes past their time. */
  resets: number;
  /** Outbox rows 7 days after their last change (a queued mail is failed after 24 h first). */
  mails: number;
}

export class AuthSweeper extends Housekeeping {
  /** What the last run of this process deleted (tests read it). */
  last: Swept = { limits: 0, sessions: 0, resets: 0, mails: 0 };

  constructor(
    private readonly knex: Knex,
    onError?: (error: unknown) => void,
  ) {
    super(['_basalt_limits', 'sessions', '_basalt_reset_tokens', '_basalt_email_proofs', '_basalt_auth_codes', '_basalt_outbox', '_basalt_mfa_tokens', '_basalt_oauth_states', '_basalt_oauth_nonces'], VACUUM_AFTER_ROWS, (sql) => knex.raw(sql), onError);
  }

  protected async clean(): Promise<number> {
    const result = await this.knex.raw<{ rows: Swept[] }>(SWEEP_SQL);
    this.last = result.rows[0] ?? { limits: 0, sessions: 0, resets: 0, mails: 0 };
    return this.last.limits + this.last.sessions + this.last.resets + this.last.mails;
  }

  override start(intervalMs = SWEEP_EVERY_MS): void {
    super.start(intervalMs);
  }
}
