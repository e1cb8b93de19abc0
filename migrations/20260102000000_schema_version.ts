import type { Knex } from 'knex';

/**
 * One row holding the schema version: bumped in the same transaction as every change of tables or policies (and by
 * the DDL event trigger where it is installed). Record statements carry the version their process planned with, so a
 * process that has not yet reloaded never answers from an old schema or policy.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_schema (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      version bigint NOT NULL DEFAULT 1
    )`);
  await knex.raw(`INSERT INTO _basalt_schema (id, version) VALUES (true, 1)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_schema`);
}
