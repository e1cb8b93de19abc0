import type { Knex } from 'knex';

/**
 * Maintained exact counts (docs/performance.md, "Exact totals in constant time"): the rows of each table, and of each
 * owner in tables with an owner column, kept as delta rows written by triggers in the writing transaction.
 *
 * - `_basalt_counts`: (table, scope, n) where scope `*` is the whole table and any other scope is an owner's id. A
 *   statement adds one row per scope it changed (+ inserted, - deleted), so concurrent writers only ever insert and
 *   never wait on each other; a background fold (server/src/counts/fold.ts) replaces a scope's rows by their sum in
 *   one statement. The count a snapshot sees is the sum of the rows it sees: exact at every snapshot.
 * - `_basalt_counted`: the tables whose counts are complete, with the owner column they were kept for. A table is in
 *   it once its first count is in (counts/install.ts), and readers use the counts only then.
 * - `_basalt_count()`: the statement-level trigger of inserts, deletes and TRUNCATE; TG_ARGV[0] is the owner column
 *   ('' for none). `_basalt_count_owner()`: a row-level trigger that runs only when an update changes the owner
 *   column (`WHEN (OLD.col IS DISTINCT FROM NEW.col)` is checked without calling it), moving the row between owners.
 * - Both are SECURITY DEFINER: a write by any role that may write the table is counted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_counts (
      table_name text NOT NULL,
      scope text NOT NULL,
      n bigint NOT NULL
    )`);
  await knex.raw(`CREATE INDEX _basalt_counts_idx ON _basalt_counts (table_name, scope)`);
  await knex.raw(`
    CREATE TABLE _basalt_counted (
      table_name text PRIMARY KEY,
      owner_column text NOT NULL DEFAULT ''
    )`);
  await knex.raw(COUNT_FUNCTION);
  await knex.raw(`
    CREATE FUNCTION _basalt_count_owner() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    DECLARE
      before text := to_jsonb(OLD) ->> TG_ARGV[0];
      after text := to_jsonb(NEW) ->> TG_ARGV[0];
    BEGIN
      INSERT INTO public._basalt_counts (table_name, scope, n)
      SELECT TG_TABLE_NAME, moved.scope, moved.n FROM (VALUES (before, -1), (after, 1)) moved(scope, n) WHERE moved.scope IS NOT NULL;
      RETURN NULL;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_count_owner() CASCADE`);
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_count() CASCADE`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_counted`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_counts`);
}

/** The count function as this migration made it (the `write_tracking` migration replaces it; its down puts it back). */
export const COUNT_FUNCTION = `
    CREATE FUNCTION _basalt_count() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    DECLARE
      owner_column text := TG_ARGV[0];
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        -- Waits for a fold under way: its sum row is then visible to this delete, so nothing survives the TRUNCATE.
        PERFORM pg_advisory_xact_lock(hashtext('basalt counts fold'));
        DELETE FROM public._basalt_counts WHERE table_name = TG_TABLE_NAME;
      ELSIF owner_column = '' THEN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO public._basalt_counts (table_name, scope, n) SELECT TG_TABLE_NAME, '*', count(*) FROM _basalt_new HAVING count(*) > 0;
        ELSE
          INSERT INTO public._basalt_counts (table_name, scope, n) SELECT TG_TABLE_NAME, '*', -count(*) FROM _basalt_old HAVING count(*) > 0;
        END IF;
      ELSIF TG_OP = 'INSERT' THEN
        EXECUTE format(
          'INSERT INTO public._basalt_counts (table_name, scope, n) '
          'SELECT $1, s.scope, count(*) FROM _basalt_new r CROSS JOIN LATERAL (VALUES (''*''), (r.%I::text)) s(scope) '
          'WHERE s.scope IS NOT NULL GROUP BY s.scope', owner_column) USING TG_TABLE_NAME;
      ELSE
        EXECUTE format(
          'INSERT INTO public._basalt_counts (table_name, scope, n) '
          'SELECT $1, s.scope, -count(*) FROM _basalt_old r CROSS JOIN LATERAL (VALUES (''*''), (r.%I::text)) s(scope) '
          'WHERE s.scope IS NOT NULL GROUP BY s.scope', owner_column) USING TG_TABLE_NAME;
      END IF;
      RETURN NULL;
    END $$`;
