import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import type { TableSchema } from '../db/schema.js';
import { countTriggers, dropCountTriggers } from './triggers.js';
import { InstallLoop } from '../db/installLoop.js';

/**
 * Starts exact counting on every served table that lacks it (made with psql, or whose owner column changed), after
 * each schema load, in two steps so that writes wait at most about a second however big the table:
 *
 * 1. The triggers go on, in a short transaction (`CREATE TRIGGER` waits for the writes under way and holds new ones
 *    back only until it commits; it gives up after LOCK_TIMEOUT and is tried again later).
 * 2. The first count, with no lock that holds writes back: one statement counts the rows (per owner too) and
 *    subtracts the count rows it sees, which are the changes made since step 1 committed; what it stores plus the
 *    count rows every later snapshot sees is then that snapshot's exact count. The table is marked complete, and the
 *    schema change makes every process reload and read the counts from then on.
 *
 * Both steps are changes of the schema that the next load sees as done, so they never set off a loop of reloads.
 */

const LOCK_TIMEOUT = '1s';

export class Counting extends InstallLoop {
  /** Tables that refused the triggers (another role owns them), with why: not tried again; their lists count rows. */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    onError?: (error: unknown) => void,
  ) {
    super(onError);
  }

  protected async install(): Promise<void> {
    const missing = this.cache.servedTables().filter((table) => !table.counted && !this.refused.has(table.name));
    let changed = false;
    let busy = false;
    for (const table of missing) {
      try {
        // Another process at this table (its first count of a big table can take seconds): it notifies when done,
        // and this one looks again shortly rather than parking a connection behind it.
        const step = (await this.placeTriggers(table)) ? await this.firstCount(table) : 'busy';
        if (step === 'busy') busy = true;
        changed = step === 'counted' || changed;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 55P03: the lock was not granted in time (long writes under way): tried again shortly.
        if (code === '55P03') busy = true;
        else if (code === '42501') this.refused.set(table.name, 'the database role of the service does not own this table, so it cannot count its rows');
        // 42P01: dropped meanwhile; 42703: its owner column went meanwhile.
        else if (code !== '42P01' && code !== '42703') throw error;
      }
    }
    if (busy) this.retryLater();
    if (changed) await this.cache.reload();
  }

  /** Step 1: the triggers for the table's owner column, unless they are there already; false: another process is at it. */
  private async placeTriggers(table: TableSchema): Promise<boolean> {
    const owner = table.ownerColumn ?? '';
    return this.knex.transaction(async (trx) => {
      if (!(await lockTable(trx, table.name))) return false;
      const present = await trx.raw<{ rows: Array<{ owner: string }> }>(
        `SELECT split_part(encode(tgargs, 'escape'), '\\000', 1) AS owner FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = '_basalt_count_i'`,
        [quote(table.name)],
      );
      if (present.rows[0]?.owner === owner) return true;
      await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      for (const statement of [...dropCountTriggers(table.name), ...countTriggers(table.name, table.ownerColumn)]) await trx.raw(statement);
      await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table.name]);
      return true;
    });
  }

  /** Step 2: the count as of one snapshot, less the changes counted since step 1 (or: done already, another at it). */
  private async firstCount(table: TableSchema): Promise<'counted' | 'done' | 'busy'> {
    const owner = table.ownerColumn;
    return this.knex.transaction(async (trx) => {
      if (!(await lockTable(trx, table.name))) return 'busy';
      const done = await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM _basalt_counted WHERE table_name = ? AND owner_column = ?`, [table.name, owner ?? '']);
      if (done.rows.length > 0) return 'done';
      const scopes = owner ? `CROSS JOIN LATERAL (VALUES ('*'), (t.${quote(owner)}::text)) s(scope) WHERE s.scope IS NOT NULL` : `CROSS JOIN (VALUES ('*')) s(scope)`;
      await trx.raw(
        `WITH actual AS (SELECT s.scope, count(*)::bigint AS n FROM ${quote(table.name)} t ${scopes} GROUP BY s.scope),
              seen AS (SELECT scope, sum(n)::bigint AS n FROM _basalt_counts WHERE table_name = ? GROUP BY scope)
         INSERT INTO _basalt_counts (table_name, scope, n)
         SELECT ?, coalesce(a.scope, s.scope), coalesce(a.n, 0) - coalesce(s.n, 0)
           FROM actual a FULL JOIN seen s ON s.scope = a.scope
          WHERE coalesce(a.n, 0) <> coalesce(s.n, 0)`,
        [table.name, table.name],
      );
      await trx.raw(
        `INSERT INTO _basalt_counted (table_name, owner_column) VALUES (?, ?) ON CONFLICT (table_name) DO UPDATE SET owner_column = excluded.owner_column`,
        [table.name, owner ?? ''],
      );
      await notifySchemaChange(trx);
      return 'counted';
    });
  }
}

/** One process at a time installs or counts a table: the lock, unless another transaction holds it. */
async function lockTable(trx: Knex.Transaction, table: string): Promise<boolean> {
  const result = await trx.raw<{ rows: Array<{ held: boolean }> }>(`SELECT pg_try_advisory_xact_lock(hashtext('basalt counts'), hashtext(?)) AS held`, [table]);
  return result.rows[0]?.held === true;
}
