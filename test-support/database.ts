import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testAdminUrl } from './postgres.js';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testAdminUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database of its own for one test file, so test files run in parallel safely. */
export async function createTestDatabase(prefix = 'basalt_test'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await onAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    url: withDatabase(testAdminUrl(), name),
    drop: () => onAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
