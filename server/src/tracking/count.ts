import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import type { TableSchema } from '../db/schema.js';
import { InstallLoop } from '../db/installLoop.js';

/**
 * Completes the exact count of every tracked table whose count is not complete (made with psql, or whose owner column
 * changed), after each schema load, with no lock that holds writes back however big the table:
 *
 * Its triggers are in place already (tracking/place.ts), so every write since then left count rows. One statement
 * counts the rows (per owner too) and subtracts the count rows it sees, which are the changes made since the triggers
 * went on; what it stores plus the count rows every later snapshot sees is then that snapshot's exact count. The table
 * is marked complete, and the schema change makes every process reload and read the counts from then on. That change
 * is one the next load sees as done, so it never sets off a loop of reloads.
 */
export class FirstCount extends InstallLoop {
  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    onError?: (error: unknown) => void,
  ) {
    super(onError);
  }

  protected async install(): Promise<void> {
    // Only tables whose triggers count for their current owner column: the others wait for tracking/place.ts.
    const missing = this.cache.servedTables().filter((table) => !table.counted && table.trackedFor === (table.ownerColumn ?? ''));
    let counted = false;
    let busy = false;
    for (const table of missing) {
      try {
        // Another process at this table (a big table's first count can take seconds): it notifies when done, and
        // this one looks again shortly rather than parking a connection behind it.
        const step = await this.count(table);
        if (step === 'busy') busy = true;
        counted = step === 'counted' || counted;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 42P01: dropped meanwhile; 42703: its owner column went meanwhile; 42501: another role's table.
        if (code !== '42P01' && code !== '42703' && code !== '42501') throw error;
      }
    }
    if (busy) this.retryLater();
    if (counted) await this.cache.reload();
  }

  /** The count as of one snapshot, less the changes counted since the triggers went on (or: done, another at it). */
  private async count(table: TableSchema): Promise<'counted' | 'done' | 'busy'> {
    const owner = table.ownerColumn;
    return this.knex.transaction(async (trx) => {
      const lock = await trx.raw<{ rows: Array<{ held: boolean }> }>(`SELECT pg_try_advisory_xact_lock(hashtext('basalt counts'), hashtext(?)) AS held`, [table.name]);
      if (lock.rows[0]?.held !== true) return 'busy';
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
