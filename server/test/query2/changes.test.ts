import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { openStream } from '../sse.js';

/** PATCH of one record and changes by filter (API.md, "Query language, part 2"), under presets and rules. */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;

type Row = Record<string, unknown>;
const titles = (rows: Row[]) => rows.map((row) => row.title).sort();

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  await createTable(h, owner, {
    name: 'todos',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'title', type: 'text', nullable: false },
      { name: 'score', type: 'integer', default: 0 },
      { name: 'done', type: 'boolean', default: false },
    ],
  });
  await createTable(h, owner, { name: 'posts', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'score', type: 'integer', default: 0 }, { name: 'locked', type: 'boolean', default: false }] });
  const rules = await h
    .request()
    .patch('/admin/tables/posts')
    .set(owner.auth)
    .send({ policy: 'rules', rules: { read: 'true', create: 'user_id = @auth.id', update: 'user_id = @auth.id', updateCheck: 'locked = false', delete: 'user_id = @auth.id' } });
  expect(rules.status, JSON.stringify(rules.body)).toBe(200);
});
afterAll(() => h.close());

const seedTodos = async (account: Account, rows: Row[]) => {
  const response = await h.request().post('/api/todos').set(account.auth).send(rows);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as Row[];
};

describe('PATCH /api/:table/:id', () => {
  it('updates the columns sent, 404 for a missing or another user\'s row, never creates', async () => {
    const [row] = await seedTodos(ann, [{ title: 'patch me', score: 1 }]);
    const patched = await h.request().patch(`/api/todos/${row!.id}`).set(ann.auth).send({ score: 5 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: row!.id, title: 'patch me', score: 5 });
    expect(patched.body.data.updatedAt > (row!.updatedAt as string)).toBe(true);
    expect((await h.request().patch('/api/todos/nope').set(ann.auth).send({ title: 'x' })).status).toBe(404);
    expect((await h.request().patch(`/api/todos/${row!.id}`).set(bob.auth).send({ title: 'x' })).status).toBe(404);
    const other = await h.request().patch(`/api/todos/${row!.id}`).set(ann.auth).send({ id: 'other' });
    expect([other.status, errorOf(other).details]).toEqual([400, { field: 'id' }]);
    const touched = await h.request().patch(`/api/todos/${row!.id}`).set(ann.auth).send({});
    expect([touched.status, touched.body.data.score]).toEqual([200, 5]);
    const selected = await h.request().patch(`/api/todos/${row!.id}?select=title`).set(ann.auth).send({ title: 'renamed' });
    expect(selected.body.data).toEqual({ title: 'renamed' });
  });

  it('takes the owner route too, and the rules under rules (updateCheck 403)', async () => {
    const [row] = await seedTodos(bob, [{ title: 'owner patches' }]);
    const patched = await h.request().patch(`/admin/tables/todos/records/${row!.id}`).set(owner.auth).send({ done: true });
    expect([patched.status, patched.body.data.done]).toEqual([200, true]);
    const post = (await h.request().post('/api/posts').set(ann.auth).send({ title: 'p' })).body.data as Row;
    expect((await h.request().patch(`/api/posts/${post.id}`).set(bob.auth).send({ title: 'x' })).status).toBe(403);
    const locked = await h.request().patch(`/api/posts/${post.id}`).set(ann.auth).send({ locked: true });
    expect([locked.status, errorOf(locked).details]).toEqual([403, { table: 'posts', policy: 'rules', operation: 'update', check: true }]);
  });
});

describe('changes by filter', () => {
  it('updates every matching row the caller may change, in one statement, and answers them', async () => {
    await seedTodos(ann, [{ title: 'cf-a', score: 1 }, { title: 'cf-b', score: 2 }, { title: 'cf-c', score: 9 }]);
    await seedTodos(bob, [{ title: 'cf-bob', score: 1 }]);
    const response = await h.request().patch('/api/todos?title[like]=cf-*&score[lt]=5').set(ann.auth).send({ done: true });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(titles(response.body.data)).toEqual(['cf-a', 'cf-b']);
    expect(response.body.data.every((row: Row) => row.done === true && row.user_id === ann.id)).toBe(true);
    const bobs = await h.request().get('/api/todos?title=cf-bob').set(bob.auth);
    expect(bobs.body.data[0].done).toBe(false);
    const selected = await h.request().patch('/api/todos?title[like]=cf-*&select=title').set(ann.auth).send({ score: 3 });
    expect(selected.body.data.map((row: Row) => Object.keys(row))).toEqual([['title'], ['title'], ['title']]);
  });

  it('needs a filter or all=true, refuses order/after/offset/count and an id in the body', async () => {
    const none = await h.request().patch('/api/todos').set(ann.auth).send({ done: true });
    expect([none.status, errorOf(none).details]).toEqual([400, { parameter: 'filter' }]);
    expect(errorOf(await h.request().delete('/api/todos').set(ann.auth)).details).toEqual({ parameter: 'filter' });
    for (const parameter of ['order=title.asc', 'after=x', 'offset=1', 'count=none']) {
      const refused = await h.request().patch(`/api/todos?title=a&${parameter}`).set(ann.auth).send({ done: true });
      expect([refused.status, errorOf(refused).details]).toEqual([400, { parameter: parameter.split('=')[0] }]);
    }
    const id = await h.request().patch('/api/todos?title=a').set(ann.auth).send({ id: 'x' });
    expect(errorOf(id).details).toEqual({ field: 'id' });
    expect(errorOf(await h.request().patch('/api/todos?title=a&limit=0').set(ann.auth).send({})).details).toEqual({ parameter: 'limit' });
    expect(errorOf(await h.request().patch('/api/todos?title=a&all=yes').set(ann.auth).send({})).details).toEqual({ parameter: 'all' });
    expect((await h.request().patch('/api/todos?all=true&dryRun=true').set(ann.auth).send({})).status).toBe(200);
  });

  it('changes nothing when more rows match than limit, and says how many matched', async () => {
    await seedTodos(ann, Array.from({ length: 5 }, (_, index) => ({ title: `lim-${index}`, score: 100 })));
    const refused = await h.request().patch('/api/todos?title[like]=lim-*&limit=4').set(ann.auth).send({ score: 1 });
    expect([refused.status, errorOf(refused).code, errorOf(refused).details]).toEqual([400, 'VALIDATION_ERROR', { parameter: 'limit', matched: 5 }]);
    const still = await h.request().get('/api/todos?title[like]=lim-*&score=100').set(ann.auth);
    expect(still.body.total).toBe(5);
    const dry = await h.request().delete('/api/todos?title[like]=lim-*&dryRun=true').set(ann.auth);
    expect(dry.body).toEqual({ data: { matched: 5 } });
    expect((await h.request().get('/api/todos?title[like]=lim-*').set(ann.auth)).body.total).toBe(5);
    const exact = await h.request().delete('/api/todos?title[like]=lim-*&limit=5').set(ann.auth);
    expect([exact.status, exact.body.data.length]).toEqual([200, 5]);
    expect((await h.request().get('/api/todos?title[like]=lim-*').set(ann.auth)).body.total).toBe(0);
  });

  it('takes filter= expressions, all=true, and the owner route across every user', async () => {
    await seedTodos(ann, [{ title: 'ex-1', score: 7 }, { title: 'ex-2', score: 8 }]);
    await seedTodos(bob, [{ title: 'ex-3', score: 7 }]);
    const byExpression = await h.request().patch(`/api/todos?filter=${encodeURIComponent("score = 7 or title = 'ex-2'")}`).set(ann.auth).send({ done: true });
    expect(titles(byExpression.body.data)).toEqual(['ex-1', 'ex-2']);
    const admin = await h.request().patch('/admin/tables/todos/records?title[like]=ex-*').set(owner.auth).send({ score: 0 });
    expect(titles(admin.body.data)).toEqual(['ex-1', 'ex-2', 'ex-3']);
    const deleted = await h.request().delete('/admin/tables/todos/records?title[in]=ex-1,ex-3&select=title').set(owner.auth);
    expect([deleted.status, titles(deleted.body.data)]).toEqual([200, ['ex-1', 'ex-3']]);
    expect(Object.keys(deleted.body.data[0])).toEqual(['title']);
    const everything = await h.request().delete('/api/todos?all=true&dryRun=true').set(bob.auth);
    expect(everything.body.data.matched).toBe((await h.request().get('/api/todos').set(bob.auth)).body.total);
  });

  it('under rules: skips rows it may read but not change, refuses all when updateCheck fails on one (403 naming its id)', async () => {
    const mine = (await h.request().post('/api/posts').set(ann.auth).send({ title: 'r-1', score: 1 })).body.data as Row;
    await h.request().post('/api/posts').set(bob.auth).send({ title: 'r-2', score: 1 });
    const changed = await h.request().patch('/api/posts?title[like]=r-*').set(ann.auth).send({ score: 2 });
    expect(changed.status).toBe(200);
    expect(changed.body.data.map((row: Row) => row.title)).toEqual(['r-1']);
    const bobs = await h.request().get('/api/posts?title=r-2').set(ann.auth);
    expect(bobs.body.data[0].score).toBe(1);
    const third = (await h.request().post('/api/posts').set(ann.auth).send({ title: 'r-3', score: 1 })).body.data as Row;
    const locking = await h.request().patch('/api/posts?title[like]=r-*').set(ann.auth).send({ locked: true, score: 9 });
    expect(locking.status).toBe(403);
    expect(errorOf(locking).details).toMatchObject({ table: 'posts', policy: 'rules', operation: 'update', check: true });
    // The first row the check refused: one of ann's two (bob's is skipped, never refused).
    expect([mine.id, third.id]).toContain(errorOf(locking).details?.id);
    const after = await h.request().get('/api/posts?title[like]=r-*&order=title.asc').set(ann.auth);
    expect(after.body.data.map((row: Row) => [row.title, row.score, row.locked])).toEqual([
      ['r-1', 2, false],
      ['r-2', 1, false],
      ['r-3', 1, false],
    ]);
    const deleted = await h.request().delete('/api/posts?title[like]=r-*').set(bob.auth);
    expect(deleted.body.data.map((row: Row) => row.title)).toEqual(['r-2']);
    expect((await h.request().delete('/api/posts?all=true').set(anonHeaders(h))).status).toBe(403);
  });

  it('translates a restrict reference into 409 and deletes nothing', async () => {
    await createTable(h, owner, { name: 'lists', columns: [{ name: 'name', type: 'text' }] });
    await createTable(h, owner, { name: 'entries', columns: [{ name: 'list_id', type: 'text', references: { table: 'lists', onDelete: 'restrict' } }] });
    const lists = (await h.request().post('/admin/tables/lists/records').set(owner.auth).send([{ name: 'kept' }, { name: 'free' }])).body.data as Row[];
    await h.request().post('/admin/tables/entries/records').set(owner.auth).send({ list_id: lists[0]!.id });
    const refused = await h.request().delete('/admin/tables/lists/records?all=true').set(owner.auth);
    expect([refused.status, errorOf(refused).code]).toEqual([409, 'CONFLICT']);
    expect((await h.request().get('/admin/tables/lists/records').set(owner.auth)).body.total).toBe(2);
  });

  it('is seen by realtime row by row: every updated and deleted record reaches the stream of its owner', async () => {
    const stream = await openStream(`${h.url}/realtime/todos?title[like]=rt-*`, ann.auth);
    try {
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const created = await seedTodos(ann, [{ title: 'rt-1' }, { title: 'rt-2' }, { title: 'rt-3' }]);
      await h.request().patch('/api/todos?title[like]=rt-*').set(ann.auth).send({ score: 42 }).expect(200);
      await h.request().delete('/api/todos?title[like]=rt-*').set(ann.auth).expect(200);
      const events = await stream.waitFor(9);
      const seen = events.map((event) => [event.event, (event.data as { record: Row }).record] as const);
      expect(seen.filter(([kind]) => kind === 'update').map(([, record]) => [record.title, record.score]).sort()).toEqual([['rt-1', 42], ['rt-2', 42], ['rt-3', 42]]);
      // A delete's event carries the record's id.
      expect(seen.filter(([kind]) => kind === 'delete').map(([, record]) => record.id).sort()).toEqual(created.map((row) => row.id).sort());
    } finally {
      stream.close();
    }
  });
});
