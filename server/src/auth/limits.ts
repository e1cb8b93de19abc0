import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { LimitName, Limits } from '@basalt/contract';
import { rateLimited } from '../errors.js';

/**
 * Abuse limits every process and machine shares, kept in Postgres (`_basalt_limits`, no Redis): fixed windows that
 * start at a counter's first event. A counter is stored under a digest of its name and subject (an email and an
 * address), so the table holds neither. Own code rather than rate-limiter-flexible's RateLimiterPostgres: a sign-in
 * must check two counters in one round trip before hashing and count both in one statement after a failure, which
 * that library does one key per call; and the table is made by our migrations, not created at run time.
 */

export interface Counter {
  name: LimitName;
  /** What is counted: a normalised email and an address, an address, a session id. */
  subject: string;
}

interface Row {
  key: string;
  hits: number;
  retry: number;
}

/** Counters over their limit a process remembers (oldest forgotten first). */
const BLOCKED_MEMORY = 10_000;

/** What an attempt does after `reserve`: count its failure, or clear one counter and give the other reservations back. */
export interface Reservation {
  failed(): Promise<void>;
  succeeded(cleared: Counter): Promise<void>;
}

const NO_RESERVATION: Reservation = { failed: async () => undefined, succeeded: async () => undefined };

export class AbuseLimiter {
  constructor(
    private readonly knex: Knex,
    private readonly limits: Limits | false,
  ) {}

  private keyOf(counter: Counter): string {
    return createHash('sha256').update(`${counter.name}\0${counter.subject}`).digest('base64url');
  }

  /** The counter over its limit first (the longest wait), as a 429; none: undefined. */
  private refusal(counters: Counter[], rows: Row[], over: (hits: number, max: number) => boolean) {
    if (this.limits === false) return undefined;
    let worst: { name: LimitName; retry: number } | undefined;
    for (const counter of counters) {
      const key = this.keyOf(counter);
      const row = rows.find((candidate) => candidate.key === key);
      if (!row || !over(row.hits, this.limits[counter.name].max)) continue;
      const retry = Math.max(1, row.retry);
      this.remember(key, counter.name, retry);
      if (!worst || retry > worst.retry) worst = { name: counter.name, retry };
    }
    return worst ? rateLimited(worst.name, worst.retry) : undefined;
  }

  /**
   * Counters this process saw over their limit, until their window ends: a fixed window only relaxes when it ends, so
   * later attempts are refused without a round trip (a flood of guesses costs the database nothing).
   */
  private readonly blocked = new Map<string, { name: LimitName; until: number }>();

  private remember(key: string, name: LimitName, retrySeconds: number): void {
    if (this.blocked.size >= BLOCKED_MEMORY) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(key, { name, until: Date.now() + retrySeconds * 1000 });
  }

  /** A refusal known in this process already, without asking the database. */
  private knownRefusal(counters: Counter[]) {
    const now = Date.now();
    for (const counter of counters) {
      const key = this.keyOf(counter);
      const known = this.blocked.get(key);
      if (!known) continue;
      if (known.until > now) return rateLimited(known.name, Math.max(1, Math.ceil((known.until - now) / 1000)));
      this.blocked.delete(key);
    }
    return undefined;
  }

  /**
   * Before an attempt that may fail (a sign-in): refuses (429) when a counter is over its limit, in one statement.
   * A counter that already holds failures counts this attempt in advance (the same statement adds one), so a burst of
   * parallel guesses is refused at the limit exactly, not once the guesses in flight have been hashed; a counter with
   * no failures yet reserves nothing, so parallel successful sign-ins (a load test, a busy NAT) never add up.
   * `settle` then counts a failure on the counters not yet counted, or gives the reservations back on success.
   */
  async reserve(counters: Counter[]): Promise<Reservation> {
    if (this.limits === false || counters.length === 0) return NO_RESERVATION;
    const known = this.knownRefusal(counters);
    if (known) throw known;
    const keys = counters.map((counter) => this.keyOf(counter)).sort();
    const result = await this.knex.raw<{ rows: Row[] }>(
      // Rows locked in key order, as `hit` writes them: two attempts on the same counters never deadlock.
      `WITH locked AS MATERIALIZED (
         SELECT key FROM _basalt_limits WHERE key = ANY(?::text[]) AND window_end > now() ORDER BY key FOR UPDATE
       )
       UPDATE _basalt_limits l SET hits = l.hits + 1 FROM locked WHERE l.key = locked.key
       RETURNING l.key, l.hits, ceil(extract(epoch FROM l.window_end - now()))::int AS retry`,
      [keys],
    );
    const refusal = this.refusal(counters, result.rows, (hits, max) => hits > max);
    if (refusal) throw refusal;
    const reserved = new Set(result.rows.map((row) => row.key));
    return {
      failed: async () => {
        await this.hit(counters.filter((counter) => !reserved.has(this.keyOf(counter))));
      },
      succeeded: async (cleared: Counter) => {
        // A counter reserve did not find is absent or past its window (a later hit starts it afresh): nothing to clear.
        if (reserved.has(this.keyOf(cleared))) await this.clear(cleared);
        const giveBack = counters.filter((counter) => counter !== cleared && reserved.has(this.keyOf(counter)));
        if (giveBack.length > 0) {
          await this.knex.raw(
            `WITH locked AS MATERIALIZED (SELECT key FROM _basalt_limits WHERE key = ANY(?::text[]) ORDER BY key FOR UPDATE)
             UPDATE _basalt_limits l SET hits = greatest(l.hits - 1, 0) FROM locked WHERE l.key = locked.key`,
            [giveBack.map((counter) => this.keyOf(counter)).sort()],
          );
        }
      },
    };
  }

  /** Counts one event on each counter, in one statement; answers the rows as they now are. */
  async hit(counters: Counter[]): Promise<Row[]> {
    if (this.limits === false || counters.length === 0) return [];
    const limits = this.limits;
    // Keys in one order: two statements upserting the same keys never wait on each other in a cycle.
    const entries = counters.map((counter) => ({ key: this.keyOf(counter), window: limits[counter.name].windowSeconds })).sort((a, b) => (a.key < b.key ? -1 : 1));
    const result = await this.knex.raw<{ rows: Row[] }>(
      `INSERT INTO _basalt_limits AS l (key, hits, window_end)
       SELECT key, 1, now() + make_interval(secs => seconds) FROM unnest(?::text[], ?::int[]) AS t(key, seconds) ORDER BY key
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN l.window_end > now() THEN l.hits + 1 ELSE 1 END,
         window_end = CASE WHEN l.window_end > now() THEN l.window_end ELSE excluded.window_end END
       RETURNING key, hits, ceil(extract(epoch FROM window_end - now()))::int AS retry`,
      [entries.map((entry) => entry.key), entries.map((entry) => entry.window)],
    );
    return result.rows;
  }

  /** Counts one event and refuses (429) the one that went over the limit. */
  async consume(counter: Counter): Promise<void> {
    const known = this.knownRefusal([counter]);
    if (known) throw known;
    const rows = await this.hit([counter]);
    const refusal = this.refusal([counter], rows, (hits, max) => hits > max);
    if (refusal) throw refusal;
  }

  /** Counts one event on each counter in one statement, and refuses (429) when any went over its limit. */
  async consumeAll(counters: Counter[]): Promise<void> {
    const known = this.knownRefusal(counters);
    if (known) throw known;
    const rows = await this.hit(counters);
    const refusal = this.refusal(counters, rows, (hits, max) => hits > max);
    if (refusal) throw refusal;
  }

  /** Forgets a counter (a successful sign-in clears its account-and-address failures). */
  async clear(counter: Counter): Promise<void> {
    if (this.limits === false) return;
    await this.knex.raw('DELETE FROM _basalt_limits WHERE key = ?', [this.keyOf(counter)]);
  }
}

/** The counters of a sign-in attempt: this account from this address, and this address. */
export function signinCounters(email: string, address: string): Counter[] {
  return [
    { name: 'signinFailuresPerAccountAndAddress', subject: `${email}\0${address}` },
    { name: 'signinFailuresPerAddress', subject: address },
  ];
}
