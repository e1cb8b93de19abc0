import type { Knex } from 'knex';
import type pg from 'pg';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery, type WebhookEvent, type WebhookPayload } from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import { ApiError, invalidField, invalidParameter, notFound } from '../errors.js';
import { ChangeLog } from '../realtime/log.js';
import { deliveriesOf, insertDeliveries } from './delivery/enqueue.js';
import { iso, type ActiveWebhook } from './store.js';

/**
 * The owner's view of a webhook's queue (API.md, Webhooks): deliveries listed newest first with their status,
 * attempts, last status code and latency; one tried again now (the same `webhook-id`; it may arrive out of order);
 * and a replay of the changes still in the log since a time, as new deliveries with new ids.
 */

interface DeliveryRow {
  id: string;
  seq: string;
  webhook_id: string;
  table_name: string;
  type: WebhookEvent;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  latency_ms: number | null;
  changed_at: Date | string;
  created_at: Date | string;
  next_attempt_at: Date | string;
  delivered_at: Date | string | null;
}

const COLUMNS = `id, seq::text AS seq, webhook_id, table_name, type, body, status, attempts, last_status, last_error, latency_ms, changed_at, created_at, next_attempt_at, delivered_at`;
export const MAX_DELIVERIES_PAGE = 200;

function deliveryOf(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    table: row.table_name,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    latencyMs: row.latency_ms,
    changedAt: iso(row.changed_at),
    createdAt: iso(row.created_at),
    nextAttemptAt: row.status === 'pending' || row.status === 'failed' ? iso(row.next_attempt_at) : null,
    deliveredAt: row.delivered_at === null ? null : iso(row.delivered_at),
    payload: JSON.parse(row.body) as WebhookPayload,
  };
}

export interface DeliveryQuery {
  status?: DeliveryStatus;
  limit: number;
  /** The cursor of the page before: deliveries older than it. */
  before?: string;
}

export function parseDeliveryQuery(query: Record<string, unknown>): DeliveryQuery {
  for (const name of Object.keys(query)) if (!['status', 'limit', 'before'].includes(name)) throw invalidParameter(name, `${name} is not a parameter of this list (status, limit, before)`);
  const { status, limit, before } = query as Record<string, string | undefined>;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw invalidParameter('status', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  const size = limit === undefined ? 50 : /^[0-9]{1,10}$/.test(limit) ? Number(limit) : NaN;
  if (!(size >= 1 && size <= MAX_DELIVERIES_PAGE)) throw invalidParameter('limit', `limit must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}`);
  // A position (bigint): at most 2^63 - 1.
  if (before !== undefined && !(/^[1-9][0-9]{0,18}$/.test(before) && BigInt(before) <= 2n ** 63n - 1n)) throw invalidParameter('before', 'before must be the cursor of a page (next)');
  return { ...(status ? { status: status as DeliveryStatus } : {}), limit: size, ...(before ? { before } : {}) };
}

export class Deliveries {
  private readonly log: ChangeLog;

  constructor(
    private readonly knex: Knex,
    private readonly pool: pg.Pool,
    private readonly cache: SchemaCache,
  ) {
    this.log = new ChangeLog(pool);
  }

  async list(webhookId: string, query: DeliveryQuery): Promise<{ data: WebhookDelivery[]; next: string | null }> {
    const result = await this.knex.raw<{ rows: DeliveryRow[] }>(
      `SELECT ${COLUMNS} FROM _basalt_webhook_deliveries
        WHERE webhook_id = ? AND (?::text IS NULL OR status = ?) AND (?::bigint IS NULL OR seq < ?::bigint)
        ORDER BY seq DESC LIMIT ?`,
      [webhookId, query.status ?? null, query.status ?? null, query.before ?? null, query.before ?? null, query.limit + 1],
    );
    const rows = result.rows.slice(0, query.limit);
    return { data: rows.map(deliveryOf), next: result.rows.length > query.limit ? rows[rows.length - 1]!.seq : null };
  }

  /** Tried again now, whatever its status (a delivered one is sent again). */
  async retry(webhookId: string, id: string): Promise<WebhookDelivery> {
    const result = await this.knex.raw<{ rows: DeliveryRow[] }>(
      `UPDATE _basalt_webhook_deliveries SET status = 'pending', next_attempt_at = now(), lease_until = NULL, updated_at = now()
        WHERE webhook_id = ? AND id = ? RETURNING ${COLUMNS}`,
      [webhookId, id],
    );
    if (!result.rows[0]) throw notFound('No such delivery of this webhook');
    return deliveryOf(result.rows[0]);
  }

  /**
   * The changes still in the log from `since` on, up to where the queue has reached, queued again for one webhook
   * (new ids; its events and filter apply, its `since` does not). Under the enqueuer's position lock, so no change is
   * both replayed and queued meanwhile by the enqueuer twice in a different order.
   */
  async replay(webhook: ActiveWebhook, sinceText: unknown): Promise<number> {
    if (typeof sinceText !== 'string' || Number.isNaN(Date.parse(sinceText))) throw invalidField('since', 'since must be an ISO date-time');
    const since = new Date(sinceText);
    const oldest = await this.oldestKept();
    if (oldest && since < oldest) {
      throw new ApiError('VALIDATION_ERROR', `since is older than the oldest change still kept (${oldest.toISOString()})`, { field: 'since', oldest: oldest.toISOString() });
    }
    return this.knex.transaction(async (trx) => {
      const position = await trx.raw<{ rows: Array<{ xid: string }> }>(`SELECT xid::text AS xid FROM _basalt_webhook_position FOR UPDATE`);
      // Held until its deliveries are in: a delete meanwhile waits and takes them with it; one before is a 404 here.
      const alive = await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM _basalt_webhooks WHERE id = ? FOR KEY SHARE`, [webhook.id]);
      if (alive.rows.length === 0) throw notFound('No such webhook');
      // The enqueuer queues the changes from its position on, skipping those before the webhook's `since` (its
      // position stays behind while no webhook is enabled): the replay takes everything below both.
      const at = BigInt(position.rows[0]!.xid);
      const below = at > webhook.since ? at : webhook.since;
      let queued = 0;
      let after: { xid: bigint; id: number } | null = null;
      for (;;) {
        const changes = await this.log.readFrom(since, after, below, webhook.tables === '*' ? null : webhook.tables);
        if (changes.length === 0) break;
        const deliveries = await deliveriesOf(this.pool, this.cache, changes, [webhook], { ignoreSince: true });
        await insertDeliveries(trx, deliveries);
        queued += deliveries.length;
        const last = changes[changes.length - 1]!;
        after = { xid: last.xid, id: last.id };
      }
      return queued;
    });
  }

  /** The start of the oldest change the log still has, when the trim has deleted some (else any `since` is kept). */
  private async oldestKept(): Promise<Date | null> {
    const result = await this.knex.raw<{ rows: Array<{ trimmed: boolean; oldest: Date | string | null }> }>(
      `SELECT (SELECT xid <> '0'::xid8 FROM _basalt_changes_trimmed) AS trimmed, (SELECT min(at) FROM _basalt_changes) AS oldest`,
    );
    const row = result.rows[0]!;
    if (!row.trimmed) return null;
    return row.oldest === null ? new Date() : new Date(row.oldest);
  }
}
