import type { Knex } from 'knex';
import { quote } from '../db/identifiers.js';

/**
 * The counting triggers of one table (migration `counts`): inserts, deletes and TRUNCATE, statement by statement,
 * with the owner column (or '' for none) as the function's argument; and, with an owner column, a row trigger that
 * runs only for updates that move a row to another owner.
 */
export function countTriggers(table: string, ownerColumn: string | null): string[] {
  const name = quote(table);
  const owner = (ownerColumn ?? '').replace(/'/g, "''");
  const statements = [
    `CREATE TRIGGER _basalt_count_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
    `CREATE TRIGGER _basalt_count_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
    `CREATE TRIGGER _basalt_count_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
  ];
  if (ownerColumn) {
    const column = quote(ownerColumn);
    statements.push(
      `CREATE TRIGGER _basalt_count_u AFTER UPDATE OF ${column} ON ${name} FOR EACH ROW ` +
        `WHEN (OLD.${column} IS DISTINCT FROM NEW.${column}) EXECUTE FUNCTION _basalt_count_owner('${owner}')`,
    );
  }
  return statements;
}

/** Removes a table's counting triggers (before they are put on again for another owner column). */
export function dropCountTriggers(table: string): string[] {
  const name = quote(table);
  return ['i', 'd', 't', 'u'].map((kind) => `DROP TRIGGER IF EXISTS _basalt_count_${kind} ON ${name}`);
}

/** Forgets what was counted for a table of this name (dropped, or made again): its count rows and its completeness. */
export async function forgetCounts(trx: Knex.Transaction, table: string): Promise<void> {
  // After a fold under way, which could otherwise write back a sum of rows this DELETE does not see (as TRUNCATE's
  // trigger does).
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('basalt counts fold'))`);
  await trx.raw(`DELETE FROM _basalt_counts WHERE table_name = ?`, [table]);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
}

/** Counts a table created empty in this transaction: its triggers, and its count complete from the start. */
export async function startCounting(trx: Knex.Transaction, table: string, ownerColumn: string | null): Promise<void> {
  await forgetCounts(trx, table);
  for (const statement of countTriggers(table, ownerColumn)) await trx.raw(statement);
  await trx.raw(`INSERT INTO _basalt_counted (table_name, owner_column) VALUES (?, ?)`, [table, ownerColumn ?? '']);
}

/** Takes a table's counting off (its owner column goes): the installer counts it afresh for the table as it is then. */
export async function stopCounting(trx: Knex.Transaction, table: string): Promise<void> {
  for (const statement of dropCountTriggers(table)) await trx.raw(statement);
  await trx.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
}
