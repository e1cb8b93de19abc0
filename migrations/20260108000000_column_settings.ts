import type { Knex } from 'knex';

/**
 * Settings of columns that Postgres has no place for (issue 24): `read_only`, a column that `/api` writes may not set
 * (the owner's record routes and SQL can: a user edits their profile but not its `plan`). A row exists only for a
 * column with a setting; the admin API deletes a table's or column's rows when it drops them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_columns (
      table_name text NOT NULL,
      column_name text NOT NULL,
      read_only boolean NOT NULL DEFAULT false,
      PRIMARY KEY (table_name, column_name)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_columns`);
}
