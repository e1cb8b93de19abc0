import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testAdminUrl } from '../../test-support/postgres.js';
import { createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * A service whose database role does not own every table (a managed Postgres, a table made by another team): the
 * capture triggers cannot go on such a table, and its description says so instead of anything failing.
 */

const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const role = `basalt_role_${suffix}`;
// The throw-away PostgreSQL `npm test` starts without TEST_DATABASE_URL asks for passwords (a trust server ignores it).
const password = randomBytes(12).toString('hex');
const database = `basalt_role_db_${suffix}`;
let h: Harness | undefined;
let owner: Account;

async function asAdmin(sql: string, url = testAdminUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const on = (url: string, name: string, user?: string) => {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  if (user) {
    parsed.username = user;
    parsed.password = password;
  }
  return parsed.toString();
};

beforeAll(async () => {
  await asAdmin(`CREATE ROLE "${role}" LOGIN NOSUPERUSER PASSWORD '${password}'`);
  await asAdmin(`CREATE DATABASE "${database}" OWNER "${role}"`);
  // Made by another role, which lets the service read and write it, but not put triggers on it.
  await asAdmin(`CREATE TABLE other_team (id text PRIMARY KEY, label text); GRANT SELECT, INSERT, UPDATE, DELETE ON other_team TO "${role}"`, on(testAdminUrl(), database));
  const url = on(testAdminUrl(), database, role);
  h = await startHarness({ database: { url, name: database, drop: async () => undefined } });
  owner = await signUp(h);
  await createTable(h, owner, { name: 'ours', columns: [{ name: 'label', type: 'text' }] });
});

afterAll(async () => {
  await h?.close();
  await asAdmin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await asAdmin(`DROP ROLE IF EXISTS "${role}"`);
});

it('describes a table the service may not put triggers on as not captured, saying why, and serves it all the same', async () => {
  await h!.request().post('/admin/tables/ours/records').set(owner.auth).send({ label: 'x' });
  const theirs = await h!.request().get('/admin/tables/other_team').set(owner.auth);
  expect(theirs.status).toBe(200);
  expect(theirs.body.data.realtime).toEqual({ captured: false, streamed: false, problem: expect.stringContaining('does not own this table') });
  const ours = await h!.request().get('/admin/tables/ours').set(owner.auth);
  expect(ours.body.data.realtime).toEqual({ captured: true, streamed: false });
  expect((await h!.request().post('/admin/tables/other_team/records').set(owner.auth).send({ id: 't1', label: 'still served' })).status).toBe(201);
});
