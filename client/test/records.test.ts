import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type BasaltClient, type UntypedDatabase } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

let live: Live;
let owner: BasaltClient;
let alice: BasaltClient;
let bob: BasaltClient;
let anon: BasaltClient;
let aliceId: string;

beforeAll(async () => {
  live = await startLive();
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  await owner.admin.tables.create({
    name: 'todos',
    columns: [
      { name: 'title', type: 'text', nullable: false },
      { name: 'done', type: 'boolean', default: false },
      { name: 'score', type: 'integer' },
      { name: 'due', type: 'timestamp' },
      { name: 'user_id', type: 'text' },
    ],
  });
  await owner.admin.tables.create({ name: 'articles', columns: [{ name: 'slug', type: 'text', unique: true }], policy: 'public-read' });
  alice = live.client();
  aliceId = (await alice.auth.signUp({ email: uniqueEmail('alice'), password: PASSWORD })).user.id;
  bob = live.client();
  await bob.auth.signUp({ email: uniqueEmail('bob'), password: PASSWORD });
  anon = live.client();
});
afterAll(() => live.stop());

describe('the query language through list, listAll and createMany', () => {
  it('inserts many records at once, in order, all or none', async () => {
    const todos = alice.from('todos');
    const rows = await todos.createMany(Array.from({ length: 12 }, (_, i) => ({ title: `bulk ${i}`, score: 100 + i, done: i % 3 === 0 })));
    expect(rows.map((row) => row.score)).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
    expect(new Set(rows.map((row) => row.user_id))).toEqual(new Set([aliceId]));
    await expect(todos.createMany([{ title: 'fine' }, { score: 1 }])).rejects.toMatchObject({ status: 400, details: { index: 1, field: 'title' } });
    expect((await todos.list({ filter: { title: 'fine' } })).total).toBe(0);
  });

  it('filters with operators, chooses columns and counts as asked', async () => {
    const todos = alice.from('todos');
    const ranged = await todos.list({ filter: { score: { gte: 104, lt: 108 }, title: { like: 'bulk*' } }, order: 'score.desc', select: ['id', 'score'] });
    expect(ranged.data).toEqual([104, 105, 106, 107].reverse().map((score) => ({ id: expect.any(String), score })));
    expect(ranged.total).toBe(4);
    const listed = await todos.list({ filter: { score: { in: [100, 111, 999] } }, order: 'score.asc', count: 'none' });
    expect(listed.data.map((row) => row.score)).toEqual([100, 111]);
    expect(listed.total).toBeUndefined();
    const estimated = await todos.list({ filter: { done: { is: true }, score: { gte: 100 } }, count: 'estimated', limit: 1 });
    expect([estimated.total, estimated.totalExact]).toEqual([4, true]);
    await expect(todos.list({ filter: { done: { gt: true } } as never })).rejects.toMatchObject({ status: 400, details: { parameter: 'done[gt]' } });
  });

  it('pages by cursor with next/after, and listAll walks every page', async () => {
    const todos = alice.from('todos');
    const first = await todos.list({ filter: { title: { like: 'bulk*' } }, order: 'score.asc', limit: 5 });
    const second = await todos.list({ filter: { title: { like: 'bulk*' } }, order: 'score.asc', limit: 5, after: first.next });
    expect(second.data.map((row) => row.score)).toEqual([105, 106, 107, 108, 109]);
    const all: number[] = [];
    for await (const row of todos.listAll({ filter: { title: { like: 'bulk*' } }, order: 'score.desc', limit: 5, select: ['score'] })) all.push(Number(row.score));
    expect(all).toEqual(Array.from({ length: 12 }, (_, i) => 111 - i));
  });

  it('embeds related rows through select, typed or not', async () => {
    await owner.admin.tables.create({ name: 'steps', policy: 'public-read', columns: [{ name: 'text', type: 'text' }, { name: 'todo_id', type: 'text', references: { table: 'todos', onDelete: 'cascade' } }] });
    const todo = await alice.from('todos').create({ title: 'with steps' });
    await owner.admin.from('steps').createMany([{ id: 's1', text: 'one', todo_id: todo.id }, { id: 's2', text: 'two', todo_id: todo.id }]);
    const read = await alice.from('todos').get(String(todo.id), { select: ['title', { steps: ['text'] }] });
    expect(read).toEqual({ title: 'with steps', steps: [{ text: 'one' }, { text: 'two' }] });
    const listed = await alice.from('todos').list({ filter: { title: 'with steps' }, select: ['id', { steps: ['text'] }], embedOptions: { steps: { order: 'text.desc', limit: 1 } } });
    expect(listed.data).toEqual([{ id: todo.id, steps: [{ text: 'two' }] }]);
  });

  it('gives the owner indexes and every row through the admin client', async () => {
    const withIndex = await owner.admin.indexes.create('todos', { columns: ['title'], kind: 'search' });
    expect(withIndex.indexes).toContainEqual({ name: 'todos_title_search', columns: ['title'], unique: false, kind: 'search' });
    const found = await owner.admin.records('todos', { filter: { title: { search: 'bulk' } }, count: 'none', limit: 100 });
    expect(found.data).toHaveLength(12);
    const one = await owner.admin.from('todos').get(String(found.data[0]!.id));
    expect(one.user_id).toBe(aliceId);
    await expect(owner.admin.from('todos').get('missing')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const without = await owner.admin.indexes.drop('todos', 'todos_title_search');
    expect(without.indexes.map((index) => index.name)).not.toContain('todos_title_search');
  });

  it('takes where as the filter parameter: or, not, parentheses and paths, ANDed with filter and the policy', async () => {
    const carol = live.client();
    await carol.auth.signUp({ email: uniqueEmail('carol'), password: PASSWORD });
    const todos = carol.from('todos');
    const rows = await todos.createMany([
      { title: "where a&b=c #1 100% + é 'q'", score: 1 },
      { title: 'where two', score: 2, done: true },
      { title: 'where three', score: 3 },
      { title: 'where four', score: 4, done: true },
    ]);
    const scores = (page: { data: Record<string, unknown>[] }) => page.data.map((row) => row.score);
    // or, not and parentheses, ANDed with the column filters; the total counts under both.
    const either = await todos.list({ where: 'score = 1 or (score >= 3 and done = false)', filter: { title: { like: 'where*' } }, order: 'score.asc' });
    expect([scores(either), either.total]).toEqual([[1, 3], 2]);
    expect(scores(await todos.list({ where: 'score >= 2', filter: { done: true }, order: 'score.asc' }))).toEqual([2, 4]);
    // Characters the query string must encode, encoded once (a quote doubled inside the literal), and the caller.
    expect(scores(await todos.list({ where: "title = 'where a&b=c #1 100% + é ''q'''" }))).toEqual([1]);
    expect((await todos.list({ where: "user_id = @auth.id and title like 'where*'" })).total).toBe(4);
    // ANDed with the policy: another member matches none of these rows, the owner all of them.
    expect((await alice.from('todos').list({ where: "title like 'where*'" })).total).toBe(0);
    expect((await owner.admin.records('todos', { where: "title like 'where*'" })).total).toBe(4);
    // Paths through a to-many relation: some related row; not (...) is "no related row".
    await owner.admin.tables.create({
      name: 'labels',
      policy: 'public-read',
      columns: [{ name: 'name', type: 'text' }, { name: 'todo_id', type: 'text', references: { table: 'todos', onDelete: 'cascade' } }],
    });
    await owner.admin.from('labels').createMany([{ name: 'urgent', todo_id: rows[1]!.id }, { name: 'later', todo_id: rows[2]!.id }]);
    expect(scores(await todos.list({ where: "labels.name = 'urgent' or score = 4", order: 'score.asc' }))).toEqual([2, 4]);
    expect(scores(await todos.list({ where: "not (labels.name = 'urgent') and title like 'where*'", order: 'score.asc' }))).toEqual([1, 3, 4]);
    // Every page of listAll keeps it (the cursor is bound to it).
    const all: unknown[] = [];
    for await (const row of todos.listAll({ where: 'score > 1', order: 'score.asc', limit: 1 })) all.push(row.score);
    expect(all).toEqual([2, 3, 4]);
    // A bad expression: 400 naming filter, with the position.
    await expect(todos.list({ where: 'score >' })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { parameter: 'filter', position: expect.any(Number) } });
    await expect(todos.list({ where: 'nope = 1' })).rejects.toMatchObject({ status: 400, details: { parameter: 'filter', position: 0 } });
  });
});

describe('record API through from(table)', () => {
  it('creates, reads, upserts and deletes, with the owner column forced to the caller', async () => {
    const todos = alice.from('todos');
    const created = await todos.create({ title: 'write tests', score: 3, user_id: 'someone-else' });
    expect(created).toMatchObject({ title: 'write tests', done: false, score: 3, user_id: aliceId });
    expect(typeof created.id).toBe('string');
    expect(Date.parse(String(created.createdAt))).not.toBeNaN();
    await expect(todos.get(String(created.id))).resolves.toEqual(created);

    const updated = await todos.upsert(String(created.id), { done: true });
    expect(updated).toMatchObject({ id: created.id, title: 'write tests', done: true });
    const chosen = await todos.upsert('my-own-id', { title: 'chosen id' });
    expect(chosen).toMatchObject({ id: 'my-own-id', title: 'chosen id', user_id: aliceId });

    await expect(todos.delete('my-own-id')).resolves.toMatchObject({ id: 'my-own-id' });
    await expect(todos.get('my-own-id')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('lists with limit, offset, order and typed filters, and a total of every match', async () => {
    const todos = bob.from('todos');
    for (let i = 1; i <= 5; i++) {
      await todos.create({ title: `item ${i}`, score: i * 10, done: i % 2 === 0, due: new Date(Date.UTC(2030, 0, i)).toISOString() });
    }
    const page = await todos.list({ limit: 2, offset: 1, order: 'score.desc' });
    expect(page.total).toBe(5);
    expect(page.data.map((row) => row.score)).toEqual([40, 30]);
    const done = await todos.list({ filter: { done: true }, order: ['score.asc', 'title.desc'] });
    expect(done.data.map((row) => row.title)).toEqual(['item 2', 'item 4']);
    expect(done.total).toBe(2);
    const byDate = await todos.list({ filter: { due: new Date(Date.UTC(2030, 0, 3)) } });
    expect(byDate.data.map((row) => row.title)).toEqual(['item 3']);
    const byNumber = await todos.list({ filter: { score: 50 } });
    expect(byNumber.data).toHaveLength(1);
    // Scope: Alice's rows are not in Bob's lists.
    expect((await todos.list({ limit: 100 })).data.every((row) => row.user_id !== aliceId)).toBe(true);
  });

  it('answers another user’s row with 404, not 403', async () => {
    const mine = await alice.from('todos').create({ title: 'private to alice' });
    await expect(bob.from('todos').get(String(mine.id))).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(bob.from('todos').delete(String(mine.id))).rejects.toMatchObject({ status: 404 });
  });

  it('throws VALIDATION_ERROR naming the field or parameter', async () => {
    const todos = alice.from('todos');
    await expect(todos.create({ title: 'x', nope: 1 })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'nope' } });
    await expect(todos.create({ score: 1 })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(todos.list({ filter: { score: 'many' } })).rejects.toMatchObject({ status: 400, details: { parameter: 'score' } });
    await expect(todos.list({ filter: { missing: 'x' } })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(todos.list({ order: 'missing.asc' })).rejects.toMatchObject({ status: 400, details: { parameter: 'order' } });
  });

  it('throws 403 FORBIDDEN with the reason for anon on an owner-scoped table and for members writing public-read', async () => {
    const error = await anon.from('todos').list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'FORBIDDEN', details: { table: 'todos', policy: 'owner-scoped', operation: 'read' } });
    await expect(alice.from('articles').create({ slug: 'nope' })).rejects.toMatchObject({
      status: 403,
      details: { operation: 'write' },
    });
  });

  it('lets anon read public-read tables, and answers a duplicate with 409 CONFLICT and its column', async () => {
    await owner.from('articles').create({ slug: 'hello' });
    await expect(anon.from('articles').list()).resolves.toMatchObject({ total: 1, data: [{ slug: 'hello' }] });
    await expect(owner.from('articles').create({ slug: 'hello' })).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      details: { constraint: 'unique', column: 'articles.slug' },
    });
  });

  it('answers an unknown table with 404 and a request without credentials with 401', async () => {
    await expect(alice.from('nope').list()).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const keyless = live.client<UntypedDatabase>({}, '');
    await expect(keyless.from('articles').list()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('answers a body over the size limit with 413 PAYLOAD_TOO_LARGE', async () => {
    await expect(owner.from('articles').create({ slug: 'x'.repeat(1024 * 1024 + 1) })).rejects.toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('encodes ids, so an id with a slash or question mark is one path segment', async () => {
    const odd = await owner.from('articles').upsert('a/b?c#d', { slug: 'odd' });
    expect(odd.id).toBe('a/b?c#d');
    await expect(anon.from('articles').get('a/b?c#d')).resolves.toMatchObject({ slug: 'odd' });
  });
});
