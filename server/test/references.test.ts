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

describe('references under the referenced table’s policy', () => {
  let alice: Account;
  let bob: Account;
  beforeAll(async () => {
    alice = await signUp(h);
    bob = await signUp(h);
    await createTable(h, owner, { name: 'drafts', columns: [{ name: 'text', type: 'text' }, { name: 'user_id', type: 'text' }] });
    await createTable(h, owner, { name: 'secrets', policy: 'private', columns: [{ name: 'text', type: 'text' }] });
    await createTable(h, owner, {
      name: 'notes',
      columns: [
        { name: 'user_id', type: 'text' },
        { name: 'draft_id', type: 'text', references: { table: 'drafts', onDelete: 'cascade' } },
        { name: 'secret_id', type: 'text', references: { table: 'secrets', onDelete: 'set-null' } },
        { name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } },
      ],
    });
    await admin().post('/api/drafts').set(alice.auth).send({ id: 'alice-draft', text: 'mine' });
    await admin().post('/api/drafts').set(bob.auth).send({ id: 'bob-draft', text: 'his' });
    await admin().post('/api/secrets').set(owner.auth).send({ id: 'the-secret', text: 'shh' });
    await admin().post('/api/authors').set(owner.auth).send({ id: 'carol', name: 'Carol' });
  });

  const note = (account: Account, body: unknown) => admin().post('/api/notes').set(account.auth).send(body as object);

  it('lets a writer reference their own rows of an owner-scoped table, and public-read rows', async () => {
    const response = await note(alice, { draft_id: 'alice-draft', author_id: 'carol' });
    expect(response.status).toBe(201);
  });

  it('answers a reference to another user’s row exactly as one to a row that does not exist', async () => {
    const others = await note(alice, { draft_id: 'bob-draft' });
    const missing = await note(alice, { draft_id: 'no-such-draft' });
    expect(others.status).toBe(400);
    expect(missing.status).toBe(400);
    expect(errorOf(others)).toEqual(errorOf(missing));
    expect(errorOf(others).details).toEqual({ field: 'draft_id' });
  });

  it('refuses references into a table the writer cannot read at all, existing row or not', async () => {
    const hidden = await note(alice, { secret_id: 'the-secret' });
    const missing = await note(alice, { secret_id: 'no-such-secret' });
    expect(errorOf(hidden)).toEqual(errorOf(missing));
    expect(errorOf(hidden).details).toEqual({ field: 'secret_id' });
    // The project owner may read private tables: the reference holds.
    expect((await note(owner, { secret_id: 'the-secret' })).status).toBe(201);
  });

  it('checks every record of a bulk insert, naming the first that references another user’s row, and inserts none', async () => {
    const before = (await admin().get('/api/notes?limit=100').set(alice.auth)).body.total;
    const response = await note(alice, [{ draft_id: 'alice-draft' }, { draft_id: 'alice-draft' }, { draft_id: 'bob-draft' }]);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ index: 2, field: 'draft_id' });
    expect((await admin().get('/api/notes?limit=100').set(alice.auth)).body.total).toBe(before);
  });

  it('applies the same rule to upserts, and leaves the owner tools to existence alone', async () => {
    expect(errorOf(await admin().put('/api/notes/n1').set(alice.auth).send({ draft_id: 'bob-draft' })).details).toEqual({ field: 'draft_id' });
    expect((await admin().put('/api/notes/n1').set(alice.auth).send({ draft_id: 'alice-draft' })).status).toBe(201);
    expect(errorOf(await admin().put('/api/notes/n1').set(alice.auth).send({ draft_id: 'bob-draft' })).details).toEqual({ field: 'draft_id' });
    const tool = await admin().post('/admin/tables/notes/records').set(owner.auth).send({ user_id: alice.id, draft_id: 'bob-draft' });
    expect(tool.status).toBe(201);
  });
});

describe('generated types', () => {
  it('describe each table’s relations by embed name, and compile under tsc --strict', async () => {
    const { default: ts } = await import('typescript');
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const source: string = (await admin().get('/admin/types').set(owner.auth)).body.data.typescript;
    expect(source).toContain(`author: { kind: 'one'; table: "authors"; column: "author_id" };`);
    // posts references authors through two columns: each to-many key names its column.
    expect(source).toContain(`"posts.author_id": { kind: 'many'; table: "posts"; column: "author_id" };`);
    expect(source).toContain(`"posts.editor_id": { kind: 'many'; table: "posts"; column: "editor_id" };`);
    // comments references posts once, plus itself: to-many from posts is plain `comments`.
    expect(source).toContain(`comments: { kind: 'many'; table: "comments"; column: "post_id" };`);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-relations-'));
    await fs.writeFile(path.join(dir, 'database.ts'), source);
    await fs.writeFile(
      path.join(dir, 'usage.ts'),
      `import type { Database, Relationships } from './database.js';
const one: Relationships<'posts'>['author']['kind'] = 'one';
const many: Database['authors']['Relationships']['posts.author_id']['table'] = 'posts';
// @ts-expect-error posts has no relation named nope
type Nope = Relationships<'posts'>['nope'];
export { one, many };
export type { Nope };
`,
    );
    const program = ts.createProgram([path.join(dir, 'usage.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [] });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    await fs.rm(dir, { recursive: true, force: true });
    expect(diagnostics).toEqual([]);
  });
});
