import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * API keys (API.md, "API keys"): a user's credential for scripts, acting as that user under the same policies, on two
 * processes sharing one database: a key revoked through one is refused by the other on its very next request.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database });
  // B hears no notifications: only the schema version carried by every statement can tell it a key was revoked.
  b = await startHarness({ database, listen: false });
  owner = await signUp(a);
  member = await signUp(a);
  await createTable(a, owner, { name: 'todos', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
  await createTable(a, owner, { name: 'articles', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
  await createTable(a, owner, { name: 'secrets', policy: 'private', columns: [{ name: 'title', type: 'text' }] });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

async function createKey(h: Harness, account: Account, body: Record<string, unknown>) {
  const response = await h.request().post('/auth/keys').set(account.auth).send(body);
  if (response.status !== 201) throw new Error(`create key failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as { id: string; name: string; access: string; key: string; createdAt: string; expiresAt: string | null };
}
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe('creating and listing keys', () => {
  it('shows the key once (bsk_...), stores only its digest, and lists keys without them', async () => {
    const created = await createKey(a, member, { name: 'backup script', access: 'read' });
    expect(created.key).toMatch(/^bsk_[A-Za-z0-9_-]{40,}$/);
    expect(Object.keys(created).sort()).toEqual(['access', 'createdAt', 'expiresAt', 'id', 'key', 'name']);
    expect(created).toMatchObject({ name: 'backup script', access: 'read', expiresAt: null });
    const stored = await a.services.knex('_basalt_api_keys').select('*');
    expect(JSON.stringify(stored)).not.toContain(created.key.slice(4));

    const listed = await b.request().get('/auth/keys').set(member.auth);
    expect(listed.status).toBe(200);
    const mine = (listed.body.data as Array<Record<string, unknown>>).find((key) => key.id === created.id)!;
    expect(Object.keys(mine).sort()).toEqual(['access', 'createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name']);
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    // Another user sees none of them.
    expect(((await a.request().get('/auth/keys').set(owner.auth)).body.data as Array<{ id: string }>).map((key) => key.id)).not.toContain(created.id);
  });

  it.each([
    [{ access: 'read' }, 'name'],
    [{ name: '', access: 'read' }, 'name'],
    [{ name: 'x'.repeat(101), access: 'read' }, 'name'],
    [{ name: 'k', access: 'admin' }, 'access'],
    [{ name: 'k' }, 'access'],
    [{ name: 'k', access: 'read', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: 'tomorrow' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: true }, 'expiresAt'],
    // Read as record timestamps are: no rolling an impossible day into the next month, years 0000-9999 only.
    [{ name: 'k', access: 'read', expiresAt: '2999-02-30' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: '2999-04-31T10:00:00Z' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: '2999-01-01T24:00' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: '+275760-01-01T00:00:00Z' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: '' }, 'expiresAt'],
    [{ name: 'k', access: 'read', expiresAt: 4102444800000.5 }, 'expiresAt'],
    [{ name: '   ', access: 'read' }, 'name'],
    [{ name: ` ${'x'.repeat(101)} `, access: 'read' }, 'name'],
    [{ name: 'k', access: 'read', userId: 'someone' }, 'userId'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await a.request().post('/auth/keys').set(member.auth).send(body);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('reads expiresAt as a record timestamp: no offset is UTC (whatever the server\'s zone), epoch milliseconds as text too', async () => {
    // The server runs in this process: a zone east of UTC would shift a time read in local time by 5.5 hours.
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata';
    try {
      for (const [expiresAt, stored] of [
        ['2999-01-01T10:00', '2999-01-01T10:00:00.000Z'],
        ['2999-01-01 10:00:00.5', '2999-01-01T10:00:00.500Z'],
        ['2999-06-15', '2999-06-15T00:00:00.000Z'],
        ['2999-01-01T10:00+01:00', '2999-01-01T09:00:00.000Z'],
        ['4102444800000', '2100-01-01T00:00:00.000Z'],
        [4102444800000, '2100-01-01T00:00:00.000Z'],
      ] as const) {
        expect((await createKey(a, member, { name: 'expiring', access: 'read', expiresAt })).expiresAt, String(expiresAt)).toBe(stored);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('trims white space around a name, as an email is trimmed, and counts what is kept', async () => {
    const created = await createKey(a, member, { name: ' \tnightly backup\u00a0\n', access: 'read' });
    expect(created.name).toBe('nightly backup');
    const listed = (await a.request().get('/auth/keys').set(member.auth)).body.data as Array<{ id: string; name: string }>;
    expect(listed.find((key) => key.id === created.id)?.name).toBe('nightly backup');
    expect((await createKey(a, member, { name: `  ${'x'.repeat(100)}  `, access: 'read' })).name).toBe('x'.repeat(100));
    const blank = await a.request().post('/auth/keys').set(member.auth).send({ name: ' \u3000 ', access: 'read' });
    expect(errorOf(blank)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'name' } });
    expect(errorOf(blank).message).toMatch(/^name .*trimmed/);
  });

  it('needs a signed-in user by token: anon, and keys themselves, are 401 on /auth/*', async () => {
    const { key } = await createKey(a, member, { name: 'k', access: 'read-write' });
    expect((await a.request().get('/auth/keys').set('apikey', a.services.tokens.anonKey)).status).toBe(401);
    for (const [method, url] of [['get', '/auth/keys'], ['post', '/auth/keys'], ['get', '/auth/me'], ['get', '/auth/sessions'], ['post', '/auth/signout']] as const) {
      const response = await a.request()[method](url).set(bearer(key)).send({ name: 'k2', access: 'read' });
      expect(response.status, `${method} ${url}`).toBe(401);
      expect(errorOf(response).code).toBe('UNAUTHORIZED');
    }
  });

  it("is 401 on /admin/* even for the owner's own key", async () => {
    const { key } = await createKey(a, owner, { name: 'owner key', access: 'read-write' });
    for (const url of ['/admin/tables', '/admin/users', '/admin/tables/todos/records']) expect((await a.request().get(url).set(bearer(key))).status, url).toBe(401);
  });
});

describe('a key acts as its user under the same policies', () => {
  it('owner-scoped: reads and writes its own rows only, on either process', async () => {
    const other = await signUp(a);
    await a.request().post('/api/todos').set(other.auth).send({ title: 'not yours' });
    const { key } = await createKey(a, member, { name: 'rw', access: 'read-write' });
    const created = await b.request().post('/api/todos').set(bearer(key)).send({ title: 'by key' });
    expect(created.status).toBe(201);
    expect(created.body.data.user_id).toBe(member.id);
    const listed = await a.request().get('/api/todos').set(bearer(key));
    expect(listed.status).toBe(200);
    expect((listed.body.data as Array<{ user_id: string }>).every((row) => row.user_id === member.id)).toBe(true);
    expect((listed.body.data as Array<{ title: string }>).map((row) => row.title)).toContain('by key');
  });

  it('public-read: a member key reads, cannot write (403); private: 403', async () => {
    const { key } = await createKey(a, member, { name: 'rw', access: 'read-write' });
    expect((await a.request().get('/api/articles').set(bearer(key))).status).toBe(200);
    expect(errorOf(await a.request().post('/api/articles').set(bearer(key)).send({ title: 'x' }))).toMatchObject({ code: 'FORBIDDEN' });
    expect(errorOf(await b.request().get('/api/secrets').set(bearer(key)))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it("the owner's read-write key writes public-read and private tables", async () => {
    const { key } = await createKey(a, owner, { name: 'owner rw', access: 'read-write' });
    expect((await a.request().post('/api/articles').set(bearer(key)).send({ title: 'news' })).status).toBe(201);
    expect((await b.request().post('/api/secrets').set(bearer(key)).send({ title: 'hush' })).status).toBe(201);
  });

  it('a read key reads and gets 403 on every write, whatever the policy', async () => {
    const { key } = await createKey(a, owner, { name: 'owner read', access: 'read' });
    expect((await a.request().get('/api/secrets').set(bearer(key))).status).toBe(200);
    const row = (await a.request().post('/api/secrets').set(owner.auth).send({ title: 'row' })).body.data as { id: string };
    for (const [method, url] of [['post', '/api/secrets'], ['put', `/api/secrets/${row.id}`], ['delete', `/api/secrets/${row.id}`], ['post', '/api/todos']] as const) {
      const response = await b.request()[method](url).set(bearer(key)).send({ title: 'no' });
      expect(response.status, `${method} ${url}`).toBe(403);
      expect(errorOf(response).code).toBe('FORBIDDEN');
    }
    expect((await a.request().get(`/api/secrets/${row.id}`).set(owner.auth)).body.data.title).toBe('row');
  });

  it('refuses a made-up, malformed or expired key with 401', async () => {
    expect((await a.request().get('/api/articles').set(bearer('bsk_madeup'))).status).toBe(401);
    expect((await a.request().get('/api/articles').set(bearer(`bsk_${'A'.repeat(43)}`))).status).toBe(401);
    const soon = await createKey(a, member, { name: 'short-lived', access: 'read', expiresAt: Date.now() + 1_500 });
    expect((await b.request().get('/api/articles').set(bearer(soon.key))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const expired = await b.request().get('/api/articles').set(bearer(soon.key));
    expect(expired.status).toBe(401);
    expect(errorOf(expired).message).toMatch(/expired/);
  });
});

describe('verification and revocation', () => {
  it('looks a key up once per process, then answers from memory, and stamps lastUsedAt to the minute', async () => {
    const { id, key } = await createKey(a, member, { name: 'cached', access: 'read' });
    const lookups: string[] = [];
    const listener = (query: { sql: string }) => {
      if (query.sql.includes('_basalt_api_keys')) lookups.push(query.sql);
    };
    b.services.knex.on('query', listener);
    try {
      for (let request = 0; request < 20; request++) expect((await b.request().get('/api/articles').set(bearer(key))).status).toBe(200);
    } finally {
      b.services.knex.off('query', listener);
    }
    expect(lookups.filter((sql) => sql.startsWith('SELECT'))).toHaveLength(1);
    expect(lookups.filter((sql) => sql.startsWith('UPDATE'))).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = (await a.request().get('/auth/keys').set(member.auth)).body.data as Array<{ id: string; lastUsedAt: string | null }>;
    const used = listed.find((entry) => entry.id === id)!.lastUsedAt;
    expect(used).not.toBeNull();
    expect(new Date(used!).getUTCSeconds()).toBe(0);
  });

  it('a key revoked through A is refused by B on its very next request, reads and writes alike', async () => {
    const { id, key } = await createKey(a, member, { name: 'to revoke', access: 'read-write' });
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(200);
    expect((await b.request().post('/api/todos').set(bearer(key)).send({ title: 'before' })).status).toBe(201);
    const revoked = await a.request().delete(`/auth/keys/${id}`).set(member.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id, name: 'to revoke', access: 'read-write' });
    expect(revoked.body.data.key).toBeUndefined();
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(401);
    expect((await b.request().post('/api/todos').set(bearer(key)).send({ title: 'after' })).status).toBe(401);
    const titles = (await a.request().get('/api/todos?limit=100').set(member.auth)).body.data.map((row: { title: string }) => row.title);
    expect(titles).toContain('before');
    expect(titles).not.toContain('after');
    expect((await a.request().delete(`/auth/keys/${id}`).set(member.auth)).status).toBe(404);
  });

  it("another user's key cannot be revoked (404) and keeps working", async () => {
    const { id, key } = await createKey(a, member, { name: 'mine', access: 'read' });
    expect((await a.request().delete(`/auth/keys/${id}`).set(owner.auth)).status).toBe(404);
    expect((await b.request().get('/api/articles').set(bearer(key))).status).toBe(200);
  });

  it("survives sign-out and a password change; the owner's sign-out-everywhere and deleting the user revoke it", async () => {
    const user = await signUp(a);
    const { key } = await createKey(a, user, { name: 'script', access: 'read-write' });
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(200);
    expect((await a.request().post('/auth/signout').set(user.auth)).status).toBe(200);
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(200);
    const changed = await a.request().post('/auth/password').set(user.auth).send({ currentPassword: 'correct horse', newPassword: 'another horse' });
    expect(changed.status).toBe(200);
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(200);
    expect((await a.request().post(`/admin/users/${user.id}/signout`).set(owner.auth)).status).toBe(200);
    expect((await b.request().get('/api/todos').set(bearer(key))).status).toBe(401);

    const second = await signUp(a);
    const other = await createKey(a, second, { name: 'script', access: 'read-write' });
    expect((await b.request().get('/api/todos').set(bearer(other.key))).status).toBe(200);
    expect((await a.request().delete(`/admin/users/${second.id}`).set(owner.auth)).status).toBe(200);
    expect((await b.request().get('/api/todos').set(bearer(other.key))).status).toBe(401);
  });
});
