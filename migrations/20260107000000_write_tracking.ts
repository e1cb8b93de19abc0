import type { Knex } from 'knex';
import { CAPTURE_FUNCTION } from './20260105000000_changes.js';
import { COUNT_FUNCTION } from './20260106000000_counts.js';

/**
 * One trigger per write for change capture and maintained counts (issue 22, server/src/tracking/).
 *
 * Before: a capture trigger and a count trigger per statement, the count one running `EXECUTE format(...)` (parsed and
 * planned anew on every write), and both naming the transition table's row by an alias (`to_jsonb(n)`) that a column
 * named `n` or `o` shadowed: such a table's changes were logged as `[2]` or `[null]` instead of rows.
 *
 * Now `_basalt_track()` does both jobs in one statement per write: it reads the transition table once (`to_jsonb(w.*)`,
 * a whole-row reference no column name can shadow), writes the statement's one change-log row and its count deltas
 * from that. Its plan is cached like any static statement. TG_ARGV[0] is the owner column ('' for none).
 *
 * It is SECURITY DEFINER (a write by any role that may write the table is tracked) without a `SET search_path`: that
 * clause costs every write a change of the setting and back (about a fifth of the trigger's time, measured). Instead
 * every name it uses is one the caller's search_path cannot redirect: tables and functions schema-qualified,
 * operators written `OPERATOR(pg_catalog.x)`, the transition tables named by the trigger itself.
 *
 * The triggers of every table that had the old ones are replaced here, with the owner column their counts were kept
 * for; `_basalt_counted` stays as it is, since the counts do not change meaning.
 */

const TRACK = `
  CREATE FUNCTION _basalt_track() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER AS $$
  DECLARE
    owner_column text := TG_ARGV[0];
  BEGIN
    IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
      WITH written AS (SELECT pg_catalog.to_jsonb(w.*) AS basalt_row FROM _basalt_new w),
           logged AS (
             INSERT INTO public._basalt_changes (table_name, op, record)
             SELECT TG_TABLE_NAME, 'i', pg_catalog.jsonb_agg(basalt_row) FROM written HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0)
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, pg_catalog.count(*)
        FROM written CROSS JOIN LATERAL (VALUES ('*'), (basalt_row OPERATOR(pg_catalog.->>) owner_column)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
      WITH removed AS (SELECT pg_catalog.to_jsonb(w.*) AS basalt_row FROM _basalt_old w),
           logged AS (
             INSERT INTO public._basalt_changes (table_name, op, record)
             SELECT TG_TABLE_NAME, 'd', pg_catalog.jsonb_agg(basalt_row) FROM removed HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0)
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, OPERATOR(pg_catalog.-) pg_catalog.count(*)
        FROM removed CROSS JOIN LATERAL (VALUES ('*'), (basalt_row OPERATOR(pg_catalog.->>) owner_column)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
      -- Counts move between owners in the row trigger _basalt_count_owner(), only when an update changes the owner.
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'u', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_new w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSE
      INSERT INTO public._basalt_changes (table_name, op) VALUES (TG_TABLE_NAME, 't');
      -- Waits for a fold under way: its sum row is then visible to this delete, so nothing survives the TRUNCATE.
      PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('basalt counts fold'));
      DELETE FROM public._basalt_counts WHERE table_name OPERATOR(pg_catalog.=) TG_TABLE_NAME;
    END IF;
    RETURN NULL;
  END $$`;

/** The trigger set of one table; server/src/tracking/triggers.ts makes the same (kept in step by its tests). */
function triggers(table: string, owner: string): string[] {
  const name = `"${table.replace(/"/g, '""')}"`;
  const argument = `'${owner.replace(/'/g, "''")}'`;
  const statements = [
    `CREATE TRIGGER _basalt_track_i AFTER INSERT ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_u AFTER UPDATE ON ${name} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_d AFTER DELETE ON ${name} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
    `CREATE TRIGGER _basalt_track_t AFTER TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_track(${argument})`,
  ];
  if (owner) {
    const column = `"${owner.replace(/"/g, '""')}"`;
    statements.push(
      `CREATE TRIGGER _basalt_track_o AFTER UPDATE OF ${column} ON ${name} FOR EACH ROW ` +
        `WHEN (OLD.${column} IS DISTINCT FROM NEW.${column}) EXECUTE FUNCTION _basalt_count_owner(${argument})`,
    );
  }
  return statements;
}

export async function up(knex: Knex): Promise<void> {
  // Every public table with either of the old trigger sets, and the owner column its counts were kept for.
  const tracked = await knex.raw<{ rows: Array<{ table_name: string; owner: string | null }> }>(`
    SELECT c.relname AS table_name,
           max(split_part(encode(t.tgargs, 'escape'), '\\000', 1)) FILTER (WHERE t.tgname = '_basalt_count_i') AS owner
      FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid AND c.relnamespace = 'public'::regnamespace
     WHERE t.tgname IN ('_basalt_capture_i', '_basalt_count_i')
     GROUP BY c.relname`);
  // CASCADE drops the old triggers with their functions (capture i/u/d/t, count i/d/t); the owner-move row triggers
  // use _basalt_count_owner(), which stays, and are renamed below.
  await knex.raw(`DROP FUNCTION _basalt_capture() CASCADE`);
  await knex.raw(`DROP FUNCTION _basalt_count() CASCADE`);
  await knex.raw(TRACK);
  for (const { table_name: table, owner } of tracked.rows) {
    const name = `"${table.replace(/"/g, '""')}"`;
    await knex.raw(`DROP TRIGGER IF EXISTS _basalt_count_u ON ${name}`);
    for (const statement of triggers(table, owner ?? '')) await knex.raw(statement);
    // A table that was captured but not yet counted: the installer counts it (and corrects the owner column).
    if (owner === null) await knex.raw(`DELETE FROM _basalt_counted WHERE table_name = ?`, [table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  // Back to the two functions of before, with the tables they covered uncounted: the earlier version's installers
  // put their triggers on again and count each table afresh.
  const tables = await knex.raw<{ rows: Array<{ table_name: string }> }>(
    `SELECT DISTINCT c.relname AS table_name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = '_basalt_track_o'`,
  );
  for (const { table_name: table } of tables.rows) await knex.raw(`DROP TRIGGER _basalt_track_o ON "${table.replace(/"/g, '""')}"`);
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_track() CASCADE`);
  await knex.raw(CAPTURE_FUNCTION);
  await knex.raw(COUNT_FUNCTION);
  await knex.raw(`DELETE FROM _basalt_counted`);
}
