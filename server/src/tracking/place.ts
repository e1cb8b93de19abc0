import type { Knex } from 'knex';
import type { OwnerColumn } from '@basalt/contract';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import { InstallLoop } from '../db/installLoop.js';
import { CAPTURE_TRIGGER_NAMES, COUNT_TRIGGER, COUNT_TRIGGER_NAMES, OWNER_MOVE_TRIGGER } from '../db/triggerNames.js';
import { captureIfAllHeld, captureTriggers, countTriggers, dropCountTriggers } from './triggers.js';

/**
 * Puts the write triggers (tracking/triggers.ts) on every served table that lacks them, or whose count triggers count
 * for another owner column than the table has, after each schema load: tables made with psql are counted (and can be
 * streamed) as soon as the cache sees them. Their first count is tracking/count.ts's job, switching capture on and
 * off tracking/capture.ts's.
 *
 * Placing triggers is DDL, which bumps the schema version and reloads every process; the next load sees them and
 * places nothing, so there is no loop. A table whose owner is another role refuses (42501): that is remembered and
 * shown in the table's description instead of retried on every load.
 */

export const LOCK_TIMEOUT = '1s';
/** Every trigger DDL of the service runs under this lock, so two installers never wait on each other's tables. */
export const TRACKING_LOCK = `SELECT pg_advisory_xact_lock(hashtext('basalt tracking'))`;

/**
 * Takes every lock a trigger change needs before its first DDL, so that it never waits while holding a lock somebody
 * else's DDL needs: a psql `CREATE TABLE ... REFERENCES` racing the placement on the referenced table was once the
 * victim of a deadlock. The table's lock is waited for at most LOCK_TIMEOUT while holding nothing a user statement
 * takes (the tracking lock is the service's own); the schema version row, which every DDL's event trigger updates
 * after its own table locks, is taken without waiting. Either refusal is 55P03, which every caller retries later.
 * `ACCESS EXCLUSIVE` where a DROP TRIGGER follows (it takes that mode), `SHARE ROW EXCLUSIVE` for CREATE/ALTER alone.
 */
export async function lockForTriggerChange(trx: Knex.Transaction, table: string, mode: 'ACCESS EXCLUSIVE' | 'SHARE ROW EXCLUSIVE'): Promise<void> {
  await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
  await trx.raw(`LOCK TABLE ${quote(table)} IN ${mode} MODE`);
  await trx.raw(`SELECT 1 FROM _basalt_schema FOR UPDATE NOWAIT`);
}

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
  private async place(table: string, ownerColumn: OwnerColumn | null): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      await trx.raw(TRACKING_LOCK);
      const present = await trx.raw<{ rows: Array<{ name: string; argument: string }> }>(
        `SELECT tgname AS name, split_part(encode(tgargs, 'escape'), '\\000', 1) AS argument FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname LIKE '\\_basalt\\_%'`,
        [quote(table)],
      );
      const names = new Set(present.rows.map((row) => row.name));
      const owner = ownerColumn ?? '';
      const counting = [...COUNT_TRIGGER_NAMES, ...(owner ? [OWNER_MOVE_TRIGGER] : [])];
      const countsRight = present.rows.some((row) => row.name === COUNT_TRIGGER && row.argument === owner) && counting.every((name) => names.has(name));
      const captureRight = CAPTURE_TRIGGER_NAMES.every((name) => names.has(name));
      if (countsRight && captureRight) return false;
      // The triggers wait for the writes under way and hold new ones back meanwhile: at most LOCK_TIMEOUT.
      await lockForTriggerChange(trx, table, 'ACCESS EXCLUSIVE');
      if (!countsRight) {
        for (const statement of [...dropCountTriggers(table), ...countTriggers(table, ownerColumn)]) await trx.raw(statement);
        // Counts kept for another owner column are incomplete for this one: the first count redoes them.
        await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ? AND owner_column <> ?`, [table, owner]);
      }
      if (!captureRight) {
        for (const name of CAPTURE_TRIGGER_NAMES) await trx.raw(`DROP TRIGGER IF EXISTS ${name} ON ${quote(table)}`);
        for (const statement of captureTriggers(table)) await trx.raw(statement);
        await captureIfAllHeld(trx, table);
      }
      await notifySchemaChange(trx);
      return true;
    });
  }
}
