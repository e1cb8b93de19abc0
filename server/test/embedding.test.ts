import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Embedding related rows through select (issue 12 item 3), every embedded table under its own policy. */

let h: Harness;
let owner: Account;
let alice: Account;
let bob: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  alice = await signUp(h);
  bob = await signUp(h);
  const table = (body: Record<string, unknown>) => createTable(h, owner, body);
  await table({ name: 'authors', policy: 'public-read', columns: [{ name: 'name', type: 'text' }] });
  await table({
    name: 'posts',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'user_id', type: 'text' },
      { name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } },
    ],
  });
  await table({
    name: 'comments',
    policy: 'public-read',
    columns: [
      { name: 'body', type: 'text' },
      { name: 'post_id', type: 'text', references: { table: 'posts', onDelete: 'cascade' } },
      { name: 'quoted_post_id', type: 'text', references: { table: 'posts', onDelete: 'set-null' } },
    ],
  });
  await table({ name: 'secrets', policy: 'private', columns: [{ name: 'text', type: 'text' }] });
  await table({
    name: 'articles',
    policy: 'public-read',
    columns: [
      { name: 'headline', type: 'text' },
      { name: 'post_id', type: 'text', references: { table: 'posts', onDelete: 'set-null' } },
      { name: 'secret_id', type: 'text', references: { table: 'secrets', onDelete: 'set-null' } },
    ],
  });
  const as = (account: Account, path: string, body: unknown) => h.request().post(path).set(account.auth).send(body as object);
  await as(owner, '/api/authors', [{ id: 'ada', name: 'Ada' }, { id: 'bob-author', name: 'Bob A.' }]);
  await as(alice, '/api/posts', [{ id: 'a1', title: 'Alice one', author_id: 'ada' }, { id: 'a2', title: 'Alice two' }]);
  await as(bob, '/api/posts', { id: 'b1', title: 'Bob one', author_id: 'ada' });
  // The owner tools: through /api the owner, too, may only reference their own rows of owner-scoped posts.
  await as(owner, '/admin/tables/comments/records', [
    { id: 'c1', body: 'first', post_id: 'a1' },
    { id: 'c2', body: 'second', post_id: 'a1' },
    { id: 'c3', body: 'third', post_id: 'a1', quoted_post_id: 'b1' },
    { id: 'c4', body: 'on bob', post_id: 'b1' },
  ]);
  await as(owner, '/api/secrets', { id: 's1', text: 'shh' });
  await as(owner, '/admin/tables/articles/records', [
    { id: 'x1', headline: 'About Alice', post_id: 'a1' },
    { id: 'x2', headline: 'About Bob', post_id: 'b1', secret_id: 's1' },
  ]);
});
afterAll(() => h.close());

const get = (path: string, account?: Account) => {
  const request = h.request().get(path);
  return account ? request.set(account.auth) : request.set({ apikey: h.services.tokens.anonKey });
};

describe('embedding', () => {
  it('embeds a to-one row and a to-many list, ordered and limited, in the keys as written', async () => {
    const response = await get('/api/posts?select=id,title,author(name),comments.post_id(id,body)&comments.order=id.desc&comments.limit=2&order=id.asc', alice);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toEqual([
      { id: 'a1', title: 'Alice one', author: { name: 'Ada' }, comments: [{ id: 'c3', body: 'third' }, { id: 'c2', body: 'second' }] },
      { id: 'a2', title: 'Alice two', author: null, comments: [] },
    ]);
    expect(response.body.total).toBe(2);
  });

  it('takes * at every level and shows embedded timestamps as the API does', async () => {
    const response = await get('/api/posts/a1?select=*,author(*)', alice);
    expect(response.status).toBe(200);
    const { data } = response.body;
    expect(data.title).toBe('Alice one');
    expect(data.author).toMatchObject({ id: 'ada', name: 'Ada' });
    expect(data.author.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const own = (await get('/api/authors/ada')).body.data;
    expect(data.author.createdAt).toBe(own.createdAt);
  });

  it('leaves out rows of other users in to-many embeds, and shows null for them in to-one embeds', async () => {
    const authors = await get('/api/authors?select=id,posts(id)&order=id.asc', alice);
    expect(authors.body.data).toEqual([
      { id: 'ada', posts: [{ id: 'a1' }] },
      { id: 'bob-author', posts: [] },
    ]);
    const articles = await get('/api/articles?select=headline,post(id,title)&order=id.asc', alice);
    expect(articles.body.data).toEqual([
      { headline: 'About Alice', post: { id: 'a1', title: 'Alice one' } },
      { headline: 'About Bob', post: null },
    ]);
  });

  it('answers 403 with the embedded table’s details when the caller may not read it at all', async () => {
    const anon = await get('/api/articles?select=headline,post(title)');
    expect(anon.status).toBe(403);
    expect(errorOf(anon).details).toEqual({ table: 'posts', policy: 'owner-scoped', operation: 'read' });
    const member = await get('/api/articles?select=headline,secret(text)', alice);
    expect(errorOf(member).details).toEqual({ table: 'secrets', policy: 'private', operation: 'read' });
    const ownerView = await get('/api/articles?select=headline,secret(text)&order=id.asc', owner);
    expect(ownerView.body.data[1]).toEqual({ headline: 'About Bob', secret: { text: 'shh' } });
  });

  it('nests to depth 3, and gives the owner tools every row', async () => {
    const nested = await get('/api/authors/ada?select=name,posts(title,comments.post_id(body,post(title)))', alice);
    expect(nested.status, JSON.stringify(nested.body)).toBe(200);
    expect(nested.body.data.posts).toEqual([{ title: 'Alice one', comments: expect.arrayContaining([{ body: 'first', post: { title: 'Alice one' } }]) }]);
    const tools = await h.request().get('/admin/tables/authors/records/ada?select=posts(id)&posts.order=id.asc').set(owner.auth);
    expect(tools.body.data).toEqual({ posts: [{ id: 'a1' }, { id: 'b1' }] });
    const deep = await get('/api/authors?select=posts(comments.post_id(post(author(name))))', alice);
    expect(errorOf(deep).details).toEqual({ parameter: 'select' });
  });

  it.each([
    ['comments(body)', 'ambiguous: two columns of comments reference posts'],
    ['nope(id)', 'an unknown relation'],
    ['title(id)', 'a column, not a relation'],
    ['users(id)', 'users'],
    ['author(nope)', 'an unknown column of the embedded table'],
    ['author(id', 'an unclosed parenthesis'],
    ['author)id(', 'an unmatched parenthesis'],
    ['author"(id)', 'an injection in an embed name'],
    ['author(id);DROP TABLE posts', 'an injection after an embed'],
    ['comments.post_id"; DROP TABLE posts; --(id)', 'an injection in a column hint'],
  ])('refuses select=%s (%s) with a 400 naming select', async (select) => {
    const response = await get(`/api/posts?select=${encodeURIComponent(select)}`, alice);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ parameter: 'select' });
  });

  it('refuses options of embeds that are not there or not lists, naming them', async () => {
    expect(errorOf(await get('/api/posts?select=id&comments.limit=2', alice)).details).toEqual({ parameter: 'comments.limit' });
    expect(errorOf(await get('/api/posts?select=author(name)&author.order=name.asc', alice)).details).toEqual({ parameter: 'author.order' });
    expect(errorOf(await get('/api/posts?select=comments.post_id(body)&comments.limit=101', alice)).details).toEqual({ parameter: 'comments.limit' });
    expect(errorOf(await get('/api/posts?select=comments.post_id(body)&comments.order=nope.asc', alice)).details).toEqual({ parameter: 'comments.order' });
    expect((await get('/api/posts?limit=1', alice)).status).toBe(200);
    expect((await get('/api/posts?select=id,title', alice)).body.data.every((row: Record<string, unknown>) => Object.keys(row).length === 2)).toBe(true);
  });

  it('answers a create or an upsert with the select asked, embeds included', async () => {
    const created = await h.request().post('/api/posts?select=id,author(name)').set(alice.auth).send({ id: 'a3', title: 'Alice three', author_id: 'ada' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: 'a3', author: { name: 'Ada' } });
    const updated = await h.request().put('/api/posts/a3?select=title,comments.post_id(id)').set(alice.auth).send({ title: 'Alice 3' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ title: 'Alice 3', comments: [] });
    const upserted = await h.request().put('/api/posts/a4?select=title').set(alice.auth).send({ title: 'Alice four' });
    expect([upserted.status, upserted.body.data]).toEqual([201, { title: 'Alice four' }]);
    const refused = await h.request().post('/api/posts?select=id,secret(text)').set(alice.auth).send({ title: 'x' });
    expect(refused.status).toBe(400);
  });

  it('answers a bulk insert with the select asked, in the order sent, and writes nothing when the select is refused', async () => {
    const bulk = await h.request().post('/api/posts?select=id,title,author(name)').set(alice.auth).send([
      { id: 'n2', title: 'second sent first', author_id: 'ada' },
      { id: 'n1', title: 'no author' },
      { id: 'n3', title: 'third', author_id: 'ada' },
    ]);
    expect(bulk.status).toBe(201);
    expect(bulk.body.data).toEqual([
      { id: 'n2', title: 'second sent first', author: { name: 'Ada' } },
      { id: 'n1', title: 'no author', author: null },
      { id: 'n3', title: 'third', author: { name: 'Ada' } },
    ]);
    const refused = await h.request().post('/api/posts?select=id,secret(text)').set(alice.auth).send([{ id: 'n4', title: 'x' }]);
    expect(refused.status).toBe(400);
    expect(errorOf(refused).details).toEqual({ parameter: 'select' });
    expect((await get('/api/posts/n4', alice)).status).toBe(404);
  });
});
