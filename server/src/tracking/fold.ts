import type { Knex } from 'knex';
import { Housekeeping } from '../db/housekeeping.js';

/**
 * Folds the count rows: every (table, scope) with more than one row becomes one row holding their sum, in one
 * statement. A snapshot sees either the rows or their sum, never both or neither, so every count stays exact; rows
 * written by transactions still under way are not visible to the fold and stay as they are. One process folds at a
 * time (an advisory lock); the others skip that round. The statement answers how many rows it folded away.
 */
export const FOLD_SQL = `
  WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('basalt counts fold')) AS held),
       many AS (SELECT table_name, scope FROM _basalt_counts, lock WHERE lock.held GROUP BY table_name, scope HAVING count(*) > 1),
       gone AS (
         DELETE FROM _basalt_counts c USING many m
          WHERE c.table_name = m.table_name AND c.scope = m.scope
          RETURNING c.table_name, c.scope, c.n),
       summed AS (
         INSERT INTO _basalt_counts (table_name, scope, n)
         SELECT table_name, scope, sum(n) FROM gone GROUP BY table_name, scope HAVING sum(n) <> 0)
  SELECT count(*)::int AS folded FROM gone`;

/**
 * Every row a fold deletes stays in the table and its index until a VACUUM, and a count read (a bitmap scan) visits
 * each of them: at a thousand writes a second, a minute of them makes the read thirty times slower. Autovacuum may be
 * off, or a minute away: the folder vacuums the table itself once its folds have deleted this many rows (a VACUUM of
 * this small table takes milliseconds, and never waits: SKIP_LOCKED leaves it to a process already at it).
 */
export const VACUUM_AFTER_ROWS = 5_000;
export const FOLD_INTERVAL_MS = 1_000;

export class CountFolder extends Housekeeping {
  constructor(
    private readonly knex: Knex,
    onError?: (error: unknown) => void,
  ) {
    super('_basalt_counts', VACUUM_AFTER_ROWS, (sql) => knex.raw(sql), onError);
  }

  /** One fold now, and the VACUUM it calls for (tests and benchmarks call it to settle the counts). */
  fold(): Promise<void> {
    return this.run();
  }

  protected async clean(): Promise<number> {
    const result = await this.knex.raw<{ rows: Array<{ folded: number }> }>(FOLD_SQL);
    return result.rows[0]?.folded ?? 0;
  }

  override start(intervalMs = FOLD_INTERVAL_MS): void {
    super.start(intervalMs);
  }
}
