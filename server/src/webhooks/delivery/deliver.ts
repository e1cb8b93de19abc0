import type { Knex } from 'knex';
import { GIVE_UP_AFTER_MS, retryDelayMs, signedHeaders } from './signing.js';
import type { AttemptResult, Sender } from './send.js';
import type { WebhookRow, WebhookStore } from '../store.js';
import { Pace } from './pace.js';
import { QueueLoop } from '../../db/queueLoop.js';

/**
 * Delivers the queue (API.md, Webhooks): any process leases due deliveries (`FOR UPDATE SKIP LOCKED`, a lease of
 * LEASE_SECONDS, so one killed mid-delivery leaves them to another when it ends: at least once, the same `webhook-id`).
 * A delivery is due when its time came and no earlier delivery of the same row to the same webhook is pending or
 * failed (per-row order); a process sends a bounded number of a webhook's deliveries at once (a round leases at most
 * IN_FLIGHT_PER_WEBHOOK, only for webhooks below that many in flight). One statement leases a round. Outcomes are written in batches: a 2xx is delivered; anything else is failed and tried again on the
 * schedule (signing.ts), or dead 24 h after the delivery was made. Deliveries of a disabled webhook wait.
 */

export const LEASE_SECONDS = 25;
/** A webhook's deliveries one process sends at once (a round leases at most this many, for webhooks below it). */
export const IN_FLIGHT_PER_WEBHOOK = 32;
const POLL_MS = 200;
/** Outcomes finishing within this long of each other are written together. */
const FLUSH_AFTER_MS = 5;
const CLEAN_EVERY_MS = 10 * 60_000;

export interface DeliveryCounters {
  delivered(): void;
  failed(): void;
  dead(): void;
}

interface Leased {
  id: string;
  webhook_id: string;
  body: string;
  attempts: number;
  created_at: Date | string;
}

/** Where a webhook's deliveries of one lease go, and the secrets that sign them (opened once per lease). */
interface Target {
  url: string;
  headers: Record<string, string>;
  secrets: string[] | null;
}

interface Outcome {
  id: string;
  /** The attempt it is the outcome of: one a manual retry or another lease overtook is not written. */
  attempts: number;
  status: 'delivered' | 'failed' | 'dead';
  last_status: number | null;
  last_error: string | null;
  latency_ms: number;
  retry_seconds: number | null;
}

export class Deliverer {
  /** No webhook is enabled (the enqueuer's last round saw none): nothing can be leased, polls skip the database. */
  idle = false;
  private readonly loop: QueueLoop;
  private cleaner: NodeJS.Timeout | undefined;
  private readonly sending = new Set<Promise<void>>();
  /** This process's deliveries in flight, per webhook. */
  private readonly inFlight = new Map<string, number>();
  private outcomes: Outcome[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly store: WebhookStore,
    private readonly sender: Sender,
    private readonly counters: DeliveryCounters,
    private readonly onError?: (error: unknown) => void,
    /** Gives way to requests while the process is busy (pace.ts). */
    private readonly pace: Pace = new Pace(),
  ) {
    this.loop = new QueueLoop(() => this.round(), { pollMs: POLL_MS, ready: () => !this.idle && this.pace.wait() === 0, onError });
  }

  start(): void {
    this.loop.start();
    this.cleaner = setInterval(() => void this.clean().catch((error: unknown) => this.onError?.(error)), CLEAN_EVERY_MS);
    this.cleaner.unref();
  }

  /** A round now (or right after the running one); while the process is busy, when the pace allows (the poll comes back). */
  kick(): void {
    this.loop.kick();
  }

  /** One round: leases and starts sending; anything leased means more may be due. */
  private async round(): Promise<boolean> {
    const leased = await this.lease();
    this.sendAll(leased);
    return leased.length > 0;
  }

  private async lease(): Promise<Array<{ delivery: Leased; webhook: Target }>> {
    // Webhooks with their share in flight in this process wait for the next round.
    const full = [...this.inFlight].filter(([, n]) => n >= IN_FLIGHT_PER_WEBHOOK).map(([id]) => id);
    // The queue grows faster than its statistics: a planner that thinks few deliveries are due gathers every due one
    // and sorts them (47 ms on 14,000 due, measured) where the index walked in order stops at the first ones (1 ms).
    const result = await this.knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off`);
      return trx.raw<{ rows: Leased[] }>(
        `UPDATE _basalt_webhook_deliveries u SET lease_until = now() + make_interval(secs => ?), attempts = u.attempts + 1, updated_at = now()
           FROM (SELECT d.id FROM _basalt_webhook_deliveries d
                  WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
                    AND NOT (d.webhook_id = ANY(?))
                    AND (d.row_key IS NULL OR NOT EXISTS (
                          SELECT 1 FROM _basalt_webhook_deliveries e
                           WHERE e.webhook_id = d.webhook_id AND e.table_name = d.table_name AND e.row_key = d.row_key
                             AND e.status IN ('pending', 'failed') AND e.seq < d.seq))
                    AND EXISTS (SELECT 1 FROM _basalt_webhooks w WHERE w.id = d.webhook_id AND w.enabled)
                  ORDER BY d.next_attempt_at, d.seq LIMIT ? FOR UPDATE OF d SKIP LOCKED) due
          WHERE u.id = due.id
          RETURNING u.id, u.webhook_id, u.body, u.attempts, u.created_at`,
        [LEASE_SECONDS, full, IN_FLIGHT_PER_WEBHOOK],
      );
    });
    const leased = result.rows;
    // Nothing due for any webhook: a catch-up after giving way is over.
    if (leased.length === 0 && full.length === 0) this.pace.drained();
    for (const delivery of leased) this.inFlight.set(delivery.webhook_id, (this.inFlight.get(delivery.webhook_id) ?? 0) + 1);
    if (leased.length === 0) return [];
    const webhooks = new Map<string, Target>();
    for (const id of new Set(leased.map((delivery) => delivery.webhook_id))) {
      let row: WebhookRow;
      try {
        row = await this.store.get(id);
      } catch {
        // Deleted meanwhile: its deliveries went with it.
        continue;
      }
      let secrets: string[] | null = null;
      try {
        secrets = this.store.secretsOf(row);
      } catch {
        // Sealed under another JWT_SECRET: every attempt fails until the secret is rotated.
      }
      webhooks.set(id, { url: row.url, headers: row.headers, secrets });
    }
    return leased.filter((delivery) => webhooks.has(delivery.webhook_id)).map((delivery) => ({ delivery, webhook: webhooks.get(delivery.webhook_id)! }));
  }

  /**
   * Starts every leased delivery without waiting for it (a slow receiver holds only its own slots); each outcome is
   * written with the others that finish within a few milliseconds, and the next round follows.
   */
  private sendAll(leased: Array<{ delivery: Leased; webhook: Target }>): void {
    for (const { delivery, webhook } of leased) {
      const sending: Promise<void> = this.sendOne(delivery, webhook)
        .then(() => this.scheduleFlush())
        .finally(() => {
          this.sending.delete(sending);
          const n = (this.inFlight.get(delivery.webhook_id) ?? 1) - 1;
          if (n > 0) this.inFlight.set(delivery.webhook_id, n);
          else this.inFlight.delete(delivery.webhook_id);
        });
      this.sending.add(sending);
    }
  }

  private flushTimer: NodeJS.Timeout | undefined;

  private scheduleFlush(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush().then(() => this.kick());
    }, FLUSH_AFTER_MS);
  }

  private async sendOne(delivery: Leased, webhook: Target): Promise<void> {
    let result: AttemptResult;
    if (!webhook.secrets) {
      result = { status: null, ok: false, error: 'the secret cannot be read (was JWT_SECRET changed? rotate the secret)', latencyMs: 0 };
    } else {
      try {
        const headers = { ...webhook.headers, ...signedHeaders(webhook.secrets, delivery.id, delivery.body) };
        result = await this.sender.send(webhook.url, headers, delivery.body);
      } catch (error) {
        result = { status: null, ok: false, error: (error as Error).message.slice(0, 200), latencyMs: 0 };
      }
    }
    if (result.ok) {
      this.counters.delivered();
      this.outcomes.push({ id: delivery.id, attempts: delivery.attempts, status: 'delivered', last_status: result.status, last_error: null, latency_ms: result.latencyMs, retry_seconds: null });
      return;
    }
    const dead = Date.now() - new Date(delivery.created_at).getTime() >= GIVE_UP_AFTER_MS;
    if (dead) this.counters.dead();
    else this.counters.failed();
    this.outcomes.push({
      id: delivery.id,
      attempts: delivery.attempts,
      status: dead ? 'dead' : 'failed',
      last_status: result.status,
      last_error: result.error,
      latency_ms: result.latencyMs,
      retry_seconds: dead ? null : retryDelayMs(delivery.attempts) / 1000,
    });
  }

  /** Writes the outcomes gathered so far in one statement. */
  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.outcomes.length === 0) return;
    const outcomes = this.outcomes;
    this.outcomes = [];
    this.flushing = this.knex
      .raw(
        `UPDATE _basalt_webhook_deliveries d
            SET status = o.status, last_status = o.last_status, last_error = o.last_error, latency_ms = o.latency_ms, lease_until = NULL,
                delivered_at = CASE WHEN o.status = 'delivered' THEN now() ELSE d.delivered_at END,
                next_attempt_at = CASE WHEN o.retry_seconds IS NULL THEN d.next_attempt_at ELSE now() + make_interval(secs => o.retry_seconds) END,
                updated_at = now()
           FROM jsonb_to_recordset(?::jsonb) AS o(id text, attempts int, status text, last_status int, last_error text, latency_ms int, retry_seconds double precision)
          -- Still this attempt's: a manual retry (which drops the lease) or a later lease (another attempt) wins.
          WHERE d.id = o.id AND d.attempts = o.attempts AND d.lease_until IS NOT NULL`,
        [JSON.stringify(outcomes)],
      )
      .then(() => undefined)
      .catch((error: unknown) => {
        // Not written: the leases end and the deliveries are tried again (at least once).
        this.onError?.(error);
      })
      .finally(() => (this.flushing = null));
    await this.flushing;
  }

  /** Delivered deliveries go after 7 days, dead ones after 30 (API.md). */
  async clean(): Promise<number> {
    const result = await this.knex.raw<{ rowCount: number }>(
      `DELETE FROM _basalt_webhook_deliveries
        WHERE (status = 'delivered' AND updated_at < now() - interval '7 days') OR (status = 'dead' AND updated_at < now() - interval '30 days')`,
    );
    return result.rowCount ?? 0;
  }

  async stop(): Promise<void> {
    clearInterval(this.cleaner);
    await this.loop.stop();
    await Promise.all([...this.sending]);
    clearTimeout(this.flushTimer);
    await this.flush();
    await this.flushing;
  }
}
