import type { Knex } from 'knex';
import type pg from 'pg';
import type { SchemaCache } from '../db/schemaCache.js';
import type { WebhookConfig } from '../config.js';
import { Deliverer } from './delivery/deliver.js';
import { Deliveries } from './deliveries.js';
import { Enqueuer, ENQUEUE_EVERY_MS, IDLE_EVERY_MS } from './delivery/enqueue.js';
import { Pace } from './delivery/pace.js';
import { Sender } from './delivery/send.js';
import { WebhookService } from './service.js';
import { WebhookStore } from './store.js';

/** Every minute the enabled webhooks' tables are held captured again (tables made later under "*", psql switching). */
const HOLD_EVERY_MS = 60_000;

export interface WebhookCounts {
  delivered: number;
  failed: number;
  dead: number;
}

/** The webhooks part of one process (issue 29): the owner's service, the enqueuer and the deliverer in the background. */
export interface Webhooks {
  service: WebhookService;
  enqueuer: Enqueuer;
  deliverer: Deliverer;
  counts: WebhookCounts;
  /** The queue as the database holds it, for /metrics. */
  backlog(): Promise<{ queued: number; oldestSeconds: number; logBehindSeconds: number }>;
  /** One enqueue round now (tests, the bench). */
  enqueue(): Promise<number>;
  close(): Promise<void>;
}

export function createWebhooks(deps: {
  knex: Knex;
  /** Webhooks' own connections (reading the log and the rows back), so the record API's pool never waits on them. */
  pool: pg.Pool;
  cache: SchemaCache;
  /** Whether the process is busy with requests (ops/load.ts): then webhooks give way (delivery/pace.ts). */
  busy?: () => boolean;
  jwtSecret: string;
  config: WebhookConfig;
  captureProblem(table: string): string | undefined;
  holdCapture(tables: readonly string[] | '*'): Promise<void>;
  onError?: (error: unknown) => void;
}): Webhooks {
  const { knex, pool, cache, onError } = deps;
  const store = new WebhookStore(knex, deps.jwtSecret);
  const deliveries = new Deliveries(knex, pool, cache);
  const service = new WebhookService(store, deliveries, { cache, captureProblem: deps.captureProblem, allowPrivateTargets: deps.config.allowPrivateTargets }, deps.holdCapture);
  const counts: WebhookCounts = { delivered: 0, failed: 0, dead: 0 };
  const sender = new Sender(deps.config.allowPrivateTargets);
  const pace = new Pace(deps.busy);
  const deliverer = new Deliverer(knex, store, sender, { delivered: () => counts.delivered++, failed: () => counts.failed++, dead: () => counts.dead++ }, onError, pace);
  const enqueuer = new Enqueuer(knex, pool, cache, (trx) => store.active(trx), onError);
  let enqueuing: Promise<number> | null = null;
  let active = true;
  let more = false;
  let closed = false;
  const enqueue = () =>
    (enqueuing ??= enqueuer
      .round()
      .then((round) => {
        active = round.active;
        more = round.more === true;
        deliverer.idle = !round.active;
        pace.enqueued(round.queued, more);
        if (round.queued > 0) deliverer.kick();
        return round.queued;
      })
      .finally(() => (enqueuing = null)));
  // Every 100 ms while some webhook is enabled, else every second (an owner's change in this process kicks it).
  let enqueueTimer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (closed) return;
    // While the process is busy, no round (the timer looks again every 100 ms).
    if (pace.wait() > 0) {
      enqueueTimer = setTimeout(tick, ENQUEUE_EVERY_MS);
      enqueueTimer.unref();
      return;
    }
    void enqueue()
      .catch((error: unknown) => onError?.(error))
      .finally(() => {
        if (closed) return;
        // A round that had to leave changes for later goes on at once.
        enqueueTimer = setTimeout(tick, more ? 0 : active ? ENQUEUE_EVERY_MS : IDLE_EVERY_MS);
        enqueueTimer.unref();
      });
  };
  tick();
  service.changed = () => {
    active = true;
    deliverer.idle = false;
    deliverer.kick();
  };
  const holdTimer = setInterval(() => void service.syncCapture().catch((error: unknown) => onError?.(error)), HOLD_EVERY_MS);
  holdTimer.unref();
  deliverer.start();
  return {
    service,
    enqueuer,
    deliverer,
    counts,
    enqueue,
    async backlog() {
      const result = await knex.raw<{ rows: Array<{ queued: number; oldest: number; behind: number }> }>(
        `SELECT (SELECT count(*)::int FROM _basalt_webhook_deliveries WHERE status IN ('pending', 'failed')) AS queued,
                coalesce((SELECT extract(epoch FROM now() - min(created_at))::float8 FROM _basalt_webhook_deliveries WHERE status IN ('pending', 'failed')), 0) AS oldest,
                coalesce((SELECT extract(epoch FROM now() - min(c.at))::float8 FROM _basalt_changes c, _basalt_change_holds h
                           WHERE h.name = 'webhooks' AND c.xid >= h.xid), 0) AS behind`,
      );
      const row = result.rows[0]!;
      return { queued: row.queued, oldestSeconds: row.oldest, logBehindSeconds: row.behind };
    },
    async close() {
      closed = true;
      clearTimeout(enqueueTimer);
      clearInterval(holdTimer);
      await enqueuing?.catch(() => undefined);
      await deliverer.stop();
      sender.close();
    },
  };
}
