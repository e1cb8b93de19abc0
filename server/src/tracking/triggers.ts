import type { Knex } from 'knex';
import type { OwnerColumn } from '@basalt/contract';
import { quote } from '../db/identifiers.js';
import { CAPTURE_TRIGGER_NAMES } from '../db/triggerNames.js';

/**
 * The write triggers of one table (migrations `changes`, `counts`, `write_tracking`):
 * - count triggers, always on: inserts, deletes and TRUNCATE statement by statement, with the owner column (or ''
 *   for none) as the argument; with an owner column, a row trigger that runs only for updates that move a row to
 *   another owner;
 * - capture triggers, which log each statement's rows for realtime: on every tracked table, enabled only while
 *   somebody streams it (tracking/capture.ts), so a table nobody streams pays nothing for realtime.
 */


/**
 * The count function of each owner column (migration `write_tracking`): it names the column in its statement, where the
 * generic `_basalt_count()` (tables without one) would format the whole row as JSON to find it.
 */
const COUNT_FUNCTIONS: Record<OwnerColumn, string> = { user_id: '_basalt_count_user_id', userId: quote('_basalt_count_userId') };

export function countTriggers(table: string, ownerColumn: OwnerColumn | null): string[] {
  const name = quote(table);
  const argument = `'${ownerColumn ?? ''}'`;
  const count = ownerColumn ? COUNT_FUNCTIONS[ownerColumn] : '_basalt_count';
  const statements = [
    `CREATE TRIGGER _basalt_count_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION ${count}(${argument})`,
    `CREATE TRIGGER _basalt_count_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION ${count}(${argument})`,
    `CREATE TRIGGER _basalt_count_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION ${count}(${argument})`,
  ];
  if (ownerColumn) {
    const column = quote(ownerColumn);
    statements.push(
      `CREATE TRIGGER _basalt_count_u AFTER UPDATE OF ${column} ON ${name} FOR EACH ROW ` +
        `WHEN (OLD.${column} IS DISTINCT FROM NEW.${column}) EXECUTE FUNCTION _basalt_count_owner(${argument})`,
    );
  }
  return statements;
}

export function dropCountTriggers(table: string): string[] {
  const name = quote(table);
  return ['i', 'd', 't', 'u'].map((kind) => `DROP TRIGGER IF EXISTS _basalt_count_${kind} ON ${name}`);
}

/** The capture triggers, made disabled: the table's first stream switches them on. */
export function captureTriggers(table: string): string[] {
  const name = quote(table);
  const made = [
    `CREATE TRIGGER _basalt_capture_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    // Updates log the rows as they were too (webhooks' `old`, migration `webhooks`).
    `CREATE TRIGGER _basalt_capture_u AFTER UPDATE ON ${name} REFERENCING OLD TABLE AS _basalt_old NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    `CREATE TRIGGER _basalt_capture_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
    `CREATE TRIGGER _basalt_capture_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  ];
  return [...made, ...switchCapture(table, false)];
}

/**
 * A new table's capture goes on with it while every table is held captured (a webhook on `"*"`: the row `''` of
 * `_basalt_streamed`, tracking/capture.ts `hold`).
 */
export async function captureIfAllHeld(trx: Knex.Transaction, table: string): Promise<void> {
  const all = await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM _basalt_streamed WHERE table_name = '' AND until > now()`);
  if (all.rows.length === 0) return;
  for (const statement of switchCapture(table, true)) await trx.raw(statement);
  await trx.raw(
    `INSERT INTO _basalt_streamed (table_name, since, until) VALUES (?, pg_current_xact_id(), 'infinity')
     ON CONFLICT (table_name) DO UPDATE SET until = 'infinity', since = pg_current_xact_id()`,
    [table],
  );
}

/** Switches a table's capture on or off (ALTER TABLE: it waits for the writes under way, as CREATE TRIGGER does). */
export function switchCapture(table: string, on: boolean): string[] {
  return CAPTURE_TRIGGER_NAMES.map((trigger) => `ALTER TABLE ${quote(table)} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
}

/** Forgets what was counted for a table of this name (dropped, or made again): its count rows and its completeness. */
export async function forgetCounts(trx: Knex.Transaction, table: string): Promise<void> {
  // After a fold under way, which could otherwise write back a sum of rows this DELETE does not see (as TRUNCATE's
  // trigger does).
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt counts fold'))`);
  await trx.raw(`DELETE FROM _basalt_counts WHERE table_name = ?`, [table]);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
  await trx.raw(`DELETE FROM _basalt_streamed WHERE table_name = ?`, [table]);
}

/** Tracks a table created empty in this transaction: its triggers, and its count complete from the start. */
export async function startTracking(trx: Knex.Transaction, table: string, ownerColumn: OwnerColumn | null): Promise<void> {
  await forgetCounts(trx, table);
  for (const statement of [...countTriggers(table, ownerColumn), ...captureTriggers(table)]) await trx.raw(statement);
  await captureIfAllHeld(trx, table);
  await trx.raw(`INSERT INTO _basalt_counted (table_name, owner_column) VALUES (?, ?)`, [table, ownerColumn ?? '']);
}

/**
 * The table's owner column changes (goes, or another takes its place): its count triggers are replaced at once for
 * the new one, and its counts marked incomplete for the first count (tracking/count.ts) to redo. Capture is untouched.
 */
export async function retrack(trx: Knex.Transaction, table: string, ownerColumn: OwnerColumn | null): Promise<void> {
  for (const statement of [...dropCountTriggers(table), ...countTriggers(table, ownerColumn)]) await trx.raw(statement);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
}
