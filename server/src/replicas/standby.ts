import type pg from 'pg';
import { parseLsn } from '@basalt/contract';
import { createRecordPool } from '../db/recordPool.js';
import { isConnectionError, MAX_PREPARED_PER_CONNECTION, PreparedPool } from '../db/preparedPool.js';

/** How often a standby is asked how far it replayed while reads wait for it (ms). */
const POLL_MS = 2;
/** How long a health check or a connection attempt to a standby may take before the standby counts as down. */
const CHECK_TIMEOUT_MS = 1_000;

const REPLAYED = { name: 'basalt_replayed', text: 'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS standby' };

/**
 * One hot standby: its record pool, how far it is known to have replayed the primary's log, whether it answers, and
 * how far behind it is. What it replayed is learned from statements of its own that run before a read (never from
 * the read's own statement: its snapshot is older than any function call in it), so a read sent after it sees at
 * least that much.
 */
export class Standby {
  readonly pool: pg.Pool;
  readonly records: PreparedPool;
  /** A log position this standby is known to have replayed (it only grows). */
  replayed = 0n;
  /** Answered its last check and is in recovery. */
  up = false;
  /** When the primary's sampled position first went past what this standby replayed, or null when it has caught up. */
  behindSince: number | null = null;
  /** Reads it served since start. */
  served = 0;
  private readonly waiters: Array<{ lsn: bigint; deadline: number; resolve: (reached: boolean) => void }> = [];
  private polling = false;

  constructor(
    /** host:port/database, no credentials: how logs and metrics name it. */
    readonly name: string,
    url: string,
    poolSize: number,
    statementTimeoutMs: number,
    transactionPooled: boolean,
    onError: (error: unknown) => void,
  ) {
    this.pool = createRecordPool(url, { max: poolSize, connectionTimeoutMs: CHECK_TIMEOUT_MS, statementTimeoutMs, transactionPooled });
    this.pool.on('error', (error) => {
      this.up = false;
      onError(error);
    });
    this.records = new PreparedPool(this.pool, MAX_PREPARED_PER_CONNECTION, transactionPooled ? statementTimeoutMs : null);
  }

  /** How far behind the primary it is now (ms): 0 when it replayed the primary's last sampled position. */
  lagMs(now = Date.now()): number {
    return this.behindSince === null ? 0 : now - this.behindSince;
  }

  /** Asks the standby how far it replayed; a failure marks it down until a check succeeds. */
  async check(): Promise<bigint | null> {
    try {
      const { rows } = await this.records.query<{ lsn: string | null; standby: boolean }>(REPLAYED);
      const lsn = rows[0]?.lsn ? parseLsn(rows[0].lsn) : null;
      // A server out of recovery (promoted, or a primary named by mistake) is not a standby to route to.
      this.up = rows[0]?.standby === true && lsn !== null;
      if (lsn !== null && lsn > this.replayed) this.replayed = lsn;
      return lsn;
    } catch {
      this.up = false;
      return null;
    }
  }

  /** A statement failed on this standby: when the connection, not the statement, failed, it counts as down. */
  failed(error: unknown): boolean {
    if (!isConnectionError(error)) return false;
    this.up = false;
    return true;
  }

  /** Resolves true once the standby replayed `lsn`, false when it did not by `deadline` (or went down). */
  waitFor(lsn: bigint, deadline: number): Promise<boolean> {
    if (this.replayed >= lsn) return Promise.resolve(true);
    if (Date.now() >= deadline) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ lsn, deadline, resolve });
      if (!this.polling) void this.poll();
    });
  }

  /** One poll loop per standby however many reads wait: each round answers every waiter it can. */
  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiters.length > 0) {
        await this.check();
        const now = Date.now();
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          const waiter = this.waiters[i]!;
          const reached = this.up && this.replayed >= waiter.lsn;
          if (reached || !this.up || now >= waiter.deadline) {
            this.waiters.splice(i, 1);
            waiter.resolve(reached);
          }
        }
        if (this.waiters.length > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } finally {
      this.polling = false;
    }
  }

  close(): Promise<void> {
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
    return this.pool.end();
  }
}

/** How a standby is named where operators read it: host, port and database of its URL, never its credentials. */
export function standbyName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'standby';
  }
}
