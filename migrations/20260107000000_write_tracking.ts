import type { Knex } from 'knex';
import { CAPTURE_FUNCTION } from './20260105000000_changes.js';
import { COUNT_FUNCTION } from './20260106000000_counts.js';

/**
 * What a write costs beyond itself (issue 22, server/src/tracking/): the count triggers on every write, the capture
 * triggers only while somebody streams the table.
 *
 * - `_basalt_count()` planned an `EXECUTE format(...)` on every write to a table with an owner column (about 130 us of
 *   Postgres CPU per one-row insert, measured): now a static statement, its plan cached like any other.
 * - Both functions named the transition table's row by an alias (`to_jsonb(n)`, `r.col`) that a column named `n`,
 *   `o` or `r` shadowed: such a table's changes were logged as `[2]` or `[null]` instead of rows. Now every row is a
 *   whole-row reference (`w.*`), which no column name can shadow.
 * - Both are SECURITY DEFINER (a write by any role that may write the table is counted and captured) without
 *   `SET search_path`: that clause made every write change the setting and back (about a fifth of the trigger's time,
 *   measured). Instead no name they use can be redirected by the caller's search_path: tables and functions are
 *   schema-qualified, operators written `OPERATOR(pg_catalog.x)`, the transition tables named by the trigger itself.
 * - `_basalt_streamed`: the tables somebody streams (a process keeps `until` ahead while it has a subscriber), and
 *   `since`, the transaction that last switched their capture on (a resume from before it may have missed changes).
 *   The capture triggers stay on every tracked table, disabled while nobody streams it (tracking/capture.ts); here
 *   they are disabled on every table, and the next stream of a table switches its capture on.
 *
 * The trigger names and arguments do not change, so no table's triggers are made again.
 */

const TRACKED = `SELECT DISTINCT c.relname AS table_name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   WHERE t.tgname = '_basalt_capture_i' AND c.relnamespace = 'public'::regnamespace`;
const CAPTURE_TRIGGERS = ['_basalt_capture_i', '_basalt_capture_u', '_basalt_capture_d', '_basalt_capture_t'];
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

export const CAPTURE = `
  CREATE OR REPLACE FUNCTION _basalt_capture() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER AS $$
  BEGIN
    IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'i', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_new w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'u', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_new w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'd', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_old w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSE
      INSERT INTO public._basalt_changes (table_name, op) VALUES (TG_TABLE_NAME, 't');
    END IF;
    RETURN NULL;
  END $$`;

export const COUNT = `
  CREATE OR REPLACE FUNCTION _basalt_count() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER AS $$
  DECLARE
    owner_column text := TG_ARGV[0];
  BEGIN
    IF TG_OP OPERATOR(pg_catalog.=) 'TRUNCATE' THEN
      -- Waits for a fold under way: its sum row is then visible to this delete, so nothing survives the TRUNCATE.
      PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('basalt counts fold'));
      DELETE FROM public._basalt_counts WHERE table_name OPERATOR(pg_catalog.=) TG_TABLE_NAME;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, pg_catalog.count(*)
        FROM _basalt_new w CROSS JOIN LATERAL (VALUES ('*'), (CASE WHEN owner_column OPERATOR(pg_catalog.<>) '' THEN pg_catalog.to_jsonb(w.*) OPERATOR(pg_catalog.->>) owner_column END)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    ELSE
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, OPERATOR(pg_catalog.-) pg_catalog.count(*)
        FROM _basalt_old w CROSS JOIN LATERAL (VALUES ('*'), (CASE WHEN owner_column OPERATOR(pg_catalog.<>) '' THEN pg_catalog.to_jsonb(w.*) OPERATOR(pg_catalog.->>) owner_column END)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    END IF;
    RETURN NULL;
  END $$`;

/**
 * The count functions of the two owner columns the service knows (`user_id`, `userId`: contract/src/names.ts), with
 * the column named in the statement: the generic `_basalt_count()` reads it out of `to_jsonb` of the whole row, which
 * formats every column (timestamps are the dear part) to find one; the named column costs nothing (a one-row insert
 * about 20 us less of Postgres CPU, a 100-row one 200 us, measured). The argument stays, for the schema cache to read.
 */
export const OWNER_COUNT_FUNCTIONS = { user_id: '_basalt_count_user_id', userId: '"_basalt_count_userId"' } as const;

const ownerCount = (column: keyof typeof OWNER_COUNT_FUNCTIONS) => `
  CREATE OR REPLACE FUNCTION ${OWNER_COUNT_FUNCTIONS[column]}() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER AS $$
  BEGIN
    IF TG_OP OPERATOR(pg_catalog.=) 'TRUNCATE' THEN
      PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('basalt counts fold'));
      DELETE FROM public._basalt_counts WHERE table_name OPERATOR(pg_catalog.=) TG_TABLE_NAME;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, pg_catalog.count(*)
        FROM _basalt_new w CROSS JOIN LATERAL (VALUES ('*'), (w.${quoted(column)}::pg_catalog.text)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    ELSE
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, s.scope, OPERATOR(pg_catalog.-) pg_catalog.count(*)
        FROM _basalt_old w CROSS JOIN LATERAL (VALUES ('*'), (w.${quoted(column)}::pg_catalog.text)) s(scope)
       WHERE s.scope IS NOT NULL GROUP BY s.scope;
    END IF;
    RETURN NULL;
  END $$`;

/** The statement count triggers of a table, on the function for its owner column (the generic one for others). */
const COUNTED_WITH_OWNER = `SELECT c.relname AS table_name, split_part(encode(t.tgargs, 'escape'), '\\000', 1) AS owner
                              FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                             WHERE t.tgname = '_basalt_count_i' AND c.relnamespace = 'public'::regnamespace`;

async function recreateCountTriggers(knex: Knex, specific: boolean): Promise<void> {
  const tables = await knex.raw<{ rows: Array<{ table_name: string; owner: string }> }>(COUNTED_WITH_OWNER);
  for (const { table_name: table, owner } of tables.rows) {
    if (owner !== 'user_id' && owner !== 'userId') continue;
    const fn = specific ? OWNER_COUNT_FUNCTIONS[owner] : '_basalt_count';
    const argument = `'${owner}'`;
    for (const [kind, event, transition] of [
      ['i', 'INSERT', 'NEW TABLE AS _basalt_new'],
      ['d', 'DELETE', 'OLD TABLE AS _basalt_old'],
      ['t', 'TRUNCATE', null],
    ] as const) {
      await knex.raw(`DROP TRIGGER _basalt_count_${kind} ON ${quoted(table)}`);
      await knex.raw(
        `CREATE TRIGGER _basalt_count_${kind} AFTER ${event} ON ${quoted(table)} ${transition ? `REFERENCING ${transition} ` : ''}FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${argument})`,
      );
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CAPTURE);
  await knex.raw(COUNT);
  await knex.raw(ownerCount('user_id'));
  await knex.raw(ownerCount('userId'));
  await recreateCountTriggers(knex, true);
  await knex.raw(`
    CREATE TABLE _basalt_streamed (
      table_name text PRIMARY KEY,
      since xid8 NOT NULL DEFAULT '0',
      until timestamptz NOT NULL
    )`);
  const tables = await knex.raw<{ rows: Array<{ table_name: string }> }>(TRACKED);
  for (const { table_name: table } of tables.rows) {
    for (const trigger of CAPTURE_TRIGGERS) await knex.raw(`ALTER TABLE ${quoted(table)} DISABLE TRIGGER ${trigger}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(CAPTURE_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
  await knex.raw(COUNT_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
  const tables = await knex.raw<{ rows: Array<{ table_name: string }> }>(TRACKED);
  for (const { table_name: table } of tables.rows) {
    for (const trigger of CAPTURE_TRIGGERS) await knex.raw(`ALTER TABLE ${quoted(table)} ENABLE TRIGGER ${trigger}`);
  }
  await knex.raw(`DROP TABLE _basalt_streamed`);
  await recreateCountTriggers(knex, false);
  for (const fn of Object.values(OWNER_COUNT_FUNCTIONS)) await knex.raw(`DROP FUNCTION ${fn}()`);
}
