import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * Issue 22, item 7: the owner column's index is on (owner, id), so an owner-scoped first page is a range of it in
 * order whatever the statistics say; tables made before keep working while their old index is rebuilt at start-up.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness | undefined;
let owner: Account;
let member: Account;

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database });
  owner = await signUp(a);
  member = await signUp(a);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

const indexesOf = async (h: Harness, table: string) =>
  (
    await h.services.knex.raw<{ rows: Array<{ name: string; definition: string; valid: boolean }> }>(
      `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS definition, x.indisvalid AS valid
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = ?::regclass AND NOT x.indisprimary ORDER BY i.relname`,
      [table],
    )
  ).rows;

describe('owner-column indexes', () => {
  it('are made on (owner, id) with a table, and with an owner column added later', async () => {
    await createTable(a, owner, { name: 'tasks', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
    await createTable(a, owner, { name: 'later', columns: [{ name: 'title', type: 'text' }] });
    expect((await a.request().post('/admin/tables/later/columns').set(owner.auth).send({ name: 'userId', type: 'text' })).status).toBe(201);
    expect(await indexesOf(a, 'tasks')).toEqual([{ name: 'tasks_user_id_id_index', definition: expect.stringContaining('(user_id, id)'), valid: true }]);
    expect(await indexesOf(a, 'later')).toEqual([{ name: 'later_userId_id_index', definition: expect.stringContaining('("userId", id)'), valid: true }]);
  });

  it("serve a member's first page as an ordered range on a table never analysed: no sort, whatever the statistics", async () => {
    await createTable(a, owner, { name: 'bulk', columns: [{ name: 'user_id', type: 'text' }, { name: 'n', type: 'integer' }] });
    const sql = await a.sql();
    await sql.query(`ALTER TABLE bulk SET (autovacuum_enabled = false)`);
    await sql.query(`INSERT INTO bulk (id, user_id, n) SELECT md5(i::text), CASE WHEN i % 8 < 5 THEN $1 ELSE $2 END, i FROM generate_series(1, 20000) i`, [member.id, owner.id]);
    const plan = await sql.query<{ 'QUERY PLAN': Array<{ Plan: unknown }> }>(`EXPLAIN (FORMAT JSON) SELECT * FROM bulk WHERE user_id = '${member.id}' ORDER BY id LIMIT 21`);
    const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
    expect(text).toContain('bulk_user_id_id_index');
    expect(text).not.toContain('"Node Type":"Sort"');
    const page = await a.request().get('/api/bulk?limit=20').set(member.auth);
    expect(page.body.total).toBe(12500);
    expect(page.body.data).toHaveLength(20);
  });

  it('of tables made before are rebuilt at start-up, concurrently, an interrupted build cleaned up, the old index dropped', async () => {
    await createTable(a, owner, { name: 'legacy', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
    const sql = await a.sql();
    // The state an earlier version left: the index on the owner alone, and (a build that failed) an invalid index
    // under the new name.
    await sql.query(`DROP INDEX legacy_user_id_id_index`);
    await sql.query(`CREATE INDEX legacy_user_id_index ON legacy (user_id)`);
    await sql.query(`INSERT INTO legacy (id, user_id, title) VALUES ('a', $1, 'same'), ('b', $1, 'same')`, [member.id]);
    await expect(sql.query(`CREATE UNIQUE INDEX CONCURRENTLY legacy_user_id_id_index ON legacy (title)`)).rejects.toThrow();
    expect((await indexesOf(a, 'legacy')).map((index) => [index.name, index.valid])).toEqual([
      ['legacy_user_id_id_index', false],
      ['legacy_user_id_index', true],
    ]);
    b = await startHarness({ database });
    await b.services.ownerIndexes.settled();
    expect(await indexesOf(b, 'legacy')).toEqual([{ name: 'legacy_user_id_id_index', definition: expect.stringContaining('(user_id, id)'), valid: true }]);
    // Nothing left to do: a second start rebuilds nothing and the table serves as before.
    const again = await startHarness({ database });
    await again.services.ownerIndexes.settled();
    await again.close();
    expect((await b.request().get('/api/legacy').set(member.auth)).body.total).toBe(2);
  });
});
