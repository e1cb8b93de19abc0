import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';

/**
 * The write triggers of one table (migration `write_tracking`): one statement-level trigger per kind of write runs
 * `_basalt_track()`, which logs the statement's change for realtime and writes its count deltas, with the owner column
 * (or '' for none) as its argument; with an owner column, a row trigger moves a row's count between owners, and runs
 * only for updates that change the owner.
 */

/** The trigger whose presence (and argument) the schema cache reads: the set goes on and off together. */
export const TRACK_TRIGGER = '_basalt_track_i';
const KINDS = ['i', 'u', 'd', 't', 'o'] as const;

export function trackTriggers(table: string, ownerColumn: string | null): string[] {
  const name = quote(table);
  const argument = `'${(ownerColumn ?? '').replace(/'/g, "''")}'`;
  const statements = [
    `CREATE TRIGGER _basalt_track_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_u AFTER UPDATE ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
  ];
  if (ownerColumn) {
    const column = quote(ownerColumn);
    statements.push(
      `CREATE TRIGGER _basalt_track_o AFTER UPDATE OF ${column} ON ${name} FOR EACH ROW ` +
        `WHEN (OLD.${column} IS DISTINCT FROM NEW.${column}) EXECUTE FUNCTION _basalt_count_owner(${argument})`,
    );
  }
  return statements;
}

export function dropTrackTriggers(table: string): string[] {
  const name = quote(table);
  return KINDS.map((kind) => `DROP TRIGGER IF EXISTS _basalt_track_${kind} ON ${name}`);
}

/** Forgets what was counted for a table of this name (dropped, or made again): its count rows and its completeness. */
export async function forgetCounts(trx: Knex.Transaction, table: string): Promise<void> {
  // After a fold under way, which could otherwise write back a sum of rows this DELETE does not see (as TRUNCATE's
  // trigger does).
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt counts fold'))`);
  await trx.raw(`DELETE FROM _basalt_counts WHERE table_name = ?`, [table]);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
}

/** Tracks a table created empty in this transaction: its triggers, and its count complete from the start. */
export async function startTracking(trx: Knex.Transaction, table: string, ownerColumn: string | null): Promise<void> {
  await forgetCounts(trx, table);
  for (const statement of trackTriggers(table, ownerColumn)) await trx.raw(statement);
  await trx.raw(`INSERT INTO _basalt_counted (table_name, owner_column) VALUES (?, ?)`, [table, ownerColumn ?? '']);
}

/**
 * The table's owner column changes (goes, or another takes its place): its triggers are replaced at once for the new
 * one (so capture never stops), and its counts are marked incomplete for the first count (tracking/count.ts) to redo.
 */
export async function retrack(trx: Knex.Transaction, table: string, ownerColumn: string | null): Promise<void> {
  for (const statement of [...dropTrackTriggers(table), ...trackTriggers(table, ownerColumn)]) await trx.raw(statement);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
}
