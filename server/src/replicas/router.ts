import type pg from 'pg';
import { formatLsn, parseLsn } from '@basalt/contract';
import type { StatementPool } from '../db/preparedPool.js';
import { Standby, standbyName } from './standby.js';

const isRecoveryConflict = (error: unknown) => (error as { code?: unknown } | null)?.code === '40001';

/** How often the primary's position and each standby's replay are sampled (lag and health). */
const SAMPLE_MS = 1_000;
/** How long a caller's last write position is remembered by this process. */
export const CALLER_MEMORY_MS = 30_000;

export interface ReplicaOptions {
  urls: string[];
  waitMs: number;
  maxLagMs: number;
  poolSize: number;
  statementTimeoutMs: number;
  transactionPooled: boolean;
  onError?: (error: unknown) => void;
}

/** What a read must see: the schema this process planned it with, and the caller's own writes. */
export interface ReadNeeds {
  schemaLsn: bigint;
  /** The request's `Basalt-Min-Lsn`. */
  minLsn: bigint | null;
  /** The signed-in caller (their writes through this process are remembered), or null. */
  userId: string | null;
}

/**
 * Where record reads go (issue 25): to a standby that replayed everything the read must see, else, after waiting up
 * to REPLICA_WAIT_MS for one, to the primary. A standby that does not answer or is more than REPLICA_MAX_LAG_MS
 * behind is skipped until a check finds it well again. Each write's position is remembered per caller for 30 s
 * (best effort, per process); only `Basalt-Min-Lsn` guarantees read-your-writes across processes.
 */
export class Replicas {
  readonly standbys: Standby[];
  /** Reads that went to the primary because no standby had what they needed in time. */
  primaryFallbacks = 0;
  private readonly callers = new Map<string, { lsn: bigint; until: number }>();
  /** The primary's positions sampled over the last REPLICA_MAX_LAG_MS and a bit (time, lsn), oldest first. */
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private timer: NodeJS.Timeout | undefined;
  private next = 0;

  constructor(
    private readonly primary: pg.Pool,
    private readonly primaryRecords: StatementPool,
    private readonly options: ReplicaOptions,
  ) {
    const onError = options.onError ?? (() => undefined);
    this.standbys = options.urls.map((url) => new Standby(standbyName(url), url, options.poolSize, options.statementTimeoutMs, options.transactionPooled, onError));
  }

  async start(): Promise<void> {
    await this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  /** Standbys reads may go to now: answering, and not further behind than REPLICA_MAX_LAG_MS. */
  inUse(now = Date.now()): Standby[] {
    return this.standbys.filter((standby) => standby.up && standby.lagMs(now) <= this.options.maxLagMs);
  }

  /** The primary's position now (after every commit this process saw answered), as PostgreSQL prints it. */
  async position(): Promise<string> {
    const { rows } = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return rows[0]!.lsn;
  }

  /** A caller's write answered at `lsn`: their reads through this process for the next 30 s see it. */
  remember(userId: string, lsn: string): void {
    const position = parseLsn(lsn);
    if (position === null) return;
    const known = this.callers.get(userId);
    if (!known || known.lsn < position) this.callers.set(userId, { lsn: position, until: Date.now() + CALLER_MEMORY_MS });
    else known.until = Date.now() + CALLER_MEMORY_MS;
  }

  /** Where a read runs: a standby's record pool that has what it needs, or the primary's. */
  async readPool(needs: ReadNeeds): Promise<StatementPool> {
    let required = needs.schemaLsn;
    if (needs.minLsn !== null && needs.minLsn > required) required = needs.minLsn;
    const remembered = needs.userId === null ? undefined : this.callers.get(needs.userId);
    if (remembered && remembered.until > Date.now() && remembered.lsn > required) required = remembered.lsn;
    const candidates = this.inUse();
    if (candidates.length === 0) return this.fallback();
    // Round robin over the standbys that replayed enough already; else wait for the one furthest along.
    const start = this.next++ % candidates.length;
    let furthest = candidates[start]!;
    for (let i = 0; i < candidates.length; i++) {
      const standby = candidates[(start + i) % candidates.length]!;
      if (standby.replayed >= required) return this.on(standby);
      if (standby.replayed > furthest.replayed) furthest = standby;
    }
    if (this.options.waitMs > 0 && (await furthest.waitFor(required, Date.now() + this.options.waitMs))) return this.on(furthest);
    return this.fallback();
  }

  /** The primary's position sampled once, and each standby's replay: the lag and health every read decides on. */
  async sample(): Promise<void> {
    const now = Date.now();
    try {
      const lsn = parseLsn(await this.position());
      if (lsn !== null && (this.samples.length === 0 || this.samples[this.samples.length - 1]!.lsn < lsn)) this.samples.push({ at: now, lsn });
    } catch (error) {
      this.options.onError?.(error);
    }
    // Only the first sample past a standby's position matters: the oldest kept is older than the lag limit.
    const horizon = now - this.options.maxLagMs - 2 * SAMPLE_MS;
    while (this.samples.length > 1 && this.samples[1]!.at < horizon) this.samples.shift();
    await Promise.all(this.standbys.map(async (standby) => {
      await standby.check();
      const ahead = this.samples.find((sample) => sample.lsn > standby.replayed);
      standby.behindSince = ahead ? ahead.at : null;
    }));
    for (const [userId, known] of this.callers) if (known.until <= now) this.callers.delete(userId);
  }

  /** A standby's pool for one read; when the standby's connection fails mid-read, the primary answers it. */
  private on(standby: Standby): StatementPool {
    standby.served++;
    let movedToPrimary = false;
    return {
      query: (config) => {
        if (movedToPrimary) return this.primaryRecords.query(config);
        return standby.records.query(config).catch((error: unknown) => {
          // A lost connection, or a read cancelled by the standby's replay (a recovery conflict): the primary answers.
          if (!standby.failed(error) && !isRecoveryConflict(error)) throw error;
          movedToPrimary = true;
          standby.served--;
          this.primaryFallbacks++;
          return this.primaryRecords.query(config);
        });
      },
    } as StatementPool;
  }

  private fallback(): StatementPool {
    this.primaryFallbacks++;
    return this.primaryRecords;
  }

  /** Each standby as operators see it (metrics): name, in use, lag, reads served. */
  report(): Array<{ name: string; inUse: boolean; lagSeconds: number; served: number; replayed: string }> {
    const now = Date.now();
    const inUse = new Set(this.inUse(now));
    return this.standbys.map((standby) => ({ name: standby.name, inUse: inUse.has(standby), lagSeconds: standby.lagMs(now) / 1000, served: standby.served, replayed: formatLsn(standby.replayed) }));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.standbys.map((standby) => standby.close()));
  }
}
