import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type supertest from 'supertest';
import { createTable, errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from './harness.js';

/**
 * What the edge refuses, and how it says so (issue 22, items 3, 4 and 9): text with a NUL character on every /auth
 * route, a deleted account's still-valid token on every write, unknown query parameters on the record routes, a read
 * key's write, and bodies that are not objects.
 */

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, { name: 'posts', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
  await createTable(h, owner, {
    name: 'comments',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'body', type: 'text' },
      { name: 'post_id', type: 'text', references: { table: 'posts', onDelete: 'cascade' } },
    ],
  });
  await createTable(h, owner, { name: 'articles', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
  expect((await h.request().post('/api/posts').set(member.auth).send({ id: 'p1', title: 'first' })).status).toBe(201);
  expect((await h.request().post('/api/comments').set(member.auth).send({ id: 'c1', body: 'hi', post_id: 'p1' })).status).toBe(201);
  expect((await h.request().post('/api/articles').set(owner.auth).send({ id: 'a1', title: 'news' })).status).toBe(201);
});
afterAll(() => h?.close());

const NUL = '\u0000';

function expectInvalidField(response: supertest.Response, field: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  const error = errorOf(response);
  expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  expect(error.message).toContain(field);
}

function expectInvalidParameter(response: supertest.Response, parameter: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  const error = errorOf(response);
  expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { parameter } });
  expect(error.message).toContain(parameter);
}

/** The statements the auth services send while `run` runs (knex's; the record API has a pool of its own). */
async function statementsDuring(run: () => Promise<void>): Promise<Array<{ sql: string; bindings: unknown[] }>> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listener = (query: { sql: string; bindings?: unknown[] }) => seen.push({ sql: query.sql, bindings: query.bindings ?? [] });
  h.services.knex.on('query', listener);
  try {
    await run();
  } finally {
    h.services.knex.off('query', listener);
  }
  return seen;
}

describe('a NUL character in any text an /auth route takes is refused before the database, naming its field', () => {
  type Route = { method: 'post' | 'delete'; path: string; signedIn: boolean; body: () => Record<string, string> };
  const routes: Record<string, Route> = {
    signup: { method: 'post', path: '/auth/signup', signedIn: false, body: () => ({ email: uniqueEmail(), password: 'correct horse' }) },
    signin: { method: 'post', path: '/auth/signin', signedIn: false, body: () => ({ email: member.email, password: 'correct horse' }) },
    refresh: { method: 'post', path: '/auth/refresh', signedIn: false, body: () => ({ refreshToken: member.refreshToken }) },
    reset: { method: 'post', path: '/auth/reset', signedIn: false, body: () => ({ token: 'some-reset-token', newPassword: 'a new password' }) },
    password: { method: 'post', path: '/auth/password', signedIn: true, body: () => ({ currentPassword: 'correct horse', newPassword: 'a new password' }) },
    deleteMe: { method: 'delete', path: '/auth/me', signedIn: true, body: () => ({ password: 'correct horse' }) },
    createKey: { method: 'post', path: '/auth/keys', signedIn: true, body: () => ({ name: 'script', access: 'read', expiresAt: '2999-01-01T00:00:00Z' }) },
  };
  const cases: Array<[string, string]> = [
    ['signup', 'email'],
    ['signup', 'password'],
    ['signin', 'email'],
    ['signin', 'password'],
    ['refresh', 'refreshToken'],
    ['reset', 'token'],
    ['reset', 'newPassword'],
    ['password', 'currentPassword'],
    ['password', 'newPassword'],
    ['deleteMe', 'password'],
    ['createKey', 'name'],
    ['createKey', 'access'],
    ['createKey', 'expiresAt'],
  ];

  it('the cases cover every text field of every route', () => {
    for (const [name, route] of Object.entries(routes)) {
      expect(Object.keys(route.body()).sort(), name).toEqual(cases.filter(([caseName]) => caseName === name).map(([, field]) => field).sort());
    }
  });

  it.each(cases)('%s: NUL in %s is 400 VALIDATION_ERROR naming it', async (name, field) => {
    const route = routes[name]!;
    const body = route.body();
    const value = body[field]!;
    // In the middle, at the start and at the end: none of them may reach the database or a comparison.
    const statements = await statementsDuring(async () => {
      for (const poisoned of [`${value.slice(0, 3)}${NUL}${value.slice(3)}`, `${NUL}${value}`, `${value}${NUL}`]) {
        let request = h.request()[route.method](route.path);
        if (route.signedIn) request = request.set(member.auth);
        const response = await request.send({ ...body, [field]: poisoned });
        expectInvalidField(response, field);
        expect(errorOf(response).message).toMatch(/NUL/);
      }
    });
    expect(statements.filter((statement) => statement.bindings.some((value) => typeof value === 'string' && value.includes(NUL)))).toEqual([]);
    // Nothing is counted against the sign-in limits either: a malformed request is decided first.
    expect(statements.filter((statement) => statement.sql.includes('_basalt_limits'))).toEqual([]);
  });

  it('nothing was written: no account, no key; the member still signs in with the old password', async () => {
    expect(await h.services.knex('users').count({ n: '*' }).first()).toEqual({ n: 2 });
    expect(await h.services.knex('_basalt_api_keys').where({ user_id: member.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: 'correct horse' })).status).toBe(200);
  });

  it('a path id with a NUL names no session or key: 404, without asking the database', async () => {
    const statements = await statementsDuring(async () => {
      for (const path of ['/auth/sessions/a%00b', '/auth/keys/a%00b', '/auth/sessions/%00', '/auth/keys/%00']) {
        const response = await h.request().delete(path).set(member.auth);
        expect(response.status, path).toBe(404);
        expect(errorOf(response).code).toBe('NOT_FOUND');
      }
    });
    expect(statements.filter((statement) => /sessions|_basalt_api_keys/.test(statement.sql))).toEqual([]);
  });
});

describe('a body that is not a JSON object is 400 naming the field "body"', () => {
  const notObjects = ['[null]', '"x"', '1', 'null', 'true', '[]'];

  it.each(notObjects)('/auth routes refuse %s', async (text) => {
    for (const [method, path, signedIn] of [
      ['post', '/auth/signup', false],
      ['post', '/auth/signin', false],
      ['post', '/auth/refresh', false],
      ['post', '/auth/reset', false],
      ['post', '/auth/password', true],
      ['delete', '/auth/me', true],
      ['post', '/auth/keys', true],
    ] as const) {
      let request = h.request()[method](path).set('Content-Type', 'application/json');
      if (signedIn) request = request.set(member.auth);
      expectInvalidField(await request.send(text), 'body');
    }
  });

  it.each(notObjects.filter((text) => !text.startsWith('[')))('POST and PUT on /api refuse %s', async (text) => {
    const post = await h.request().post('/api/posts').set(member.auth).set('Content-Type', 'application/json').send(text);
    expectInvalidField(post, 'body');
    expect(errorOf(post).message).toMatch(/object or an array of objects/);
    const put = await h.request().put('/api/posts/p1').set(member.auth).set('Content-Type', 'application/json').send(text);
    expectInvalidField(put, 'body');
    expect(errorOf(put).message).not.toMatch(/array/);
  });

  it('PUT takes one object: an array is 400 naming "body", and its message does not offer an array', async () => {
    for (const path of ['/api/posts/p1', '/admin/tables/posts/records/p1']) {
      const account = path.startsWith('/admin') ? owner : member;
      const response = await h.request().put(path).set(account.auth).send([{ title: 'x' }]);
      expectInvalidField(response, 'body');
      expect(errorOf(response).message).toBe('The request body must be a JSON object');
    }
  });

  it('a body sent without the JSON content type, or nested too deep, names "body" too', async () => {
    expectInvalidField(await h.request().post('/auth/signin').type('form').send('email=a@b.test&password=password1'), 'body');
    expectInvalidField(await h.request().post('/api/posts').set(member.auth).type('form').send('title=x'), 'body');
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    expectInvalidField(await h.request().post('/auth/signin').set('Content-Type', 'application/json').send(deep), 'body');
  });
});

describe('the record routes refuse a query parameter they do not take, naming it', () => {
  it.each([
    ['get', '/api/posts/p1?selct=id', 'selct'],
    ['get', '/api/posts/p1?select=id&title=first', 'title'],
    ['get', '/api/posts/p1?limit=1', 'limit'],
    ['head', '/api/posts/p1?order=id.asc', 'order'],
    ['put', '/api/posts/p1?selct=id', 'selct'],
    ['put', '/api/posts/p1?title[eq]=first', 'title[eq]'],
    ['post', '/api/posts?nope=1', 'nope'],
    ['delete', '/api/posts/p1?select=id', 'select'],
    ['delete', '/api/posts/p1?user_id=x', 'user_id'],
  ] as const)('%s %s -> 400 naming %s, nothing written', async (method, url, parameter) => {
    const request = h.request()[method](url).set(member.auth);
    const response = await (method === 'put' || method === 'post' ? request.send({ title: 'changed' }) : request);
    if (method === 'head') {
      expect(response.status).toBe(400);
    } else {
      expectInvalidParameter(response, parameter);
    }
    const stored = await h.request().get('/api/posts/p1').set(member.auth);
    expect(stored.body.data.title).toBe('first');
    expect((await h.request().get('/api/posts?count=exact&limit=0').set(member.auth)).body.total).toBe(1);
  });

  it.each([
    ['get', '/admin/tables/posts/records/p1?selct=id', 'selct'],
    ['put', '/admin/tables/posts/records/p1?selct=id', 'selct'],
    ['post', '/admin/tables/posts/records?nope=1', 'nope'],
    ['delete', '/admin/tables/posts/records/p1?select=id', 'select'],
  ] as const)("the owner's %s %s -> 400 naming %s", async (method, url, parameter) => {
    const request = h.request()[method](url).set(owner.auth);
    expectInvalidParameter(await (method === 'put' || method === 'post' ? request.send({ title: 'changed' }) : request), parameter);
    expect((await h.request().get('/api/posts/p1').set(member.auth)).body.data.title).toBe('first');
  });

  it('still takes select and embed options where they were taken: GET, POST and PUT of one record', async () => {
    const got = await h.request().get('/api/posts/p1?select=id,comments(id)&comments.limit=1&comments.order=id.desc').set(member.auth);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ id: 'p1', comments: [{ id: 'c1' }] });
    const created = await h.request().post('/api/posts?select=id').set(member.auth).send({ id: 'p2', title: 'second' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: 'p2' });
    const bulk = await h.request().post('/api/posts?select=title').set(member.auth).send([{ id: 'p3', title: 'third' }]);
    expect(bulk.status).toBe(201);
    expect(bulk.body.data).toEqual([{ title: 'third' }]);
    const put = await h.request().put('/api/posts/p2?select=title').set(member.auth).send({ title: 'second!' });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ title: 'second!' });
    expect((await h.request().get('/admin/tables/posts/records/p2?select=id').set(owner.auth)).body.data).toEqual({ id: 'p2' });
    for (const id of ['p2', 'p3']) expect((await h.request().delete(`/api/posts/${id}`).set(member.auth)).status).toBe(200);
  });
});

describe("a read API key's write is 403 saying the key is read-only", () => {
  async function key(account: Account, access: 'read' | 'read-write'): Promise<{ Authorization: string }> {
    const response = await h.request().post('/auth/keys').set(account.auth).send({ name: `${access} key`, access });
    expect(response.status).toBe(201);
    return { Authorization: `Bearer ${response.body.data.key as string}` };
  }

  it('on a table whose policy lets the key’s user write: reason read_only_key, table, policy and operation as before', async () => {
    const memberKey = await key(member, 'read');
    const ownerKey = await key(owner, 'read');
    for (const [headers, method, url, policy] of [
      [memberKey, 'post', '/api/posts', 'owner-scoped'],
      [memberKey, 'put', '/api/posts/p1', 'owner-scoped'],
      [memberKey, 'delete', '/api/posts/p1', 'owner-scoped'],
      [ownerKey, 'post', '/api/articles', 'public-read'],
      [ownerKey, 'put', '/api/articles/a1', 'public-read'],
      [ownerKey, 'delete', '/api/articles/a1', 'public-read'],
    ] as const) {
      const response = await h.request()[method](url).set(headers).send({ title: 'by a read key' });
      expect(response.status, `${method} ${url}`).toBe(403);
      const error = errorOf(response);
      expect(error).toEqual({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/read-only/),
        details: { table: url.split('/')[2], policy, operation: 'write', reason: 'read_only_key' },
      });
    }
    expect((await h.request().get('/api/posts/p1').set(member.auth)).body.data.title).toBe('first');
    expect((await h.request().get('/api/articles/a1').set(member.auth)).body.data.title).toBe('news');
  });

  it('where the policy refuses the user anyway, the policy is the reason given (no read_only_key)', async () => {
    const response = await h.request().post('/api/articles').set(await key(member, 'read')).send({ title: 'x' });
    expect(response.status).toBe(403);
    expect(errorOf(response).details).toEqual({ table: 'articles', policy: 'public-read', operation: 'write' });
  });
});

describe("a deleted account's still-valid access token writes nothing: 401 on every write", () => {
  let g: Harness;
  let gOwner: Account;
  let gone: Account;
  let goneKeyId: string;
  let goneSessionId: string;

  beforeAll(async () => {
    g = await startHarness();
    gOwner = await signUp(g);
    gone = await signUp(g);
    await createTable(g, gOwner, { name: 'notes', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
    await createTable(g, gOwner, {
      name: 'links',
      columns: [
        { name: 'user_id', type: 'text' },
        { name: 'note_id', type: 'text', references: { table: 'notes', onDelete: 'cascade' } },
      ],
    });
    await createTable(g, gOwner, { name: 'news', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
    await createTable(g, gOwner, { name: 'vault', policy: 'private', columns: [{ name: 'title', type: 'text' }] });
    await createTable(g, gOwner, {
      name: 'pins',
      policy: 'public-read',
      columns: [
        { name: 'title', type: 'text' },
        { name: 'news_id', type: 'text', references: { table: 'news', onDelete: 'cascade' } },
      ],
    });
    // A table of defaults only, made with psql: its insert names no column, and is guarded all the same.
    await g.services.knex.raw('CREATE TABLE tallies (id serial PRIMARY KEY)');
    await g.services.cache.reload();
    expect((await g.request().post('/api/tallies').set(gOwner.auth).send({})).status).toBe(201);
    expect((await g.request().post('/api/notes').set(gOwner.auth).send({ id: 'n-owner', title: 'kept' })).status).toBe(201);
    expect((await g.request().post('/api/notes').set(gone.auth).send({ id: 'n-gone', title: 'mine' })).status).toBe(201);
    expect((await g.request().post('/api/news').set(gOwner.auth).send({ id: 'w1', title: 'kept' })).status).toBe(201);
    expect((await g.request().post('/api/vault').set(gOwner.auth).send({ id: 'v1', title: 'kept' })).status).toBe(201);
    const created = await g.request().post('/auth/keys').set(gone.auth).send({ name: 'k', access: 'read-write' });
    goneKeyId = created.body.data.id as string;
    // A second device, whose session the deleted account's token will try to end.
    const other = await g.request().post('/auth/signin').send({ email: gone.email, password: 'correct horse' });
    const sessions = (await g.request().get('/auth/sessions').set(gone.auth)).body.data as Array<{ id: string; current: boolean }>;
    expect(other.status).toBe(200);
    goneSessionId = sessions.find((session) => !session.current)!.id;
    expect((await g.request().delete(`/admin/users/${gone.id}`).set(gOwner.auth)).status).toBe(200);
  });
  afterAll(() => g?.close());

  const expectUnauthorized = (response: supertest.Response, what: string) => {
    expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(401);
    expect(errorOf(response).code).toBe('UNAUTHORIZED');
  };

  async function rows(table: string): Promise<unknown[]> {
    return (await g.services.knex(table).select('*').orderBy('id')) as unknown[];
  }

  it('/auth: every signed-in route, writes and reads alike', async () => {
    const calls: Array<[string, () => supertest.Test]> = [
      ['POST /auth/keys', () => g.request().post('/auth/keys').set(gone.auth).send({ name: 'k2', access: 'read' })],
      ['DELETE /auth/keys/:id', () => g.request().delete(`/auth/keys/${goneKeyId}`).set(gone.auth)],
      ['DELETE /auth/keys/:id (unknown)', () => g.request().delete('/auth/keys/nope').set(gone.auth)],
      ['DELETE /auth/sessions/:id', () => g.request().delete(`/auth/sessions/${goneSessionId}`).set(gone.auth)],
      ['POST /auth/signout', () => g.request().post('/auth/signout').set(gone.auth)],
      ['POST /auth/password', () => g.request().post('/auth/password').set(gone.auth).send({ currentPassword: 'correct horse', newPassword: 'another horse' })],
      ['POST /auth/password (bad body)', () => g.request().post('/auth/password').set(gone.auth).send({ nope: 1 })],
      ['DELETE /auth/me', () => g.request().delete('/auth/me').set(gone.auth).send({ password: 'correct horse' })],
      ['GET /auth/me', () => g.request().get('/auth/me').set(gone.auth)],
      ['GET /auth/keys', () => g.request().get('/auth/keys').set(gone.auth)],
      ['GET /auth/sessions', () => g.request().get('/auth/sessions').set(gone.auth)],
    ];
    for (const [what, call] of calls) expectUnauthorized(await call(), what);
    expect(await g.services.knex('_basalt_api_keys').where({ user_id: gone.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('/api on an owner-scoped table: create, bulk create, upsert, update, delete, a reference', async () => {
    const before = await rows('notes');
    const calls: Array<[string, () => supertest.Test]> = [
      ['POST', () => g.request().post('/api/notes').set(gone.auth).send({ title: 'x' })],
      ['POST bulk', () => g.request().post('/api/notes').set(gone.auth).send([{ title: 'x' }, { title: 'y' }])],
      ['PUT (create)', () => g.request().put('/api/notes/fresh').set(gone.auth).send({ title: 'x' })],
      ['PUT (its own row, gone with it)', () => g.request().put('/api/notes/n-gone').set(gone.auth).send({ title: 'x' })],
      ["PUT (another user's row)", () => g.request().put('/api/notes/n-owner').set(gone.auth).send({ title: 'x' })],
      ["DELETE (another user's row)", () => g.request().delete('/api/notes/n-owner').set(gone.auth)],
      ['DELETE (unknown row)', () => g.request().delete('/api/notes/nope').set(gone.auth)],
      ['POST with a reference', () => g.request().post('/api/links').set(gone.auth).send({ note_id: 'n-owner' })],
      ['POST bulk with a reference', () => g.request().post('/api/links').set(gone.auth).send([{ note_id: 'n-owner' }])],
      ['PUT with a reference', () => g.request().put('/api/links/l1').set(gone.auth).send({ note_id: 'n-owner' })],
      ['POST with an unknown column', () => g.request().post('/api/notes').set(gone.auth).send({ nope: 1 })],
    ];
    for (const [what, call] of calls) expectUnauthorized(await call(), what);
    expect(await rows('notes')).toEqual(before);
    expect(await rows('links')).toEqual([]);
  });

  it("/api on public-read and private tables, by the deleted owner's token", async () => {
    await (await g.sql()).query('DELETE FROM users WHERE id = $1', [gOwner.id]);
    const before = { news: await rows('news'), vault: await rows('vault') };
    for (const table of ['news', 'vault']) {
      const calls: Array<[string, () => supertest.Test]> = [
        ['POST', () => g.request().post(`/api/${table}`).set(gOwner.auth).send({ title: 'x' })],
        ['POST bulk', () => g.request().post(`/api/${table}`).set(gOwner.auth).send([{ title: 'x' }])],
        ['PUT (create)', () => g.request().put(`/api/${table}/fresh`).set(gOwner.auth).send({ title: 'x' })],
        ['PUT (update)', () => g.request().put(`/api/${table}/${table === 'news' ? 'w1' : 'v1'}`).set(gOwner.auth).send({ title: 'x' })],
        ['DELETE', () => g.request().delete(`/api/${table}/${table === 'news' ? 'w1' : 'v1'}`).set(gOwner.auth)],
        ['DELETE (unknown row)', () => g.request().delete(`/api/${table}/nope`).set(gOwner.auth)],
      ];
      for (const [what, call] of calls) expectUnauthorized(await call(), `${what} ${table}`);
    }
    expectUnauthorized(await g.request().post('/api/pins').set(gOwner.auth).send({ title: 'x', news_id: 'w1' }), 'POST pins');
    expectUnauthorized(await g.request().post('/api/tallies').set(gOwner.auth).send({}), 'POST tallies (defaults only)');
    expectUnauthorized(await g.request().post('/api/tallies').set(gOwner.auth).send([{}, {}]), 'POST tallies (bulk, defaults only)');
    expect(await g.services.knex('tallies').count({ n: '*' }).first()).toEqual({ n: 1 });
    expect({ news: await rows('news'), vault: await rows('vault') }).toEqual(before);
    expect(await g.services.knex('pins').count({ n: '*' }).first()).toEqual({ n: 0 });
    expectUnauthorized(await g.request().delete('/auth/me').set(gOwner.auth).send({ password: 'correct horse' }), 'DELETE /auth/me (owner)');
  });
});
