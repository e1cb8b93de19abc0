import type { Knex } from 'knex';

/**
 * Realtime capture (docs/realtime.md): a change log written by statement-level triggers in the writing transaction,
 * read by every process in commit-safe windows of transaction ids.
 *
 * - `xid` is the writing transaction's id (64-bit, no wraparound). A reader takes the changes whose `xid` lies below
 *   the oldest transaction still running (`pg_snapshot_xmin`): all of those have ended, so none can still appear
 *   behind the reader, and ordering by (xid, id) gives every process the same order. That pair is the event id.
 * - One log row per statement: `record` is the array of the rows as written (`to_jsonb`), or as they were for a
 *   delete (so filters match them), so a bulk insert of 1,000 rows writes one log row, not 1,000. A change's place is
 *   (xid, id, its index in that array).
 * - `_basalt_changes_trimmed` remembers up to which transaction changes were deleted (older than the retention), so a
 *   resume from before it is answered with `reset`.
 * - The trigger function is SECURITY DEFINER: a write by any role that may write the table is captured.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_changes (
      id bigserial,
      xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
      table_name text NOT NULL,
      op "char" NOT NULL,
      record jsonb,
      at timestamptz NOT NULL DEFAULT now(),
      -- The one btree: readers scan by (xid, id); a second one on id alone would only cost every write.
      PRIMARY KEY (xid, id)
    )`);
  await knex.raw(`CREATE INDEX _basalt_changes_at_idx ON _basalt_changes USING brin (at)`);
  await knex.raw(`
    CREATE TABLE _basalt_changes_trimmed (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      xid xid8 NOT NULL
    )`);
  await knex.raw(`INSERT INTO _basalt_changes_trimmed (id, xid) VALUES (true, '0'::xid8)`);
  await knex.raw(CAPTURE_FUNCTION);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_capture() CASCADE`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_changes_trimmed`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_changes`);
}

/** The capture function as this migration made it (the `write_tracking` migration replaces it; its down puts it back). */
export const CAPTURE_FUNCTION = `
    CREATE FUNCTION _basalt_capture() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO public._basalt_changes (table_name, op, record)
        SELECT TG_TABLE_NAME, 'i', jsonb_agg(to_jsonb(n)) FROM _basalt_new n HAVING count(*) > 0;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public._basalt_changes (table_name, op, record)
        SELECT TG_TABLE_NAME, 'u', jsonb_agg(to_jsonb(n)) FROM _basalt_new n HAVING count(*) > 0;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO public._basalt_changes (table_name, op, record)
        SELECT TG_TABLE_NAME, 'd', jsonb_agg(to_jsonb(o)) FROM _basalt_old o HAVING count(*) > 0;
      ELSE
        INSERT INTO public._basalt_changes (table_name, op) VALUES (TG_TABLE_NAME, 't');
      END IF;
      RETURN NULL;
    END $$`;
