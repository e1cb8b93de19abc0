import type pg from 'pg';
import type { SchemaCache } from '../db/schemaCache.js';
import { ApiError, tokenExpired } from '../errors.js';
import type { Surface } from '../policies/access.js';
import type { Caller } from '../policies/caller.js';
import type { FilterSet } from './changeRows.js';
import { FanOut } from './fanout.js';
import { ChangeLog, isAfter, type Place } from './log.js';

/**
 * One per process: the subscribers, and the log read once for all of them (every 50 ms while it has any); each batch
 * goes to the fan-out (realtime/fanout.ts), which delivers each change to the subscribers its policy, scope and
 * filters let see it.
 */

export const POLL_MS = 50;
const HEARTBEAT_MS = 25_000;
/** How often the subscribed tables' capture is kept on: well inside its keep time (tracking/capture.ts). */
const KEEP_CAPTURED_MS = 60_000;

/** Where a subscriber's events go (realtime/stream.ts); `send` is false once it overflowed and was closed. */
export interface EventSink {
  send(text: string): boolean;
  end(error?: ApiError): void;
}

export interface Subscription {
  caller: Caller;
  /** Who counts against the per-caller limit: the user, or anon by address. */
  identity: string;
  surface: Surface;
  tables: readonly string[];
  /** Filters of a one-table subscription (a list's conditions); none for several tables. */
  filter: FilterSet | null;
  /** The columns each record carries; null: all. */
  columns: readonly string[] | null;
  /** Resume after this place (Last-Event-ID); null: from `start`. */
  after: Place | null;
  /**
   * Where the stream begins when it resumes from nothing (or was reset): the oldest transaction still running when
   * its 200 went out (`Hub.position`). Every change of that transaction or a later one is delivered, however late
   * the hub's next read comes. Absent: from the hub's next read.
   */
  start?: bigint;
  sink: EventSink;
  /** When the credentials stop being valid (ms); the stream then ends with the 401. */
  expiresAt?: number;
}

export interface HubDeps {
  pool: pg.Pool;
  /**
   * REALTIME_FROM_REPLICA: the pool of the standby the log may be read from now (answering, not too far behind), or
   * null. The hub keeps one source while it has subscribers: a standby until it fails, then the primary.
   */
  changeSource?(): pg.Pool | null;
  cache: SchemaCache;
  /** A key caller checked again after the schema version moved (a revocation moves it). */
  confirmCaller(caller: Caller): Promise<Caller>;
  /** Keeps the subscribed tables captured (tracking/capture.ts); called every minute while there are subscribers. */
  keepCaptured(tables: readonly string[]): Promise<void>;
  /** The transaction from which these tables have been captured without a break: a resume from before it is a reset. */
  capturedSince(tables: readonly string[]): Promise<bigint>;
  onError?: (error: unknown) => void;
}


export class Hub {
  private readonly log: ChangeLog;
  private readonly live = new Set<Subscription>();
  private readonly joining: Subscription[] = [];
  private horizon: bigint | null = null;
  /** The last place delivered, so a read that restarts inside a transaction skips what went out. */
  private last: Place | null = null;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private keeper: NodeJS.Timeout | undefined;
  private checkedVersion = -1;
  private closed = false;
  private readonly expiry = new Map<Subscription, NodeJS.Timeout>();
  /** Per subscriber, the place its live events must come after (what it caught up to, or was resumed from). */
  private readonly floors = new WeakMap<Subscription, Place>();
  private readonly ended = new WeakSet<Subscription>();
  private readonly fanOut: FanOut;

  /** The standby this hub reads the log from, or null: the primary. */
  private standby: pg.Pool | null = null;

  constructor(private readonly deps: HubDeps) {
    this.log = new ChangeLog(() => this.source);
    this.fanOut = new FanOut({ cache: deps.cache, onError: deps.onError, source: () => this.source }, (subscriber, error) => this.drop(subscriber, error), (subscriber) => this.floors.get(subscriber));
  }

  /** Where the log and its rows are read: one source per stretch of subscribers, its horizon never moving back. */
  private get source(): pg.Pool {
    return this.standby ?? this.deps.pool;
  }

  /** Changes that could not be delivered since start (their table's subscribers got a reset instead): a metric. */
  get undeliverable(): number {
    return this.fanOut.undeliverable;
  }

  /** Shut down: new streams are refused (503) so their clients retry on another process. */
  get isClosed(): boolean {
    return this.closed;
  }

  get size(): number {
    return this.live.size + this.joining.filter((subscription) => !this.live.has(subscription)).length;
  }

  /** Every open subscription, the ones still catching up included (each once). */
  subscribers(): Iterable<Subscription> {
    return [...this.live, ...this.joining.filter((subscription) => !this.live.has(subscription))];
  }

  add(subscription: Subscription): void {
    if (this.closed) {
      subscription.sink.end(new ApiError('UNAVAILABLE', 'The server is shutting down; reconnect'));
      return;
    }
    this.joining.push(subscription);
    if (subscription.expiresAt !== undefined) {
      const timer = setTimeout(() => this.drop(subscription, tokenExpired()), Math.max(0, subscription.expiresAt - Date.now()));
      timer.unref();
      this.expiry.set(subscription, timer);
    }
    this.schedule(0);
    this.heartbeat ??= setInterval(() => {
      for (const subscriber of this.subscribers()) if (!subscriber.sink.send(': ping\n\n')) this.drop(subscriber);
    }, HEARTBEAT_MS).unref();
    this.keeper ??= setInterval(() => void this.deps.keepCaptured([...new Set([...this.subscribers()].flatMap((subscriber) => subscriber.tables))]), KEEP_CAPTURED_MS).unref();
  }

  /** Ends a subscription (with an error event when given) and forgets it. */
  drop(subscription: Subscription, error?: ApiError): void {
    if (this.ended.has(subscription)) return;
    this.ended.add(subscription);
    this.live.delete(subscription);
    const at = this.joining.indexOf(subscription);
    if (at >= 0) this.joining.splice(at, 1);
    clearTimeout(this.expiry.get(subscription));
    this.expiry.delete(subscription);
    subscription.sink.end(error);
    if (this.size === 0) this.idle();
  }

  /** Graceful shutdown: every stream ends now, so its client resumes on another process. */
  close(): void {
    this.closed = true;
    for (const subscriber of [...this.subscribers()]) this.drop(subscriber);
    this.idle();
  }

  private idle(): void {
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    clearInterval(this.keeper);
    this.timer = undefined;
    this.heartbeat = undefined;
    this.keeper = undefined;
    // With nobody listening nothing is read; the next subscriber starts from then.
    this.horizon = null;
    this.last = null;
    this.standby = null;
  }

  private schedule(delay: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.tick()
        .catch((error: unknown) => {
          // A standby that fails is left for the primary, which holds every change the standby had replayed.
          this.standby = null;
          this.deps.onError?.(error);
        })
        .finally(() => {
          this.timer = undefined;
          if (this.size > 0) this.schedule(POLL_MS);
        });
    }, delay);
  }

  private async tick(): Promise<void> {
    if (this.horizon === null) this.standby = this.deps.changeSource?.() ?? null;
    // From a standby to the primary, never back while it has subscribers: a catch-up read on a standby below a
    // horizon taken on the primary could miss transactions the standby has not replayed yet.
    else if (this.standby && this.deps.changeSource?.() !== this.standby) this.standby = null;
    this.horizon ??= await this.log.horizon();
    // A schema change announced (a policy, a revoked key) is applied before anything is delivered, as requests wait.
    await this.deps.cache.whenFresh();
    if (this.deps.cache.version !== this.checkedVersion) await this.recheck();
    // A subscription stays among the joining until it is live: while it catches up it still counts against the
    // per-caller limit, gets its heartbeat and is re-checked after a policy change.
    while (this.joining.length > 0) {
      const next = this.joining[0]!;
      await this.join(next);
      const at = this.joining.indexOf(next);
      if (at >= 0) this.joining.splice(at, 1);
    }
    if (this.live.size === 0) return;
    const tables = [...new Set([...this.live].flatMap((subscriber) => subscriber.tables))];
    const { changes, next } = await this.log.read(this.horizon, tables);
    const fresh = this.last ? changes.filter((change) => isAfter(change, this.last!)) : changes;
    await this.fanOut.deliver(fresh, [...this.live]);
    if (changes.length > 0) this.last = changes[changes.length - 1]!;
    // A source behind the last one read (the primary's horizon, then a standby's) never moves the hub back.
    if (next > this.horizon) this.horizon = next;
  }

  /**
   * A subscriber first gets what it missed, from its resume point (or its start) up to where the hub reads; then it
   * is one of the live ones, and never gets a change from before that point (the hub may be behind it).
   */
  private async join(subscription: Subscription): Promise<void> {
    let from: Place | null = subscription.start === undefined ? null : { xid: subscription.start, id: 0, n: 0 };
    if (subscription.after) {
      // Changes deleted past the retention, or not logged while nobody streamed the table: start over.
      const gone = (await this.log.trimmedPast(subscription.after)) || subscription.after.xid < (await this.deps.capturedSince(subscription.tables));
      if (gone) subscription.sink.send(`event: reset\ndata: ${JSON.stringify({ reason: 'The changes after this event id are no longer kept: list again, then subscribe' })}\n\n`);
      else from = subscription.after;
    }
    if (from) {
      this.floors.set(subscription, from);
      for (let after = from; ; ) {
        const missed = await this.log.since(after, this.horizon!, subscription.tables);
        await this.fanOut.deliver(missed, [subscription]);
        if (missed.length === 0 || this.ended.has(subscription)) break;
        after = missed[missed.length - 1]!;
        this.floors.set(subscription, after);
      }
    }
    if (!this.ended.has(subscription)) this.live.add(subscription);
  }

  /** Where a stream opened now begins: the oldest transaction still running (see `Subscription.start`). */
  position(): Promise<bigint> {
    return this.log.horizon();
  }

  /** After a schema change: policies and key revocations apply to open streams at once. */
  private async recheck(): Promise<void> {
    this.checkedVersion = this.deps.cache.version;
    for (const subscriber of [...this.subscribers()]) {
      try {
        subscriber.caller = await this.deps.confirmCaller(subscriber.caller);
        for (const name of subscriber.tables) this.fanOut.access(subscriber, this.deps.cache.served(name), name);
      } catch (error) {
        this.drop(subscriber, error instanceof ApiError ? error : undefined);
      }
    }
  }
}
