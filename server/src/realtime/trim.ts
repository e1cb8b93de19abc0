import type pg from 'pg';
import { Housekeeping } from '../db/housekeeping.js';
import { ChangeLog } from './log.js';

/** Changes are kept at least this long for resumes (API.md says 10 minutes). */
export const RETENTION_MS = 15 * 60_000;
export const TRIM_EVERY_MS = 60_000;
/**
 * The log's deleted rows are vacuumed away once this many went (docs/realtime.md): without it, where autovacuum is
 * off, the log would keep every change ever written in its files. At W1's thousand writes a second that is a VACUUM
 * every few minutes, each over the pages written since the one before.
 */
export const VACUUM_AFTER_ROWS = 20_000;

/**
 * Deletes changes past the retention every minute, in every process whether or not it has subscribers (a table stays
 * captured for a while after its last subscriber left, and another process's subscribers fill the log too); one
 * process at a time does it (ChangeLog.trim).
 */
export class ChangeTrimmer extends Housekeeping {
  private readonly log: ChangeLog;

  constructor(
    pool: pg.Pool,
    onError?: (error: unknown) => void,
    private readonly retentionMs = RETENTION_MS,
  ) {
    super('_basalt_changes', VACUUM_AFTER_ROWS, (sql) => pool.query(sql), onError);
    this.log = new ChangeLog(pool);
  }

  protected clean(): Promise<number> {
    return this.log.trim(this.retentionMs);
  }

  override start(intervalMs = TRIM_EVERY_MS): void {
    super.start(intervalMs);
  }
}
