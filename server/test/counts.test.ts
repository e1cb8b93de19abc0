import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test-support/wait.js';
import { VACUUM_AFTER_ROWS } from '../src/tracking/fold.js';
import { TRACKING_LOCK } from '../src/tracking/place.js';
import { createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Maintained exact counts (issue 16): lists without filters read them; they stay exact however the rows change. */

let h: Harness;
let owner: Account;
let member: Account;
let other: Account;
let sql: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  other = await signUp(h);
  sql = await h.sql();
});
afterAll(() => h?.close());

const total = async (path: string, account: Account) => {
  const response = await h.request().get(path).set(account.auth);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.total as number;
};
const kept = async (table: string, scope = '*') =>
  Number((await sql.query(`SELECT coalesce(sum(n), 0) AS n FROM _basalt_counts WHERE table_name = $1 AND scope = $2`, [table, scope])).rows[0].n);
const reloadSchema = async () => {
  await sql.query(`NOTIFY basalt, 'reload schema'`);
  await h.services.cache.reload();
  await h.services.counting.ensure();
};

describe('maintained counts', () => {
  it('count a table made by the admin API from its first row, whatever writes it: API, bulk, psql, COPY, deletes, TRUNCATE', async () => {
    await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
    expect(h.services.cache.served('notes')?.counted).toBe(true);
    await h.request().post('/api/notes').set(owner.auth).send({ title: 'one' }).expect(201);
    await h.request().post('/api/notes').set(owner.auth).send([{ title: 'two' }, { title: 'three' }]).expect(201);
    await sql.query(`INSERT INTO notes (id, title) SELECT 'g' || i, 'generated' FROM generate_series(1, 40) i`);
    await sql.query(`COPY notes (id) FROM PROGRAM 'seq 1 25'`);
    expect(await total('/api/notes', member)).toBe(68);
    // By title, not by an id prefix: the API's random ids (base64url) may start with any letter.
    await sql.query(`DELETE FROM notes WHERE title = 'generated' AND id <> 'g1'`);
    expect(await total('/api/notes?limit=1', member)).toBe(29);
    expect(await total('/admin/tables/notes/records', owner)).toBe(29);
    await h.services.folder.fold();
    expect(await total('/api/notes?count=estimated', member)).toBe(29);
    await sql.query('TRUNCATE notes');
    expect(await total('/api/notes', member)).toBe(0);
    expect(await kept('notes')).toBe(0);
  });

  it('are what an unfiltered list answers (a count row changed by hand shows), while a filtered list counts its rows', async () => {
    await h.request().post('/api/notes').set(owner.auth).send([{ title: 'a' }, { title: 'b' }]).expect(201);
    await sql.query(`INSERT INTO _basalt_counts (table_name, scope, n) VALUES ('notes', '*', 1000)`);
    expect(await total('/api/notes', member)).toBe(1002);
    expect(await total('/api/notes?title=a', member)).toBe(1);
    const tables = await h.request().get('/admin/tables/notes').set(owner.auth);
    expect(tables.body.data.rowCount).toEqual({ value: 1002, exact: true });
    await sql.query(`INSERT INTO _basalt_counts (table_name, scope, n) VALUES ('notes', '*', -1000)`);
    expect(await total('/api/notes', member)).toBe(2);
  });

  it('count each owner\'s rows of an owner-scoped table, also when the owner tools move a row to another owner', async () => {
    await createTable(h, owner, { name: 'todos', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] });
    await h.request().post('/api/todos').set(member.auth).send([{ title: 'm1' }, { title: 'm2' }, { title: 'm3' }]).expect(201);
    const mine = await h.request().post('/api/todos').set(other.auth).send({ title: 'o1' }).expect(201);
    expect(await total('/api/todos', member)).toBe(3);
    expect(await total('/api/todos', other)).toBe(1);
    // An upsert counts a row it creates, not one it updates.
    await h.request().put('/api/todos/put-made').set(member.auth).send({ title: 'by put' }).expect(201);
    await h.request().put('/api/todos/put-made').set(member.auth).send({ title: 'again' }).expect(200);
    expect(await total('/api/todos', member)).toBe(4);
    await h.request().delete('/api/todos/put-made').set(member.auth).expect(200);
    expect(await total('/admin/tables/todos/records', owner)).toBe(4);
    const moved = (await h.request().get('/api/todos?limit=1').set(member.auth)).body.data[0];
    await h.request().put(`/admin/tables/todos/records/${moved.id}`).set(owner.auth).send({ user_id: other.id }).expect(200);
    expect(await total('/api/todos', member)).toBe(2);
    expect(await total('/api/todos', other)).toBe(2);
    await sql.query(`UPDATE todos SET user_id = NULL WHERE id = $1`, [mine.body.data.id]);
    expect(await total('/api/todos', other)).toBe(1);
    expect(await total('/admin/tables/todos/records', owner)).toBe(4);
    await h.request().delete('/auth/me').set(member.auth).send({ password: 'correct horse' }).expect(200);
    expect(await total('/admin/tables/todos/records', owner)).toBe(2);
    expect(await kept('todos', member.id)).toBe(0);
  });

  it('start on a table made with psql that already holds rows, exact through writes made during its first count', async () => {
    await sql.query(`CREATE TABLE big (id bigserial PRIMARY KEY, user_id text REFERENCES users(id), v int)`);
    await sql.query(`INSERT INTO big (user_id, v) SELECT CASE WHEN i % 3 = 0 THEN $1 ELSE $2 END, i FROM generate_series(1, 200000) i`, [owner.id, other.id]);
    await sql.query(`NOTIFY basalt, 'reload schema'`);
    // Writes go on while the triggers go on and the first count runs.
    let writing = true;
    const writer = (async () => {
      const client = new pg.Client({ connectionString: h.database.url });
      await client.connect();
      while (writing) await client.query(`INSERT INTO big (user_id, v) VALUES ($1, 0)`, [other.id]);
      await client.end();
    })();
    await eventually(async () => expect(h.services.cache.served('big')?.counted).toBe(true), 20_000);
    writing = false;
    await writer;
    const actual = (await sql.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE user_id = $1)::int AS m FROM big`, [other.id])).rows[0];
    expect(await total('/admin/tables/big/records?limit=0', owner)).toBe(actual.n);
    expect(await total('/api/big?limit=0', other)).toBe(actual.m);
    // Another load finds the counts complete: no more triggers, no reload loop.
    const loads = h.services.cache.loadCount;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.services.cache.loadCount).toBe(loads);
  });

  it('count again for the owner column a table gains or loses', async () => {
    await createTable(h, owner, { name: 'later', policy: 'public-read', columns: [{ name: 'x', type: 'integer' }] });
    await h.request().post('/api/later').set(owner.auth).send([{ x: 1 }, { x: 2 }]).expect(201);
    await h.request().post('/admin/tables/later/columns').set(owner.auth).send({ name: 'user_id', type: 'text' }).expect(201);
    await h.services.counting.settled();
    await eventually(async () => expect(h.services.cache.served('later')?.counted).toBe(true));
    await h.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'owner-scoped' }).expect(200);
    await h.request().post('/api/later').set(other.auth).send({ x: 3 }).expect(201);
    expect(await total('/api/later', other)).toBe(1);
    expect(await total('/admin/tables/later/records', owner)).toBe(3);
    await h.request().delete('/admin/tables/later/columns/user_id').set(owner.auth).expect(200);
    await eventually(async () => expect(h.services.cache.served('later')?.counted).toBe(true));
    expect(await total('/admin/tables/later/records', owner)).toBe(3);
  });

  it('leave a table another process is counting to that process, without waiting on it, and look again later', async () => {
    await sql.query(`CREATE TABLE shared (id serial PRIMARY KEY, v int)`);
    await sql.query(`INSERT INTO shared (v) SELECT i FROM generate_series(1, 10) i`);
    const other = new pg.Client({ connectionString: h.database.url });
    await other.connect();
    await other.query('BEGIN');
    await other.query(`SELECT pg_advisory_xact_lock(hashtext('basalt counts'), hashtext('shared'))`);
    await h.services.cache.reload();
    // The run does not park behind the other transaction: it ends with the table left uncounted.
    await h.services.counting.ensure();
    expect(h.services.cache.served('shared')?.counted).toBe(false);
    await other.query('COMMIT');
    await other.end();
    await eventually(async () => expect(h.services.cache.served('shared')?.counted).toBe(true), 15_000);
    expect(await total('/admin/tables/shared/records', owner)).toBe(10);
  });

  it('hold writes back at most about a second when a long write is under way, and start once it ends', async () => {
    // The service's own tracking lock held while the table appears and the long write starts: the placement the
    // new table's DDL notification sets off cannot put the triggers on before the long write holds the table.
    const blocker = new pg.Client({ connectionString: h.database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(TRACKING_LOCK);
    await sql.query(`CREATE TABLE slow (id serial PRIMARY KEY, v int)`);
    const long = new pg.Client({ connectionString: h.database.url });
    await long.connect();
    await long.query('BEGIN');
    await long.query('INSERT INTO slow (v) VALUES (1)');
    await blocker.query('COMMIT');
    await blocker.end();
    await reloadSchema();
    const started = Date.now();
    await sql.query('INSERT INTO slow (v) VALUES (2)');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(h.services.cache.served('slow')?.counted).toBe(false);
    await long.query('COMMIT');
    await long.end();
    await eventually(async () => expect(h.services.cache.served('slow')?.counted).toBe(true), 15_000);
    expect(await total('/admin/tables/slow/records', owner)).toBe(2);
    await reloadSchema();
  });

  it('stay cheap to read after many writes: the folder vacuums the rows its folds delete (autovacuum may be off)', async () => {
    // Autovacuum off on the count rows, as on some machines: only the folder's VACUUM can clean them.
    await sql.query('ALTER TABLE _basalt_counts SET (autovacuum_enabled = false)');
    await createTable(h, owner, { name: 'busy', policy: 'public-read', columns: [{ name: 'v', type: 'integer' }] });
    // 20,000 statements, one count row each: the fold deletes them, past the point where it vacuums.
    await sql.query(`DO $$ BEGIN FOR i IN 1..${VACUUM_AFTER_ROWS * 4} LOOP INSERT INTO busy (id, v) VALUES ('b' || i, i); END LOOP; END $$`);
    await h.services.folder.fold();
    await h.services.folder.fold();
    expect(await total('/api/busy?limit=1', member)).toBe(VACUUM_AFTER_ROWS * 4);
    // Unvacuumed, the read walks the index entries the deleted rows left behind (18 pages or more here, and a bitmap
    // scan their heap pages too); vacuumed, one to three (six seen once with the whole suite running beside it). The
    // VACUUM skips a table another VACUUM holds (SKIP_LOCKED): this process's background folder may be the one at it.
    await eventually(async () => {
      const plan = (await sql.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT sum(n) FROM _basalt_counts WHERE table_name = 'busy' AND scope = '*'`)).rows[0]['QUERY PLAN'][0].Plan;
      expect(plan['Shared Hit Blocks'] + (plan['Shared Read Blocks'] ?? 0)).toBeLessThan(12);
    }, 10_000);
    await sql.query('ALTER TABLE _basalt_counts RESET (autovacuum_enabled)');
  });
});
