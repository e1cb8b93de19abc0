import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Bulk insert: a JSON array on POST, 1 to 1,000 records, one statement, all or nothing, errors naming the element. */

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, {
    name: 'tasks',
    columns: [
      { name: 'title', type: 'text', nullable: false },
      { name: 'slug', type: 'text', unique: true },
      { name: 'score', type: 'integer', default: 7 },
      { name: 'done', type: 'boolean', nullable: false, default: false },
      { name: 'dueAt', type: 'timestamp' },
      { name: 'meta', type: 'json' },
      { name: 'user_id', type: 'text' },
    ],
  });
});
afterAll(() => h.close());

const bulk = (body: unknown, account = member, path = '/api/tasks') => h.request().post(path).set(account.auth).send(body as object);
const count = async () => Number((await h.services.knex('tasks').count({ n: '*' }).first())?.n);

describe('bulk insert', () => {
  it('inserts every record in one go and answers them in the order sent, defaults for what a record left out', async () => {
    const response = await bulk([
      { title: 'c', score: 3, done: true, meta: [1, { a: 'x' }], dueAt: '2030-01-01T00:00:00.123Z' },
      { title: 'a' },
      { title: 'b', score: null, user_id: 'someone-else' },
      { id: 'chosen', title: 'd', meta: 'text' },
    ]);
    expect(response.status).toBe(201);
    const rows = response.body.data as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.title)).toEqual(['c', 'a', 'b', 'd']);
    expect(rows.map((row) => row.score)).toEqual([3, 7, null, 7]);
    expect(rows.map((row) => row.done)).toEqual([true, false, false, false]);
    expect(rows[0]).toMatchObject({ meta: [1, { a: 'x' }], dueAt: '2030-01-01T00:00:00.123Z' });
    expect(rows[3]).toMatchObject({ id: 'chosen', meta: 'text' });
    expect(new Set(rows.map((row) => row.user_id))).toEqual(new Set([member.id]));
    expect(new Set(rows.map((row) => row.id)).size).toBe(4);
    expect(rows.every((row) => typeof row.createdAt === 'string')).toBe(true);
  });

  it('inserts records that leave every column to its default (a psql table with a serial id)', async () => {
    // Found by the fuzz run: an array of empty records built `INSERT INTO t () ...` and answered 500.
    await h.services.knex.raw('CREATE TABLE counters (id serial PRIMARY KEY, label text, n int8)');
    await h.services.knex.raw("NOTIFY basalt, 'reload schema'");
    await h.services.cache.reload();
    const response = await bulk([{}, {}, { label: 'third' }], owner, '/api/counters');
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data.map((row: { id: number; label: string | null }) => [row.id, row.label])).toEqual([[1, null], [2, null], [3, 'third']]);
    const defaultsOnly = await bulk([{}, {}], owner, '/api/counters');
    expect(defaultsOnly.status, JSON.stringify(defaultsOnly.body)).toBe(201);
    expect(defaultsOnly.body.data.map((row: { id: number }) => row.id)).toEqual([4, 5]);
    const admin = await h.request().post('/admin/tables/counters/records').set(owner.auth).send([{}]);
    expect(admin.status).toBe(201);
    expect(admin.body.data[0].id).toBe(6);
  });

  it('takes 1,000 records and refuses 0 or 1,001', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ title: `n${i}`, score: i }));
    const response = await bulk(many);
    expect(response.status).toBe(201);
    expect((response.body.data as Array<{ score: number }>).map((row) => row.score)).toEqual(many.map((row) => row.score));
    const before = await count();
    for (const body of [[], [...many, { title: 'one too many' }]]) {
      const refused = await bulk(body);
      expect(refused.status).toBe(400);
      expect(errorOf(refused).details).toEqual({ field: 'body' });
    }
    expect(await count()).toBe(before);
  });

  it.each([
    [[{ title: 'ok' }, 'not an object'], { index: 1 }],
    [[{ title: 'ok' }, [{ title: 'nested' }]], { index: 1 }],
    [[{ title: 'ok' }, { title: 'ok' }, { score: 1 }], { index: 2, field: 'title' }],
    [[{ title: 'ok' }, { title: 'x', nope: 1 }], { index: 1, field: 'nope' }],
    [[{ title: 'x', score: 'many' }], { index: 0, field: 'score' }],
    [[{ title: 'ok' }, { title: 'x', createdAt: '2020-01-01' }], { index: 1, field: 'createdAt' }],
  ])('refuses %j naming %o, and inserts none of it', async (body, details) => {
    const before = await count();
    const response = await bulk(body);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual(details);
    expect(await count()).toBe(before);
  });

  it('answers 409 naming the record for a duplicate, within the array or with a stored row, and inserts none', async () => {
    await bulk([{ title: 'first', slug: 'taken' }]);
    const before = await count();
    const stored = await bulk([{ title: 'x', slug: 'free-1' }, { title: 'y', slug: 'taken' }]);
    expect(stored.status).toBe(409);
    expect(errorOf(stored).details).toEqual({ constraint: 'unique', column: 'tasks.slug', index: 1 });
    const within = await bulk([{ title: 'x', slug: 'twice' }, { title: 'y' }, { title: 'z', slug: 'twice' }]);
    expect(within.status).toBe(409);
    expect(errorOf(within).details).toEqual({ constraint: 'unique', column: 'tasks.slug', index: 2 });
    const ids = await bulk([{ id: 'same', title: 'x' }, { id: 'same', title: 'y' }]);
    expect(errorOf(ids).details).toEqual({ constraint: 'unique', column: 'tasks.id', index: 1 });
    expect(await count()).toBe(before);
  });

  it('lets the owner tools insert arrays with the owner column as an ordinary column', async () => {
    const response = await bulk([{ title: 'for member', user_id: member.id }, { title: 'for owner', user_id: owner.id }], owner, '/admin/tables/tasks/records');
    expect(response.status).toBe(201);
    expect((response.body.data as Array<{ user_id: string }>).map((row) => row.user_id)).toEqual([member.id, owner.id]);
  });

  it('refuses an array where one record is expected, and arrays from callers the policy refuses', async () => {
    const put = await h.request().put('/api/tasks/abc').set(member.auth).send([{ title: 'x' }]);
    expect(put.status).toBe(400);
    const anon = await h.request().post('/api/tasks').set({ apikey: h.services.tokens.anonKey }).send([{ title: 'x' }]);
    expect(anon.status).toBe(403);
  });
});
