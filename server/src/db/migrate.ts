import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { PROJECT_ROOT } from '../config.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

// The built service loads the compiled migrations; tests that run the TypeScript sources load them as they are.
const runningFromSource = import.meta.url.endsWith('.ts');
const MIGRATIONS_DIR = runningFromSource ? path.join(PROJECT_ROOT, 'migrations') : path.join(PROJECT_ROOT, 'migrations/dist');
const EXTENSION = runningFromSource ? '.ts' : '.js';

/** Lists `migrations/` itself, so the migration names are the same whether they run compiled or from source. */
class ProjectMigrations implements Knex.MigrationSource<string> {
  async getMigrations(): Promise<string[]> {
    const files = await fs.readdir(MIGRATIONS_DIR);
    return files.filter((file) => file.endsWith(EXTENSION) && !file.endsWith('.d.ts')).sort();
  }

  getMigrationName(file: string): string {
    return file.slice(0, -EXTENSION.length);
  }

  async getMigration(file: string): Promise<Migration> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
  }
}

/**
 * Brings the system tables up to date. Knex's bookkeeping tables start with `_`, so the record API never serves them.
 */
export async function migrate(knex: Knex): Promise<void> {
  // Several processes may start at once: knex's lock table serialises them (see prepareWithRetries for the rest).
  await knex.migrate.latest(SETTINGS);
}

/**
 * Runs `prepare` (migrations, the DDL trigger) again when it loses a race with another process starting on the same
 * database at the same moment: two first starts both create knex's bookkeeping tables (one gets 23505 on the catalog's
 * unique index, or 42P07), or replace the same function ("tuple concurrently updated"). The second try finds the work
 * done or waits on knex's lock. Anything else, or the fifth failure, is thrown.
 */
export async function prepareWithRetries(prepare: () => Promise<void>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await prepare();
    } catch (error) {
      const { code, name, message } = (error ?? {}) as { code?: string; name?: string; message?: string };
      const raced = code === '23505' || code === '42P07' || code === '42710' || code === 'XX000' || name === 'LockError' || /concurrently|already locked/i.test(message ?? '');
      if (!raced || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 200));
    }
  }
}

const SETTINGS = { migrationSource: new ProjectMigrations(), tableName: '_migrations' };

/** Applies the migrations up to and including `last` only: a database as an older version left it (upgrade tests). */
export async function migrateUpTo(knex: Knex, last: string): Promise<void> {
  for (;;) {
    const [done, pending] = (await knex.migrate.list(SETTINGS)) as [Array<{ name: string }>, Array<{ file: string }>];
    if (done.some((migration) => migration.name === last)) return;
    if (pending.length === 0) throw new Error(`no migration named ${last}`);
    await knex.migrate.up(SETTINGS);
  }
}

/** Undoes the applied migrations down to and including `name` (downgrade tests). */
export async function migrateDownThrough(knex: Knex, name: string): Promise<void> {
  for (;;) {
    const [done] = (await knex.migrate.list(SETTINGS)) as [Array<{ name: string }>, unknown[]];
    if (!done.some((migration) => migration.name === name)) return;
    await knex.migrate.down(SETTINGS);
  }
}
