import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * `filter=` (issue 24, item 4; API.md "The `filter` parameter"): expressions ANDed with the column filters and the
 * policy, paths only through rows the caller may read there, cursors bound to it, 400 naming `filter` with the
 * position, and injection in every part of an expression.
 */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;

const admin = () => h.request();
const get = (path: string, account?: Account) => h.request().get(path).set(account ? account.auth : anonHeaders(h));
const q = (expression: string) => encodeURIComponent(expression);
const titles = (response: { body: { data: Array<{ title: string }> } }) => response.body.data.map((row) => row.title);

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  await createTable(h, owner, { name: 'authors', policy: 'public-read', columns: [{ name: 'name', type: 'text' }] });
  await createTable(h, owner, { name: 'secrets', policy: 'private', columns: [{ name: 'word', type: 'text' }] });
  await createTable(h, owner, {
    name: 'notes',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'title', type: 'text' },
      { name: 'priority', type: 'integer' },
      { name: 'status', type: 'text' },
      { name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } },
      { name: 'secret_id', type: 'text', references: { table: 'secrets', onDelete: 'set-null' } },
    ],
  });
  await createTable(h, owner, { name: 'tags', columns: [{ name: 'user_id', type: 'text' }, { name: 'label', type: 'text' }, { name: 'note_id', type: 'text', references: { table: 'notes', onDelete: 'cascade' } }] });
  const authors = await admin().post('/admin/tables/authors/records').set(owner.auth).send([{ name: 'Anna' }, { name: 'Ben' }]);
  const [anna, ben] = authors.body.data.map((row: { id: string }) => row.id);
  const notes = await h
    .request()
    .post('/api/notes')
    .set(ann.auth)
    .send([
      { title: 'n1', priority: 1, status: 'open', author_id: anna },
      { title: 'n2', priority: 3, status: 'done', author_id: ben },
      { title: 'n3', priority: 5, status: 'open', author_id: ben },
      { title: "it's", priority: 2, status: 'open' },
    ]);
  expect(notes.status).toBe(201);
  await h.request().post('/api/notes').set(bob.auth).send({ title: 'b1', priority: 9, status: 'open' });
  // A tag of ann's on n2, and one of bob's on n3 (ann cannot read bob's tags: owner-scoped).
  const [, n2, n3] = notes.body.data.map((row: { id: string }) => row.id);
  await admin().post('/admin/tables/tags/records').set(owner.auth).send([{ user_id: ann.id, label: 'urgent', note_id: n2 }, { user_id: bob.id, label: 'urgent', note_id: n3 }]);
});
afterAll(() => h?.close());

describe('filter=', () => {
  it('takes or, not and parentheses, ANDed with the column filters, the policy and the total', async () => {
    const either = await get(`/api/notes?filter=${q("status = 'done' or (priority >= 3 and status = 'open')")}&order=title.asc`, ann);
    expect([titles(either), either.body.total]).toEqual([['n2', 'n3'], 2]);
    const anded = await get(`/api/notes?filter=${q('not (priority < 3)')}&status=open&order=title.asc`, ann);
    expect(titles(anded)).toEqual(['n3']);
    // The policy still applies: bob's own row only.
    expect(titles(await get(`/api/notes?filter=${q('priority > 0')}`, bob))).toEqual(['b1']);
    expect(titles(await get(`/api/notes?filter=${q("title = 'it''s'")}`, ann))).toEqual(["it's"]);
    expect(titles(await get(`/api/notes?filter=${q('user_id = @auth.id and priority = 9')}`, bob))).toEqual(['b1']);
  });

  it('filters through relations, only by rows the caller may read there', async () => {
    expect(titles(await get(`/api/notes?filter=${q("author.name ilike 'b*'")}&order=title.asc`, ann))).toEqual(['n2', 'n3']);
    // ann's tag is on n2; bob's tag on n3 is not hers to read, so it matches nothing for her.
    expect(titles(await get(`/api/notes?filter=${q("tags.label = 'urgent'")}&order=title.asc`, ann))).toEqual(['n2']);
    // A table the caller cannot read at all: the 403 an embed would get.
    const refused = await get(`/api/notes?filter=${q("secret.word = 'x'")}`, ann);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).details).toMatchObject({ table: 'secrets', policy: 'private' });
    // The owner's records route reads every row of every table.
    expect((await admin().get(`/admin/tables/notes/records?filter=${q("tags.label = 'urgent'")}`).set(owner.auth)).body.total).toBe(2);
  });

  it('binds cursors to the expression', async () => {
    const first = await get(`/api/notes?filter=${q("status = 'open'")}&order=title.asc&limit=1`, ann);
    expect(titles(first)).toEqual(['it\'s']);
    const next = await get(`/api/notes?filter=${q("status = 'open'")}&order=title.asc&limit=1&after=${encodeURIComponent(first.body.next)}`, ann);
    expect(titles(next)).toEqual(['n1']);
    const other = await get(`/api/notes?filter=${q("status = 'done'")}&order=title.asc&limit=1&after=${encodeURIComponent(first.body.next)}`, ann);
    expect([other.status, errorOf(other).details]).toEqual([400, { parameter: 'after' }]);
  });

  it.each([
    ['priority >', 10],
    ['nope = 1', 0],
    ["priority = 'high'", 11],
    ["title = 'x' or 1=1 --", 19],
    ['"title"; DROP TABLE notes; --', 7],
    ["users.email = 'a'", 0],
    ["author.\"name\") OR (1=1 = 'x'", 13],
    ['title = @auth.password', 8],
    ['x'.repeat(2001), 2000],
  ])('refuses %j naming filter at %i', async (expression, position) => {
    const response = await get(`/api/notes?filter=${q(expression)}`, ann);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ parameter: 'filter', position });
    expect((await get('/api/notes', ann)).body.total).toBe(4);
  });

  it('counts as one of the 30 filters, is taken once, and lists refuse the parameters of other routes', async () => {
    const values = { neq: 'zz', gt: '', gte: '', lt: '~~', lte: '~~', like: '*', ilike: '*', nin: 'zz' };
    const keys = ['title', 'status', 'user_id', 'id'].flatMap((column) => Object.entries(values).map(([op, value]) => `${column}[${op}]=${encodeURIComponent(value)}`));
    const filters = keys.slice(0, 29).join('&');
    expect((await get(`/api/notes?${filters}&filter=${q('priority > 0')}`, ann)).status).toBe(200);
    const over = await get(`/api/notes?${filters}&priority=1&filter=${q('priority > 0')}`, ann);
    expect(over.status).toBe(400);
    expect((await get(`/api/notes?filter=${q('priority > 0')}&filter=${q('priority > 1')}`, ann)).status).toBe(400);
    for (const parameter of ['all', 'dryRun', 'onConflict']) {
      const refused = await get(`/api/notes?${parameter}=true`, ann);
      expect([refused.status, errorOf(refused).details]).toEqual([400, { parameter }]);
    }
  });

  it('folds the caller in: anon with @auth.id matches nothing, and a path for anon is under anon’s read', async () => {
    await createTable(h, owner, { name: 'pages', policy: 'public-read', columns: [{ name: 'title', type: 'text' }, { name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } }] });
    await admin().post('/admin/tables/pages/records').set(owner.auth).send([{ title: 'p1' }]);
    expect((await get(`/api/pages?filter=${q('@auth.id is null')}`)).body.total).toBe(1);
    expect((await get(`/api/pages?filter=${q("title = @auth.id or title = 'zzz'")}`)).body.total).toBe(0);
    expect((await get(`/api/pages?filter=${q('author.name is null')}`)).body.total).toBe(0);
  });
});
