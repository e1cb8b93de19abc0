import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { createKnex } from '../src/db/knex.js';
import { migrate, migrateDownThrough, migrateUpTo } from '../src/db/migrate.js';
import { startHarness, type Harness } from './harness.js';

/**
 * The `write_tracking` migration on a database an earlier version left behind: the capture and count functions (whose
 * aliases a column named `n` or `o` shadowed, and whose count planned an EXECUTE on every write) are replaced in
 * place, every table keeps its triggers with capture switched off until streamed, the counts stay complete and exact,
 * and the service then serves the tables as before.
 */

let database: TestDatabase;
let knex: Knex;
let h: Harness | undefined;

// What the earlier installers put on a table (realtime/capture.ts and counts/triggers.ts before this change).
const OLD_TRIGGERS = (table: string, owner: string) => [
  `CREATE TRIGGER _basalt_capture_i AFTER INSERT ON ${table} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  `CREATE TRIGGER _basalt_capture_u AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  `CREATE TRIGGER _basalt_capture_d AFTER DELETE ON ${table} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  `CREATE TRIGGER _basalt_capture_t AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`,
  `CREATE TRIGGER _basalt_count_i AFTER INSERT ON ${table} REFERENCING NEW TABLE AS _basalt_new FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
  `CREATE TRIGGER _basalt_count_d AFTER DELETE ON ${table} REFERENCING OLD TABLE AS _basalt_old FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
  `CREATE TRIGGER _basalt_count_t AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_count('${owner}')`,
  ...(owner
    ? [`CREATE TRIGGER _basalt_count_u AFTER UPDATE OF ${owner} ON ${table} FOR EACH ROW WHEN (OLD.${owner} IS DISTINCT FROM NEW.${owner}) EXECUTE FUNCTION _basalt_count_owner('${owner}')`]
    : []),
];

const triggersOf = async (table: string) =>
  (await knex.raw<{ rows: Array<{ tgname: string }> }>(`SELECT tgname FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal ORDER BY tgname`, [table])).rows.map((row) => row.tgname);
const countFunctionOf = async (table: string) =>
  (await knex.raw<{ rows: Array<{ fn: string }> }>(`SELECT tgfoid::regproc::text AS fn FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = '_basalt_count_i'`, [table])).rows[0]?.fn;
const kept = async (table: string) =>
  Object.fromEntries(
    (await knex.raw<{ rows: Array<{ scope: string; n: string }> }>(`SELECT scope, sum(n)::text AS n FROM _basalt_counts WHERE table_name = ? GROUP BY scope HAVING sum(n) <> 0`, [table])).rows.map((row) => [row.scope, Number(row.n)]),
  );

beforeAll(async () => {
  database = await createTestDatabase();
  knex = createKnex(database.url);
  await migrateUpTo(knex, '20260106000000_counts');
  await knex.raw(`INSERT INTO users (id, email, password_hash, role) VALUES ('u1', 'a@b.test', 'x', 'owner'), ('u2', 'c@d.test', 'x', 'member')`);
  await knex.raw(`CREATE TABLE tasks (id text PRIMARY KEY, user_id text REFERENCES users (id) ON DELETE CASCADE, n integer, o text)`);
  await knex.raw(`CREATE TABLE plain (id text PRIMARY KEY, label text)`);
  for (const statement of [...OLD_TRIGGERS('tasks', 'user_id'), ...OLD_TRIGGERS('plain', '')]) await knex.raw(statement);
  await knex.raw(`INSERT INTO _basalt_counted (table_name, owner_column) VALUES ('tasks', 'user_id'), ('plain', '')`);
  await knex.raw(`INSERT INTO tasks (id, user_id, n, o) VALUES ('t1', 'u1', 1, 'a'), ('t2', 'u1', 2, 'b'), ('t3', 'u2', 3, 'c')`);
  await knex.raw(`INSERT INTO plain (id, label) VALUES ('p1', 'x')`);
});
afterAll(async () => {
  await h?.close();
  await knex?.destroy();
  await database?.drop();
});

describe('the write_tracking migration', () => {
  it('logged the old way before: the values of column n, not rows', async () => {
    const logged = await knex.raw<{ rows: Array<{ record: unknown }> }>(`SELECT record FROM _basalt_changes WHERE table_name = 'tasks'`);
    expect(logged.rows[0]!.record).toEqual([1, 2, 3]);
  });

  it('keeps every trigger, counts exact per owner with a column named n, and logs nothing until a stream asks', async () => {
    await migrate(knex);
    const all = ['_basalt_capture_d', '_basalt_capture_i', '_basalt_capture_t', '_basalt_capture_u', '_basalt_count_d', '_basalt_count_i', '_basalt_count_t'];
    expect(await triggersOf('tasks')).toEqual([...all, '_basalt_count_u'].sort());
    expect(await triggersOf('plain')).toEqual(all);
    // An owner column's count function names the column; a table without one keeps the generic function.
    expect([await countFunctionOf('tasks'), await countFunctionOf('plain')]).toEqual(['_basalt_count_user_id', '_basalt_count']);
    expect((await knex('_basalt_counted').orderBy('table_name')).map((row: { table_name: string; owner_column: string }) => [row.table_name, row.owner_column])).toEqual([
      ['plain', ''],
      ['tasks', 'user_id'],
    ]);
    await knex.raw(`INSERT INTO tasks (id, user_id, n, o) VALUES ('t4', 'u2', 4, 'd')`);
    await knex.raw(`UPDATE tasks SET user_id = 'u2' WHERE id = 't1'`);
    await knex.raw(`DELETE FROM tasks WHERE id = 't2'`);
    expect(await kept('tasks')).toEqual({ '*': 3, u2: 3 });
    expect(await kept('plain')).toEqual({ '*': 1 });
    const logged = async () => (await knex.raw<{ rows: Array<{ op: string; record: unknown }> }>(`SELECT op, record FROM _basalt_changes WHERE table_name = 'tasks' ORDER BY xid, id`)).rows.slice(1);
    expect(await logged()).toEqual([]);
    // Switched on (as a stream does): whole rows, whatever the columns are called.
    for (const trigger of ['i', 'u', 'd', 't']) await knex.raw(`ALTER TABLE tasks ENABLE TRIGGER _basalt_capture_${trigger}`);
    await knex.raw(`INSERT INTO tasks (id, user_id, n, o) VALUES ('t5', 'u1', 5, 'e')`);
    await knex.raw(`DELETE FROM tasks WHERE id = 't5'`);
    expect((await logged()).map((row) => [row.op, row.record])).toEqual([
      ['i', [{ id: 't5', user_id: 'u1', n: 5, o: 'e' }]],
      ['d', [{ id: 't5', user_id: 'u1', n: 5, o: 'e' }]],
    ]);
    for (const trigger of ['i', 'u', 'd', 't']) await knex.raw(`ALTER TABLE tasks DISABLE TRIGGER _basalt_capture_${trigger}`);
  });

  it('leaves the service serving the table as counted and tracked, nothing left to install, capture off', async () => {
    h = await startHarness({ database });
    await h.services.placement.settled();
    await h.services.counting.settled();
    const table = h.services.cache.served('tasks')!;
    expect([table.captured, table.capturing, table.counted, table.trackedFor]).toEqual([true, false, true, 'user_id']);
  });

  it('goes back down to the functions of before, capture on everywhere again, and up again', async () => {
    await h?.close();
    h = undefined;
    const enabled = async () =>
      (await knex.raw<{ rows: Array<{ on: boolean }> }>(`SELECT bool_and(tgenabled <> 'D') AS on FROM pg_trigger WHERE tgname LIKE '\\_basalt\\_capture\\_%'`)).rows[0]!.on;
    const source = async () => (await knex.raw<{ rows: Array<{ source: string }> }>(`SELECT prosrc AS source FROM pg_proc WHERE proname = '_basalt_count'`)).rows[0]!.source;
    await migrateDownThrough(knex, '20260107000000_write_tracking');
    expect(await source()).toContain('EXECUTE format');
    expect(await countFunctionOf('tasks')).toBe('_basalt_count');
    expect(await enabled()).toBe(true);
    expect((await knex.raw(`SELECT to_regclass('_basalt_streamed') AS t`)).rows[0].t).toBeNull();
    await migrate(knex);
    expect(await source()).not.toContain('EXECUTE');
    expect(await enabled()).toBe(false);
  });
});
