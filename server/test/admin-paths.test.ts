import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * A NUL character in an /admin path parameter names nothing that exists (Postgres can store no such text): 404, as
 * /auth's path ids and /api's record ids answer, decided without sending it to the database (where it would be a
 * 22021 naming no field).
 */

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, { name: 'posts', columns: [{ name: 'title', type: 'text' }] });
  expect((await h.request().post('/api/posts').set(owner.auth).send({ id: 'p1', title: 'first' })).status).toBe(201);
});
afterAll(() => h?.close());

/** The statements knex sends while `run` runs whose bound values hold a NUL. */
async function nulStatementsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string; bindings?: unknown[] }) => {
    if ((query.bindings ?? []).some((value) => typeof value === 'string' && value.includes('\u0000'))) seen.push(query.sql);
  };
  h.services.knex.on('query', listener);
  try {
    await run();
  } finally {
    h.services.knex.off('query', listener);
  }
  return seen;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const ROUTES: Array<[Method, string]> = [
  ['delete', '/admin/users/{}'],
  ['post', '/admin/users/{}/signout'],
  ['post', '/admin/users/{}/reset-link'],
  ['get', '/admin/tables/{}'],
  ['patch', '/admin/tables/{}'],
  ['delete', '/admin/tables/{}'],
  ['post', '/admin/tables/{}/columns'],
  ['delete', '/admin/tables/posts/columns/{}'],
  ['delete', '/admin/tables/{}/columns/title'],
  ['post', '/admin/tables/{}/indexes'],
  ['delete', '/admin/tables/posts/indexes/{}'],
  ['get', '/admin/tables/{}/records'],
  ['get', '/admin/tables/posts/records/{}'],
  ['put', '/admin/tables/posts/records/{}'],
  ['delete', '/admin/tables/posts/records/{}'],
  ['get', '/admin/tables/{}/realtime'],
];

describe('a NUL in an /admin path parameter', () => {
  it.each(ROUTES)('%s %s: 404 NOT_FOUND, before the database sees it', async (method, route) => {
    const statements = await nulStatementsDuring(async () => {
      // A name that exists, then a NUL: the member's id on the users routes, an existing table or record elsewhere (a
      // random id may begin with `_`, which names a reserved table: 400, not the case under test).
      const existing = route.startsWith('/admin/users') ? member.id : route.includes('/records/') ? 'p1' : 'posts';
      for (const value of ['a%00b', '%00', `${existing}%00`]) {
        const path = route.replace('{}', value);
        const body = method === 'patch' ? { policy: 'private' } : method === 'post' && path.endsWith('/columns') ? { name: 'extra', type: 'text' } : method === 'post' && path.endsWith('/indexes') ? { columns: ['title'] } : method === 'put' ? { title: 'x' } : undefined;
        const request = h.request()[method](path).set(owner.auth);
        const response = await (body ? request.send(body) : request);
        expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(404);
        expect(errorOf(response).code).toBe('NOT_FOUND');
      }
    });
    expect(statements).toEqual([]);
  });

  it('leaves the account it nearly named alone', async () => {
    expect((await h.request().get('/auth/me').set(member.auth)).status).toBe(200);
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: 'correct horse' })).status).toBe(200);
  });
});
