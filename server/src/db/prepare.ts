import type { Knex } from 'knex';
import pg from 'pg';
import { migrate, prepareWithRetries } from './migrate.js';
import { installDdlTrigger } from './notifications.js';

/** hashtext('basalt prepare'), computed by Postgres: one key every Basalt process agrees on. */
const LOCK = `SELECT pg_advisory_lock(hashtext('basalt prepare'))`;
const UNLOCK = `SELECT pg_advisory_unlock(hashtext('basalt prepare'))`;

/**
 * Migrations and the DDL trigger, one process at a time: processes starting together on one database (several
 * machines, a scaled deployment) queue on a session advisory lock held on a connection of its own (`url`: a session
 * connection, DATABASE_LISTEN_URL behind a pooler), so the next finds the work done. Without it, knex's lock row made
 * the second process exit ("Migration table is already locked") when a migration runs outside a transaction, and two
 * first starts raced creating knex's own tables. The retries stay for what the lock cannot cover.
 */
export async function prepareDatabase(knex: Knex, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(LOCK);
    await prepareWithRetries(async () => {
      await migrate(knex);
      await installDdlTrigger(knex);
    });
    await client.query(UNLOCK);
  } finally {
    await client.end();
  }
}
