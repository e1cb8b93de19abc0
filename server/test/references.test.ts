import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Reference columns (issue 12, items 1 and 2): declared through the admin API or with psql, described, enforced. */

let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  await createTable(h, owner, { name: 'authors', policy: 'public-read', columns: [{ name: 'name', type: 'text' }] });
  await createTable(h, owner, {
    name: 'posts',
    policy: 'public-read',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'author_id', type: 'text', references: { table: 'authors' } },
      { name: 'editor_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } },
    ],
  });
  await createTable(h, owner, {
    name: 'comments',
    policy: 'public-read',
    columns: [
      { name: 'body', type: 'text' },
      { name: 'post_id', type: 'text', nullable: false, references: { table: 'posts', onDelete: 'cascade' } },
      { name: 'parent_id', type: 'text', references: { table: 'comments', onDelete: 'cascade' } },
    ],
  });
});
afterAll(() => h.close());

const admin = () => h.request();
const describeTable = async (name: string) => (await admin().get(`/admin/tables/${name}`).set(owner.auth)).body.data;
const post = (table: string, body: unknown) => admin().post(`/api/${table}`).set(owner.auth).send(body as object);

describe('reference columns', () => {
  it('describes them, with an index on each', async () => {
    const posts = await describeTable('posts');
    const byName = Object.fromEntries((posts.columns as Array<{ name: string; references?: unknown }>).map((column) => [column.name, column.references]));
    expect(byName).toMatchObject({ author_id: { table: 'authors', onDelete: 'restrict' }, editor_id: { table: 'authors', onDelete: 'set-null' } });
    expect(byName.title).toBeUndefined();
    expect(posts.indexes).toEqual(expect.arrayContaining([expect.objectContaining({ columns: ['author_id'] }), expect.objectContaining({ columns: ['editor_id'] })]));
    const comments = await describeTable('comments');
    expect(comments.columns.find((column: { name: string }) => column.name === 'parent_id').references).toEqual({ table: 'comments', onDelete: 'cascade' });
  });

  it('refuses a value that references no row with a 400 naming the column', async () => {
    const response = await post('posts', { title: 'orphan', author_id: 'nobody' });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'author_id' });
  });

  it('restricts, sets null and cascades as declared', async () => {
    const ada = (await post('authors', { id: 'ada', name: 'Ada' })).body.data;
    const bob = (await post('authors', { id: 'bob', name: 'Bob' })).body.data;
    await post('posts', { id: 'p1', title: 'one', author_id: ada.id, editor_id: bob.id });
    await post('comments', { id: 'c1', body: 'first', post_id: 'p1' });
    await post('comments', { id: 'c2', body: 'reply', post_id: 'p1', parent_id: 'c1' });

    const blocked = await admin().delete('/api/authors/ada').set(owner.auth);
    expect(blocked.status).toBe(409);
    expect(errorOf(blocked).details).toEqual({ constraint: 'reference', column: 'posts.author_id' });
    expect((await admin().delete('/admin/tables/authors/records/ada').set(owner.auth)).status).toBe(409);

    expect((await admin().delete('/api/authors/bob').set(owner.auth)).status).toBe(200);
    expect((await admin().get('/api/posts/p1').set(owner.auth)).body.data.editor_id).toBeNull();

    expect((await admin().delete('/api/posts/p1').set(owner.auth)).status).toBe(200);
    expect((await admin().get('/api/comments?limit=100').set(owner.auth)).body.total).toBe(0);
  });

  it('refuses to drop a table another table references, naming the column', async () => {
    const response = await admin().delete('/admin/tables/authors').set(owner.auth);
    expect(response.status).toBe(409);
    expect(errorOf(response).details).toEqual({ constraint: 'reference', column: 'posts.author_id' });
    expect((await describeTable('authors')).name).toBe('authors');
  });

  it('adds a reference column to an existing table', async () => {
    const response = await admin().post('/admin/tables/comments/columns').set(owner.auth).send({ name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } });
    expect(response.status).toBe(201);
    const column = response.body.data.columns.find((entry: { name: string }) => entry.name === 'author_id');
    expect(column.references).toEqual({ table: 'authors', onDelete: 'set-null' });
  });

  it('recognises keys made with psql, and takes the referenced id type', async () => {
    await h.services.knex.raw(`CREATE TABLE tags (id serial PRIMARY KEY, label text)`);
    await h.services.knex.raw(`CREATE TABLE post_tags (id serial PRIMARY KEY, tag_id integer REFERENCES tags(id) ON DELETE CASCADE, post_id text REFERENCES posts(id))`);
    await h.services.cache.reload();
    const described = await describeTable('post_tags');
    const refs = Object.fromEntries((described.columns as Array<{ name: string; references?: unknown }>).map((column) => [column.name, column.references]));
    expect(refs).toMatchObject({ tag_id: { table: 'tags', onDelete: 'cascade' }, post_id: { table: 'posts', onDelete: 'restrict' } });
    const added = await admin().post('/admin/tables/posts/columns').set(owner.auth).send({ name: 'tag_id', type: 'integer', references: { table: 'tags' } });
    expect(added.status).toBe(201);
    const typed = await admin().post('/admin/tables/posts/columns').set(owner.auth).send({ name: 'tag2_id', type: 'text', references: { table: 'tags' } });
    expect(errorOf(typed).details).toEqual({ field: 'type' });
  });

  it.each([
    [{ name: 'x_id', type: 'text', references: { table: 'nope' } }, 'references.table'],
    [{ name: 'x_id', type: 'text', references: { table: 'users' } }, 'references.table'],
    [{ name: 'x_id', type: 'text', references: { table: 'authors"; DROP TABLE authors; --' } }, 'references.table'],
    [{ name: 'x_id', type: 'text', references: { table: 'authors', onDelete: 'explode' } }, 'references.onDelete'],
    [{ name: 'x_id', type: 'text', nullable: false, references: { table: 'authors', onDelete: 'set-null' } }, 'references.onDelete'],
    [{ name: 'x_id', type: 'text', references: { table: 'authors', extra: 1 } }, 'references.extra'],
    [{ name: 'user_id', type: 'text', references: { table: 'authors' } }, 'references'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await admin().post('/admin/tables/posts/columns').set(owner.auth).send(body);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field });
  });
});
