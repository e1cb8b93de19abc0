import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
});
afterAll(() => h.close());

const admin = () => ({
  get: (path: string) => h.request().get(`/admin${path}`).set(owner.auth),
  post: (path: string, body: object) => h.request().post(`/admin${path}`).set(owner.auth).send(body),
  put: (path: string, body: object) => h.request().put(`/admin${path}`).set(owner.auth).send(body),
  patch: (path: string, body: object) => h.request().patch(`/admin${path}`).set(owner.auth).send(body),
  delete: (path: string) => h.request().delete(`/admin${path}`).set(owner.auth),
});

describe('access', () => {
  it('refuses a member with 403 on every path, known or not, and anon with 401', async () => {
    for (const path of ['/tables', '/users', '/settings', '/types', '/nowhere', '/tables/x/records']) {
      const forbidden = await h.request().get(`/admin${path}`).set(member.auth);
      expect(forbidden.status, path).toBe(403);
      expect(errorOf(forbidden).code).toBe('FORBIDDEN');
      expect((await h.request().get(`/admin${path}`).set(anonHeaders(h))).status).toBe(401);
    }
    expect((await h.request().post('/admin/tables').set(member.auth).send({ name: 'x', columns: [] })).status).toBe(403);
  });

  it('answers the owner 404 on an unknown path', async () => {
    const response = await admin().get('/nowhere');
    expect(response.status).toBe(404);
    expect(errorOf(response).code).toBe('NOT_FOUND');
  });
});

describe('tables', () => {
  it('creates a table with id, createdAt, updatedAt and every column type, and describes it', async () => {
    const response = await admin().post('/tables', {
      name: 'products',
      columns: [
        { name: 'title', type: 'text', nullable: false },
        { name: 'sku', type: 'text', unique: true },
        { name: 'stock', type: 'integer', default: 0 },
        { name: 'price', type: 'real', default: 9.5 },
        { name: 'active', type: 'boolean', default: true },
        { name: 'launch', type: 'timestamp', default: '2030-01-01T00:00:00Z' },
        { name: 'specs', type: 'json', default: { color: "it's red" } },
        { name: 'note', type: 'text', default: "o'clock" },
      ],
      policy: 'public-read',
    });
    expect(response.status).toBe(201);
    const table = response.body.data;
    expect(table).toMatchObject({ name: 'products', policy: 'public-read', effectivePolicy: 'public-read', ownerColumn: null, rowCount: { value: 0, exact: true } });
    const columns = Object.fromEntries(table.columns.map((column: { name: string }) => [column.name, column]));
    expect(Object.keys(columns)).toEqual(['id', 'title', 'sku', 'stock', 'price', 'active', 'launch', 'specs', 'note', 'createdAt', 'updatedAt']);
    expect(columns.id).toMatchObject({ type: 'text', primaryKey: true, unique: true, nullable: false });
    expect(columns.title).toMatchObject({ type: 'text', nullable: false, unique: false, default: null });
    expect(columns.sku).toMatchObject({ unique: true, nullable: true });
    expect(columns.stock).toMatchObject({ type: 'integer', default: 0 });
    expect(columns.price).toMatchObject({ type: 'real', default: 9.5 });
    expect(columns.active).toMatchObject({ type: 'boolean', default: true });
    expect(columns.launch).toMatchObject({ type: 'timestamp', default: '2030-01-01T00:00:00.000Z' });
    expect(columns.specs).toMatchObject({ type: 'json', default: { color: "it's red" } });
    expect(columns.note).toMatchObject({ type: 'text', default: "o'clock" });
    expect(columns.createdAt).toMatchObject({ type: 'timestamp', nullable: false });

    const record = await h.request().post('/api/products').set(owner.auth).send({ title: 'thing' });
    expect(record.body.data).toMatchObject({ stock: 0, price: 9.5, active: true, launch: '2030-01-01T00:00:00.000Z', specs: { color: "it's red" }, note: "o'clock" });
    expect((await admin().get('/tables/products')).body.data.rowCount).toEqual({ value: 1, exact: true });
  });

  it('lists only served tables, with row counts', async () => {
    await h.services.knex.raw('CREATE TABLE no_id_here (x int)');
    await h.services.cache.reload();
    const response = await admin().get('/tables');
    expect(response.status).toBe(200);
    const names = response.body.data.map((table: { name: string }) => table.name);
    expect(names).toContain('products');
    for (const hidden of ['users', 'sessions', '_policies', '_migrations', 'no_id_here']) expect(names).not.toContain(hidden);
  });

  it('gives owner columns a reference to users and an index', async () => {
    await createTable(h, owner, { name: 'owned', columns: [{ name: 'user_id', type: 'text' }] });
    const indexes = await h.services.knex.raw(`SELECT indexdef FROM pg_indexes WHERE tablename = 'owned'`);
    expect(indexes.rows.some((row: { indexdef: string }) => row.indexdef.includes('(user_id, id)'))).toBe(true);
    const bad = await h.request().post('/api/owned').set(owner.auth).send({});
    expect(bad.status).toBe(201);
    const unscoped = await admin().post('/tables/owned/records', { user_id: 'no-such-user' });
    expect(unscoped.status).toBe(400);
    expect(errorOf(unscoped)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'user_id' } });
    // on delete cascade: a deleted account takes its rows along.
    const gone = await signUp(h);
    await h.request().post('/api/owned').set(gone.auth).send({});
    await h.services.knex('users').where({ id: gone.id }).delete();
    expect(await h.services.knex('owned').where({ user_id: gone.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('answers 409 for a table that exists', async () => {
    const response = await admin().post('/tables', { name: 'products', columns: [] });
    expect(response.status).toBe(409);
    expect(errorOf(response).details).toEqual({ constraint: 'unique', column: 'tables.name' });
  });

  it.each([
    [{ columns: [] }, 'name'],
    [{ name: 'Bad', columns: [] }, 'name'],
    [{ name: '1abc', columns: [] }, 'name'],
    [{ name: 'a'.repeat(64), columns: [] }, 'name'],
    [{ name: 'users', columns: [] }, 'name'],
    [{ name: 'sessions', columns: [] }, 'name'],
    [{ name: 'pg_thing', columns: [] }, 'name'],
    [{ name: '_hidden', columns: [] }, 'name'],
    [{ name: 't1', columns: 'nope' }, 'columns'],
    [{ name: 't1', columns: [], extra: 1 }, 'extra'],
    [{ name: 't1', columns: [], policy: 'open' }, 'policy'],
    [{ name: 't1', columns: [{ name: 'id', type: 'text' }] }, 'columns.0.name'],
    [{ name: 't1', columns: [{ name: 'createdAt', type: 'timestamp' }] }, 'columns.0.name'],
    [{ name: 't1', columns: [{ name: 'updatedAt', type: 'timestamp' }] }, 'columns.0.name'],
    [{ name: 't1', columns: [{ name: 'bad-name', type: 'text' }] }, 'columns.0.name'],
    [{ name: 't1', columns: [{ name: 'pg_x', type: 'text' }] }, 'columns.0.name'],
    [{ name: 't1', columns: [{ name: 'a', type: 'varchar' }] }, 'columns.0.type'],
    [{ name: 't1', columns: [{ name: 'a', type: 'text' }, { name: 'a', type: 'text' }] }, 'columns.1.name'],
    [{ name: 't1', columns: [{ name: 'a', type: 'integer', default: 'many' }] }, 'columns.0.default'],
    [{ name: 't1', columns: [{ name: 'a', type: 'integer', default: 'now()' }] }, 'columns.0.default'],
    [{ name: 't1', columns: [{ name: 'a', type: 'text', nullable: 'no' }] }, 'columns.0.nullable'],
    [{ name: 't1', columns: [{ name: 'a', type: 'text', sql: 'x' }] }, 'columns.0.sql'],
    [{ name: 't1', columns: [{ name: 'user_id', type: 'integer' }] }, 'columns.0.type'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await admin().post('/tables', body);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(h.services.cache.any('t1')).toBeUndefined();
  });

  it('answers 400 naming the reserved table on every /admin/tables/:name route, and 404 for unknown tables', async () => {
    for (const name of ['users', 'sessions', '_policies']) {
      for (const response of [
        await admin().get(`/tables/${name}`),
        await admin().patch(`/tables/${name}`, { policy: 'private' }),
        await admin().delete(`/tables/${name}`),
        await admin().post(`/tables/${name}/columns`, { name: 'x', type: 'text' }),
        await admin().delete(`/tables/${name}/columns/email`),
        await admin().get(`/tables/${name}/records`),
        await admin().post(`/tables/${name}/records`, {}),
      ]) {
        expect(response.status).toBe(400);
        expect(errorOf(response).message).toContain(name);
      }
    }
    expect((await admin().get('/tables/nope')).status).toBe(404);
    expect((await admin().patch('/tables/nope', { policy: 'private' })).status).toBe(404);
  });

  it('changes the policy, validating it', async () => {
    const changed = await admin().patch('/tables/products', { policy: 'private' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.policy).toBe('private');
    for (const body of [{}, { policy: 'everyone' }, { policy: 'private', extra: true }]) {
      const response = await admin().patch('/tables/products', body);
      expect(response.status).toBe(400);
      expect(errorOf(response).code).toBe('VALIDATION_ERROR');
    }
  });

  it('drops a table and answers with it', async () => {
    await createTable(h, owner, { name: 'temporary', columns: [{ name: 'a', type: 'text' }] });
    const response = await admin().delete('/tables/temporary');
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe('temporary');
    expect((await admin().get('/tables/temporary')).status).toBe(404);
    expect((await h.request().get('/api/temporary').set(owner.auth)).status).toBe(404);
    expect(await h.services.knex('_policies').where({ table_name: 'temporary' }).first()).toBeUndefined();
  });
});

describe('columns', () => {
  beforeAll(() => createTable(h, owner, { name: 'evolving', columns: [{ name: 'title', type: 'text' }] }));

  it('adds a column, which the record API then accepts', async () => {
    const response = await admin().post('/tables/evolving/columns', { name: 'rank', type: 'integer', default: 5 });
    expect(response.status).toBe(201);
    expect(response.body.data.columns.map((column: { name: string }) => column.name)).toContain('rank');
    const record = await h.request().post('/api/evolving').set(owner.auth).send({ title: 'x', rank: 7 });
    expect(record.status).toBe(201);
    expect(record.body.data.rank).toBe(7);
  });

  it('refuses a duplicate column with 409 and a bad one with 400', async () => {
    const duplicate = await admin().post('/tables/evolving/columns', { name: 'rank', type: 'integer' });
    expect(duplicate.status).toBe(409);
    expect(errorOf(duplicate).details).toEqual({ constraint: 'unique', column: 'evolving.rank' });
    const bad = await admin().post('/tables/evolving/columns', { name: 'x', type: 'money' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).details).toEqual({ field: 'type' });
  });

  it('refuses a NOT NULL column without default on a table with rows, in the envelope', async () => {
    const response = await admin().post('/tables/evolving/columns', { name: 'required', type: 'text', nullable: false });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'required' } });
  });

  it('drops a column, refusing server-managed ones and answering 404 for unknown ones', async () => {
    const response = await admin().delete('/tables/evolving/columns/rank');
    expect(response.status).toBe(200);
    expect(response.body.data.columns.map((column: { name: string }) => column.name)).not.toContain('rank');
    const rejected = await h.request().post('/api/evolving').set(owner.auth).send({ title: 'x', rank: 1 });
    expect(rejected.status).toBe(400);
    for (const managed of ['id', 'createdAt', 'updatedAt']) expect((await admin().delete(`/tables/evolving/columns/${managed}`)).status).toBe(400);
    expect((await admin().delete('/tables/evolving/columns/nope')).status).toBe(404);
  });

  it('keeps the policy when an owner column is added, and scopes once the owner sets owner-scoped', async () => {
    await admin().post('/tables/evolving/columns', { name: 'user_id', type: 'text' });
    const described = (await admin().get('/tables/evolving')).body.data;
    expect(described).toMatchObject({ policy: 'private', ownerColumn: 'user_id' });
  });
});

describe('records (the owner console tools)', () => {
  beforeAll(() => createTable(h, owner, { name: 'notes', columns: [{ name: 'body', type: 'text' }, { name: 'user_id', type: 'text' }] }));

  it('sees and edits every row of an owner-scoped table, the owner column included', async () => {
    const fromMember = await h.request().post('/api/notes').set(member.auth).send({ body: 'member note' });
    const id = fromMember.body.data.id;
    const list = await admin().get('/tables/notes/records');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({ id, user_id: member.id });
    const reassigned = await admin().put(`/tables/notes/records/${id}`, { user_id: owner.id });
    expect(reassigned.status).toBe(200);
    expect(reassigned.body.data.user_id).toBe(owner.id);
    const created = await admin().put('/tables/notes/records/by-owner', { body: 'x', user_id: member.id });
    expect(created.status).toBe(201);
    expect(created.body.data.user_id).toBe(member.id);
    expect((await admin().post('/tables/notes/records', { body: 'y', user_id: member.id })).status).toBe(201);
    expect((await admin().get('/tables/notes/records?user_id=' + member.id)).body.total).toBe(2);
    expect((await admin().get(`/tables/notes/records/${id}`)).status).toBe(200);
    const deleted = await admin().delete(`/tables/notes/records/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.id).toBe(id);
  });

  it('validates exactly as /api does', async () => {
    expect((await admin().post('/tables/notes/records', { nope: 1 })).body.error.details).toEqual({ field: 'nope' });
    expect((await admin().post('/tables/notes/records', { createdAt: 1 })).status).toBe(400);
    expect((await admin().get('/tables/notes/records?order=x.asc')).body.error.details).toEqual({ parameter: 'order' });
    expect((await admin().delete('/tables/notes/records/missing')).status).toBe(404);
  });
});

describe('users and settings', () => {
  it('lists accounts with createdAt and a total, never password hashes', async () => {
    const response = await admin().get('/users');
    expect(response.status).toBe(200);
    expect(response.body.total).toBeGreaterThanOrEqual(2);
    expect(response.body.data[0]).toEqual({
      id: owner.id,
      email: owner.email,
      role: 'owner',
      createdAt: expect.any(String),
      verified: false,
      hasPassword: true,
      locale: null,
      identities: [],
      mfa: false,
    });
    expect(JSON.stringify(response.body)).not.toContain('$2');
    expect((await admin().get('/users?limit=1')).body.data).toHaveLength(1);
    expect((await admin().get('/users?limit=x')).status).toBe(400);
  });

  it('returns the anon key and signupEnabled', async () => {
    const response = await admin().get('/settings');
    expect(response.body).toEqual({ data: { anonKey: h.services.tokens.anonKey, signupEnabled: true, smtp: { configured: false, from: null }, providers: [] } });
  });
});

/** Type-checks a file as `tsc --strict` would, returning the diagnostics' messages. */
function compile(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('type generation', () => {
  it('returns TypeScript that compiles under tsc --strict and types rows, inserts and updates', async () => {
    await h.services.knex.raw(`CREATE TABLE "odd names" (id serial primary key, "with space" text, big bigint not null, tags text[])`);
    await h.services.cache.reload();
    const response = await admin().get('/types');
    expect(response.status).toBe(200);
    const source: string = response.body.data.typescript;
    expect(source).toContain('export interface Database');
    expect(source).toMatch(/products: \{\n {4}Row: \{/);

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-types-'));
    await fs.writeFile(path.join(dir, 'database.ts'), source);
    await fs.writeFile(
      path.join(dir, 'usage.ts'),
      `import type { Database } from './database.js';
type Products = Database['products'];
const row: Products['Row'] = { id: 'a', title: 't', sku: null, stock: 1, price: 1.5, active: true, launch: null, specs: { a: [1, 'b', null] }, note: null, createdAt: '', updatedAt: '' };
const insert: Products['Insert'] = { title: 'only the required column' };
const update: Products['Update'] = {};
const odd: Database['odd names']['Insert'] = { big: 1, 'with space': null };
// @ts-expect-error title is required on insert
const missing: Products['Insert'] = { stock: 1 };
// @ts-expect-error createdAt is set by the server
const managed: Products['Insert'] = { title: 'x', createdAt: '' };
// @ts-expect-error stock is a number
const wrong: Products['Update'] = { stock: 'many' };
export { row, insert, update, odd, missing, managed, wrong };
`,
    );
    const diagnostics = compile(path.join(dir, 'usage.ts'));
    await fs.rm(dir, { recursive: true, force: true });
    expect(diagnostics).toEqual([]);
  });

  it('compiles with no tables at all', async () => {
    const empty = await startHarness();
    try {
      const first = await signUp(empty);
      const source = (await empty.request().get('/admin/types').set(first.auth)).body.data.typescript as string;
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-types-'));
      await fs.writeFile(path.join(dir, 'database.ts'), source);
      expect(compile(path.join(dir, 'database.ts'))).toEqual([]);
      await fs.rm(dir, { recursive: true, force: true });
    } finally {
      await empty.close();
    }
  });
});
