import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import { InstallLoop } from '../db/installLoop.js';
import { dropTrackTriggers, trackTriggers, TRACK_TRIGGER } from './triggers.js';

/**
 * Puts the write triggers (tracking/triggers.ts) on every served table that lacks them, or whose owner column is not
 * the one its triggers count for, after each schema load: tables made with psql are captured for realtime as soon as
 * the cache sees them. Their first count is tracking/count.ts's job.
 *
 * Placing triggers is DDL, which bumps the schema version and reloads every process; the next load sees them and
 * places nothing, so there is no loop. A table whose owner is another role refuses (42501): that is remembered and
 * shown in the table's description instead of retried on every load.
 */

const LOCK_TIMEOUT = '1s';

export class TriggerPlacement extends InstallLoop {
  /** Tables that refused the triggers, with why (shown in their description). */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    onError?: (error: unknown) => void,
  ) {
    super(onError);
  }

  /** Why a table's writes are not tracked (no realtime, counted rows), or undefined when they are or will be. */
  problem(table: string): string | undefined {
    return this.refused.get(table);
  }

  protected async install(): Promise<void> {
    const missing = this.cache.servedTables().filter((table) => table.trackedFor !== (table.ownerColumn ?? '') && !this.refused.has(table.name));
    let placed = false;
    for (const table of missing) {
      try {
        placed = (await this.place(table.name, table.ownerColumn)) || placed;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 42501: not the table's owner; 42P01: dropped meanwhile; 42703: its owner column went meanwhile.
        if (code === '42501') this.refused.set(table.name, 'the database role of the service does not own this table, so it cannot put the triggers that capture its changes (realtime) and count its rows on it');
        // 55P03: long writes under way kept the lock: tried again shortly.
        else if (code === '55P03') this.retryLater();
        else if (code !== '42P01' && code !== '42703') throw error;
      }
    }
    if (placed) await this.cache.reload();
  }

  /** The table's triggers for this owner column, unless another process put them there meanwhile. */
  private async place(table: string, ownerColumn: string | null): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      // One process at a time: the first takes the lock, the others then find the triggers in place. All trigger DDL
      // of the service runs under it, so two installers never wait on each other's tables.
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt tracking'))`);
      const present = await trx.raw<{ rows: Array<{ owner: string }> }>(
        `SELECT split_part(encode(tgargs, 'escape'), '\\000', 1) AS owner FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = ?`,
        [quote(table), TRACK_TRIGGER],
      );
      if (present.rows[0]?.owner === (ownerColumn ?? '')) return false;
      // CREATE TRIGGER waits for the writes under way and holds new ones back meanwhile: at most LOCK_TIMEOUT.
      await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      for (const statement of [...dropTrackTriggers(table), ...trackTriggers(table, ownerColumn)]) await trx.raw(statement);
      // Counts kept for another owner column are incomplete for this one: the first count redoes them.
      await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ? AND owner_column <> ?`, [table, ownerColumn ?? '']);
      await notifySchemaChange(trx);
      return true;
    });
  }
}
