import type { Knex } from 'knex';

/**
 * The schema version as record reads check it: a sequence that mirrors the `_basalt_schema` row, set when a change of
 * the row commits. A read statement gets it with `pg_sequence_last_value`, which opens no table; reading the row in
 * every read was about 15% of Postgres's time for a get by id (pgbench; docs/performance.md).
 *
 * The row stays the truth (the schema cache records the row's version, read in the same snapshot as the catalog; write
 * statements compare against the row, transactionally). The sequence is set by a deferred constraint trigger, so only
 * at commit: a change that rolls back never moves it, and no reader can see the new version long before the change is
 * visible. It may run a moment ahead of the row (between the trigger and the commit), never behind it: a read that
 * sees it ahead reloads the cache and answers again, which is what the version check is for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE SEQUENCE _basalt_schema_published AS bigint MINVALUE 0`);
  await knex.raw(`SELECT setval('_basalt_schema_published', (SELECT version FROM _basalt_schema))`);
  // SECURITY DEFINER: DDL by another role (through the event trigger) publishes its change as well.
  await knex.raw(`
    CREATE FUNCTION _basalt_publish_schema_version() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    BEGIN
      PERFORM setval('public._basalt_schema_published', NEW.version);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER _basalt_publish_schema_version AFTER UPDATE ON _basalt_schema
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION _basalt_publish_schema_version()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS _basalt_publish_schema_version ON _basalt_schema`);
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_publish_schema_version()`);
  await knex.raw(`DROP SEQUENCE IF EXISTS _basalt_schema_published`);
}
