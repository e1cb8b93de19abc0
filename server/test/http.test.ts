import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_METHODS } from '@basalt/contract';
import { anonHeaders, createTable, errorOf, signUp, startHarness, TEST_SECRET, type Account, type Harness } from './harness.js';

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness({ bodyLimitBytes: 64 * 1024 });
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, { name: 'pub', columns: [{ name: 'title', type: 'text' }, { name: 'doc', type: 'json' }], policy: 'public-read' });
  await createTable(h, owner, { name: 'mine', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] });
});
afterAll(() => h.close());

describe('credentials', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts the anon key as apikey or as a Bearer token', async () => {
    const key = h.services.tokens.anonKey;
    expect((await h.request().get('/api/pub').set('apikey', key)).status).toBe(200);
    expect((await h.request().get('/api/pub').set('Authorization', `Bearer ${key}`)).status).toBe(200);
  });

  it('makes the anon key a fixed JWT { role: "anon", typ: "anon" } without iat or exp', () => {
    const claims = jwt.verify(h.services.tokens.anonKey, TEST_SECRET, { algorithms: ['HS256'] });
    expect(claims).toEqual({ role: 'anon', typ: 'anon' });
  });

  it('answers 401 without credentials on /api and /admin', async () => {
    for (const path of ['/api/pub', '/api/nope', '/admin/tables', '/admin/unknown']) {
      const response = await h.request().get(path);
      expect(response.status, path).toBe(401);
      expect(errorOf(response).code).toBe('UNAUTHORIZED');
    }
  });

  it('lets a present Authorization header decide alone: a bad one is 401 even with a good apikey', async () => {
    const response = await h.request().get('/api/pub').set('Authorization', 'Bearer nonsense').set(anonHeaders(h));
    expect(response.status).toBe(401);
    const basic = await h.request().get('/api/pub').set('Authorization', 'Basic dXNlcjpwYXNz').set(anonHeaders(h));
    expect(basic.status).toBe(401);
  });

  it('answers 401 for an invalid apikey', async () => {
    expect((await h.request().get('/api/pub').set('apikey', 'wrong')).status).toBe(401);
    expect((await h.request().get('/api/pub').set('apikey', member.accessToken)).status).toBe(401);
  });

  it('refuses tokens of another algorithm, none, a bad signature, a wrong typ or past exp', async () => {
    const claims = { sub: member.id, role: 'member', sid: 'x', typ: 'access' };
    const header = (alg: string) => Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...claims, iat: now(), exp: now() + 60 })).toString('base64url');
    const tokens = [
      `${header('none')}.${payload}.`,
      jwt.sign(claims, TEST_SECRET, { algorithm: 'HS512', expiresIn: 60 }),
      jwt.sign(claims, 'some other secret that is long enough!!', { algorithm: 'HS256', expiresIn: 60 }),
      jwt.sign({ ...claims, typ: 'refresh', jti: 'j' }, TEST_SECRET, { algorithm: 'HS256', expiresIn: 60 }),
      jwt.sign({ ...claims, role: 'admin' }, TEST_SECRET, { algorithm: 'HS256', expiresIn: 60 }),
      member.refreshToken,
    ];
    for (const token of tokens) {
      const response = await h.request().get('/auth/me').set('Authorization', `Bearer ${token}`);
      expect(response.status, token).toBe(401);
      expect(errorOf(response).details).toBeUndefined();
    }
  });

  it('marks an expired access token so clients know to refresh', async () => {
    const expired = jwt.sign({ sub: member.id, role: 'member', sid: 'x', typ: 'access', iat: now() - 7200, exp: now() - 3600 }, TEST_SECRET, { algorithm: 'HS256' });
    const response = await h.request().get('/api/mine').set('Authorization', `Bearer ${expired}`);
    expect(response.status).toBe(401);
    expect(errorOf(response)).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'token_expired' } });
  });

  it('checks credentials before reading the body', async () => {
    const response = await h.request().post('/api/mine').set('Content-Type', 'application/json').send('{not json');
    expect(response.status).toBe(401);
  });

  it('answers 401 on writes when the account behind a valid token is gone', async () => {
    const gone = await signUp(h);
    const created = await h.request().post('/api/mine').set(gone.auth).send({ title: 'kept' });
    const id = created.body.data.id as string;
    // The row goes with the account (on delete cascade): PUT and DELETE find nothing and must still say 401.
    await h.services.knex('users').where({ id: gone.id }).delete();
    const response = await h.request().post('/api/mine').set(gone.auth).send({ title: 'x' });
    expect(response.status).toBe(401);
    expect((await h.request().put(`/api/mine/${id}`).set(gone.auth).send({ title: 'y' })).status).toBe(401);
    expect((await h.request().delete(`/api/mine/${id}`).set(gone.auth)).status).toBe(401);
  });
});

describe('the order of checks', () => {
  it('is table (404) before policy (403) before body (400)', async () => {
    expect((await h.request().post('/api/nope').set(member.auth).set('Content-Type', 'application/json').send('{bad')).status).toBe(404);
    const forbidden = await h.request().post('/api/pub').set(member.auth).set('Content-Type', 'application/json').send('{bad');
    expect(forbidden.status).toBe(403);
    const forbiddenQuery = await h.request().get('/api/mine?nope=1').set(anonHeaders(h));
    expect(forbiddenQuery.status).toBe(403);
    const invalid = await h.request().post('/api/mine').set(member.auth).set('Content-Type', 'application/json').send('{bad');
    expect(invalid.status).toBe(400);
    expect(errorOf(invalid).code).toBe('INVALID_JSON');
  });
});

describe('bodies', () => {
  it('needs Content-Type: application/json on POST and PUT', async () => {
    const response = await h.request().post('/api/mine').set(member.auth).set('Content-Type', 'text/plain').send('{"title":"x"}');
    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe('VALIDATION_ERROR');
    const none = await h.request().put('/api/mine/x').set(member.auth);
    expect(none.status).toBe(400);
    expect(errorOf(none).code).toBe('VALIDATION_ERROR');
  });

  it('refuses JSON that is not an object', async () => {
    for (const text of ['[]', '"text"', '42', 'null', 'true']) {
      const response = await h.request().post('/api/mine').set(member.auth).set('Content-Type', 'application/json').send(text);
      expect(response.status, text).toBe(400);
      expect(errorOf(response).code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 413 PAYLOAD_TOO_LARGE over the body limit', async () => {
    const response = await h.request().post('/api/mine').set(member.auth).send({ title: 'x'.repeat(70 * 1024) });
    expect(response.status).toBe(413);
    expect(errorOf(response).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a body nested deeper than 64 levels', async () => {
    let doc: unknown = 'leaf';
    for (let i = 0; i < 70; i++) doc = { d: doc };
    const response = await h.request().post('/api/pub').set(owner.auth).send({ title: 'deep', doc });
    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe('VALIDATION_ERROR');
    let shallow: unknown = 'leaf';
    for (let i = 0; i < 30; i++) shallow = { d: shallow };
    expect((await h.request().post('/api/pub').set(owner.auth).send({ title: 'ok', doc: shallow })).status).toBe(201);
  });
});

describe('routes and envelopes', () => {
  it('answers 404 NOT_FOUND in the envelope for unknown routes and methods', async () => {
    for (const [method, path] of [['get', '/nope'], ['post', '/api/pub/x'], ['get', '/auth/nope'], ['patch', '/api/pub/x/y'], ['put', '/api/pub']] as const) {
      const response = await h.request()[method](path).set(owner.auth);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(errorOf(response).code).toBe('NOT_FOUND');
    }
  });

  it('answers /health with the database status', async () => {
    const response = await h.request().get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { status: 'ok' } });
  });

  it('redirects / to the console', async () => {
    const response = await h.request().get('/').redirects(0);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/console/');
  });

  it('sends and echoes X-Request-Id', async () => {
    const generated = await h.request().get('/health');
    expect(generated.headers['x-request-id']).toMatch(/^[A-Za-z0-9_-]+$/);
    const echoed = await h.request().get('/health').set('X-Request-Id', 'abc-123');
    expect(echoed.headers['x-request-id']).toBe('abc-123');
  });

  it('never sets a cookie', async () => {
    const response = await h.request().post('/auth/signin').send({ email: owner.email, password: 'correct horse' });
    expect(response.headers['set-cookie']).toBeUndefined();
  });
});

describe('CORS', () => {
  const listed = (value: string | undefined) => (value ?? '').split(',').map((name) => name.trim().toLowerCase());

  // Each header of the contract's list, preflighted as a browser would ask for it (last-event-id resumes a stream).
  it.each(CORS_ALLOWED_HEADERS)('answers a preflight asking for %s with 204 and that header allowed', async (header) => {
    for (const path of ['/api/pub', '/realtime/pub', '/auth/signin']) {
      const response = await h.request().options(path).set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'GET').set('Access-Control-Request-Headers', header);
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(listed(response.headers['access-control-allow-headers'])).toContain(header);
    }
  });

  it('allows the contract methods, HEAD and PATCH included', async () => {
    const response = await h.request().options('/api/pub').set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'PATCH');
    expect(listed(response.headers['access-control-allow-methods']).map((method) => method.toUpperCase())).toEqual([...CORS_METHODS]);
  });

  it('exposes the contract headers on responses', async () => {
    const response = await h.request().get('/health').set('Origin', 'https://app.example');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(listed(response.headers['access-control-expose-headers'])).toEqual([...CORS_EXPOSED_HEADERS]);
  });

  it('narrows to CORS_ORIGINS when given', async () => {
    const narrow = await startHarness({ corsOrigins: ['https://allowed.example'] });
    try {
      const allowed = await narrow.request().get('/health').set('Origin', 'https://allowed.example');
      expect(allowed.headers['access-control-allow-origin']).toBe('https://allowed.example');
      const other = await narrow.request().get('/health').set('Origin', 'https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await narrow.close();
    }
  });
});
