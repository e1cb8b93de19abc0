import type { Knex } from 'knex';
import type pg from 'pg';
import type { WebhookEvent } from '@basalt/contract';
import type { SchemaCache } from '../../db/schemaCache.js';
import { randomId } from '../../ids.js';
import { ChangeLog, isAfter, type Change, type ChangeOp, type Place } from '../../realtime/log.js';
import { changeRowsIsolated, filterKeyOf, type FilterSet } from '../../realtime/changeRows.js';
import type { ExpressionFilter } from '../../records/index.js';
import { planWebhookFilter } from '../filter.js';
import type { ActiveWebhook } from '../store.js';

/**
 * From the change log into the durable queue (API.md, Webhooks): one process at a time (the position row, locked
 * with SKIP LOCKED) reads the log after its position, in the log's order, turns each change into one delivery per
 * enabled webhook that takes it (its tables, events, `filter`, and changes from its `since` on), and saves the
 * deliveries and its new position in one transaction: a change is queued once, whichever process dies when. While an
 * enabled webhook exists the position holds the log (`_basalt_change_holds`): the trim keeps every change not queued.
 *
 * Rows are read back by realtime's batch statement (realtime/changeRows.ts), so `record` and `old` are the values
 * `/api` answers, and a filter is the query language's own SQL run on the row.
 */

export const ENQUEUE_EVERY_MS = 100;
/** Without an enabled webhook a round only moves the position on: once a second is enough. */
export const IDLE_EVERY_MS = 1_000;
/** Changes queued by one round at most (a round that took this many runs again at once). */
export const CHANGES_PER_ROUND = 5_000;
const HOLD = 'webhooks';
const TYPES: Record<ChangeOp, WebhookEvent> = { i: 'insert', u: 'update', d: 'delete', t: 'truncate' };

export interface NewDelivery {
  id: string;
  webhookId: string;
  table: string;
  rowKey: string | null;
  type: WebhookEvent;
  body: string;
  changedAt: string;
}

/** Which webhooks take a table's changes. */
const follows = (webhook: ActiveWebhook, table: string) => webhook.tables === '*' || webhook.tables.includes(table);

/**
 * The deliveries of these changes (in the log's order) to these webhooks. `ignoreSince`: a replay takes every change
 * still in the log. `onError` hears of filters that stopped compiling (their changes are not delivered) and of rows
 * that no longer fit their table.
 */
export async function deliveriesOf(
  pool: pg.Pool,
  cache: SchemaCache,
  changes: readonly Change[],
  webhooks: readonly ActiveWebhook[],
  options: { ignoreSince?: boolean; onError?: (error: unknown) => void } = {},
): Promise<NewDelivery[]> {
  const byTable = new Map<string, number[]>();
  changes.forEach((change, index) => {
    if (webhooks.some((webhook) => follows(webhook, change.table))) byTable.set(change.table, [...(byTable.get(change.table) ?? []), index]);
  });
  const made: Array<{ index: number; delivery: NewDelivery }> = [];
  for (const [tableName, indexes] of byTable) {
    const table = cache.served(tableName);
    // A table gone since (or no longer served): its changes cannot be read back as the API answers them.
    if (!table) continue;
    const batch = indexes.map((index) => changes[index]!);
    const interested = webhooks.filter((webhook) => follows(webhook, tableName));
    const filters = new Map<string, FilterSet | null>();
    for (const webhook of interested) {
      if (!webhook.filter) continue;
      try {
        const expression: ExpressionFilter = planWebhookFilter(cache, table, webhook.filter);
        filters.set(webhook.id, { conditions: [], expression, key: filterKeyOf([], expression) });
      } catch (error) {
        options.onError?.(new Error(`webhook ${webhook.id}: its filter no longer applies to ${tableName} (${(error as Error).message}); its changes are not queued`));
        filters.set(webhook.id, null);
      }
    }
    const sets = [...filters.values()].filter((set): set is FilterSet => set !== null);
    const rows = await changeRowsIsolated(pool, tableName, batch, sets);
    const oldChanges = batch.map((change) => ({ ...change, record: change.op === 'u' ? (change.old ?? null) : null }));
    const olds = batch.some((change) => change.op === 'u' && change.old) ? await changeRowsIsolated(pool, tableName, oldChanges, []) : null;
    if (rows.undeliverable.length > 0) options.onError?.(new Error(`webhooks: ${rows.undeliverable.length} change(s) of ${tableName} no longer fit the table and are not delivered (${rows.reason})`));
    batch.forEach((change, position) => {
      const type = TYPES[change.op];
      const row = rows.rows[position] ?? null;
      if (change.op !== 't' && row === null) return;
      const record = change.op === 'd' || change.op === 't' ? null : row;
      const old = change.op === 'd' ? row : change.op === 'u' ? (olds?.rows[position] ?? null) : null;
      const body = JSON.stringify({ type, table: tableName, record, old, changedAt: change.at });
      const rowKey = row && row.id !== undefined && row.id !== null ? String(row.id) : null;
      for (const webhook of interested) {
        if (!webhook.events.includes(type)) continue;
        if (!options.ignoreSince && change.xid < webhook.since) continue;
        const filter = filters.get(webhook.id);
        if (filter === null) continue;
        if (filter && change.op !== 't' && rows.matches.get(filter.key)?.[position] !== true) continue;
        made.push({ index: indexes[position]!, delivery: { id: `msg_${randomId()}`, webhookId: webhook.id, table: tableName, rowKey, type, body, changedAt: change.at! } });
      }
    });
  }
  // The queue's order is the log's (per row, deliveries go in this order).
  return made.sort((a, b) => a.index - b.index).map(({ delivery }) => delivery);
}

/** Saves deliveries in their order (their `seq`). */
export async function insertDeliveries(trx: Knex | Knex.Transaction, deliveries: readonly NewDelivery[]): Promise<void> {
  for (let start = 0; start < deliveries.length; start += 2_000) {
    const part = deliveries.slice(start, start + 2_000);
    await trx.raw(
      `INSERT INTO _basalt_webhook_deliveries (id, webhook_id, table_name, row_key, type, body, changed_at)
       SELECT d.id, d.webhook_id, d.table_name, d.row_key, d.type, d.body, d.changed_at::timestamptz
         FROM ROWS FROM (jsonb_to_recordset(?::jsonb) AS (id text, webhook_id text, table_name text, row_key text, type text, body text, changed_at text))
              WITH ORDINALITY AS d(id, webhook_id, table_name, row_key, type, body, changed_at, k)
        ORDER BY d.k`,
      [JSON.stringify(part.map((d) => ({ id: d.id, webhook_id: d.webhookId, table_name: d.table, row_key: d.rowKey, type: d.type, body: d.body, changed_at: d.changedAt })))],
    );
  }
}

export class Enqueuer {
  private readonly log: ChangeLog;
  /** The last round saw an enabled webhook (or none ran yet). */
  private wasActive = true;

  constructor(
    private readonly knex: Knex,
    private readonly pool: pg.Pool,
    private readonly cache: SchemaCache,
    private readonly active: (trx: Knex.Transaction) => Promise<ActiveWebhook[]>,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.log = new ChangeLog(pool);
  }

  /**
   * One round: answers how many deliveries it queued (0 when another process holds the position) and whether any
   * webhook is enabled (without one, rounds can be rarer).
   */
  async round(): Promise<{ queued: number; active: boolean; more?: boolean }> {
    // After a round that found no enabled webhook: while there is still none and the log is not held, nothing to do,
    // one read and no transaction. (The position stays where it is: a webhook made later skips the changes before it
    // by its `since`.) While webhooks are enabled, rounds go straight to the transaction.
    if (!this.wasActive) {
      const probe = await this.knex.raw<{ rows: Array<{ active: boolean; held: boolean }> }>(
        `SELECT EXISTS (SELECT 1 FROM _basalt_webhooks WHERE enabled) AS active, EXISTS (SELECT 1 FROM _basalt_change_holds WHERE name = ?) AS held`,
        [HOLD],
      );
      if (!probe.rows[0]!.active && !probe.rows[0]!.held) return { queued: 0, active: false };
    }
    const round = await this.knex.transaction(async (trx) => {
      const position = await trx.raw<{ rows: Array<{ xid: string; change_id: string | null; n: number | null }> }>(
        `SELECT xid::text AS xid, change_id, n FROM _basalt_webhook_position FOR UPDATE SKIP LOCKED`,
      );
      const at = position.rows[0];
      if (!at) return { queued: 0, active: true };
      const webhooks = await this.active(trx);
      if (webhooks.length === 0) {
        await trx.raw(`UPDATE _basalt_webhook_position SET xid = greatest(xid, pg_snapshot_xmin(pg_current_snapshot())), change_id = NULL, n = NULL`);
        await trx.raw(`DELETE FROM _basalt_change_holds WHERE name = ?`, [HOLD]);
        return { queued: 0, active: false };
      }
      const from = BigInt(at.xid);
      const after: Place | null = at.change_id === null ? null : { xid: from, id: Number(at.change_id), n: at.n ?? 0 };
      const tables = webhooks.some((webhook) => webhook.tables === '*') ? null : [...new Set(webhooks.flatMap((webhook) => webhook.tables as string[]))];
      // A statement's rows come in parts (at most READ_LIMIT of each), resuming inside the one a round stopped in.
      const read = await this.log.read(from, tables, true, after);
      const unread = after ? read.changes.filter((change) => isAfter(change, after)) : read.changes;
      // A round queues at most CHANGES_PER_ROUND changes (a bulk statement's thousands of rows are one log row): the
      // rest stay for the next rounds, so no transaction or queue batch grows without end.
      const fresh = unread.slice(0, CHANGES_PER_ROUND);
      const taken = fresh[fresh.length - 1];
      const cut = fresh.length < unread.length || (taken?.of !== undefined && taken.n < taken.of - 1);
      const next = cut ? fresh[fresh.length - 1]!.xid : read.next;
      const deliveries = await deliveriesOf(this.pool, this.cache, fresh, webhooks, { onError: this.onError });
      await insertDeliveries(trx, deliveries);
      const last = cut ? fresh[fresh.length - 1] : read.changes[read.changes.length - 1];
      // A read that stopped inside transaction `next` (full, or cut here): the changes up to the last one taken are queued.
      const partial = last !== undefined && last.xid === next;
      await trx.raw(`UPDATE _basalt_webhook_position SET xid = ?::text::xid8, change_id = ?, n = ?`, [next.toString(), partial ? last.id : null, partial ? last.n : null]);
      await trx.raw(`INSERT INTO _basalt_change_holds (name, xid) VALUES (?, ?::text::xid8) ON CONFLICT (name) DO UPDATE SET xid = excluded.xid`, [HOLD, next.toString()]);
      return { queued: deliveries.length, active: true, more: cut };
    });
    this.wasActive = round.active;
    return round;
  }
}
