import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, signUp, startHarness, TEST_SECRET, uniqueEmail, type Account, type Harness } from './harness.js';

let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h, 'Owner@Example.test');
});
afterAll(() => h.close());

describe('signup', () => {
  it('makes the first account the owner and returns the user and a token pair', () => {
    expect(owner.role).toBe('owner');
    expect(owner.email).toBe('owner@example.test');
    expect(owner.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(owner.accessToken.split('.')).toHaveLength(3);
    expect(owner.refreshToken.split('.')).toHaveLength(3);
  });

  it('makes later accounts members and answers 201 with { user: { id, email, role } }', async () => {
    const response = await h.request().post('/auth/signup').send({ email: uniqueEmail(), password: 'password1' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body.data.user).sort()).toEqual(['email', 'id', 'role']);
    expect(response.body.data.user.role).toBe('member');
  });

  it('trims and lower-cases the email', async () => {
    const response = await h.request().post('/auth/signup').send({ email: '  Mixed.Case@Example.TEST ', password: 'password1' });
    expect(response.status).toBe(201);
    expect(response.body.data.user.email).toBe('mixed.case@example.test');
  });

  it('answers 409 with details for an email already taken, whatever its case', async () => {
    const response = await h.request().post('/auth/signup').send({ email: 'OWNER@example.test', password: 'password1' });
    expect(response.status).toBe(409);
    expect(errorOf(response)).toMatchObject({ code: 'CONFLICT', details: { constraint: 'unique', column: 'users.email' } });
  });

  it.each([
    [{ email: 'not-an-email', password: 'password1' }, 'email'],
    [{ email: 'a@localhost', password: 'password1' }, 'email'],
    [{ email: `${'a'.repeat(250)}@x.test`, password: 'password1' }, 'email'],
    [{ email: 42, password: 'password1' }, 'email'],
    [{ password: 'password1' }, 'email'],
    [{ email: 'short@x.test', password: 'seven77' }, 'password'],
    [{ email: 'long@x.test', password: 'x'.repeat(73) }, 'password'],
    [{ email: 'multi@x.test', password: 'é'.repeat(37) }, 'password'],
    [{ email: 'nopass@x.test' }, 'password'],
    [{ email: 'extra@x.test', password: 'password1', role: 'owner' }, 'role'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await h.request().post('/auth/signup').send(body);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('accepts a two-label domain with any TLD and a 72-byte password', async () => {
    const response = await h.request().post('/auth/signup').send({ email: uniqueEmail().replace('example.test', 'x.test'), password: 'p'.repeat(72) });
    expect(response.status).toBe(201);
  });

  it('answers INVALID_JSON for a malformed body and VALIDATION_ERROR for a non-object or non-JSON body', async () => {
    const bad = await h.request().post('/auth/signup').set('Content-Type', 'application/json').send('{"email":');
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('INVALID_JSON');
    const array = await h.request().post('/auth/signup').set('Content-Type', 'application/json').send('[1,2]');
    expect(array.status).toBe(400);
    expect(errorOf(array).code).toBe('VALIDATION_ERROR');
    const form = await h.request().post('/auth/signup').type('form').send('email=a@b.test&password=password1');
    expect(form.status).toBe(400);
    expect(errorOf(form).code).toBe('VALIDATION_ERROR');
  });

  it('ignores credential headers entirely, even invalid ones', async () => {
    const response = await h.request().post('/auth/signup').set('Authorization', 'Bearer garbage').set('apikey', 'junk').send({ email: uniqueEmail(), password: 'password1' });
    expect(response.status).toBe(201);
  });
});

describe('signin', () => {
  it('returns the user and a token pair', async () => {
    const response = await h.request().post('/auth/signin').send({ email: 'owner@EXAMPLE.test', password: 'correct horse' });
    expect(response.status).toBe(200);
    expect(response.body.data.user).toEqual({ id: owner.id, email: 'owner@example.test', role: 'owner' });
    expect(typeof response.body.data.accessToken).toBe('string');
    expect(typeof response.body.data.refreshToken).toBe('string');
  });

  it('answers the same 401 for a wrong password and an unknown email', async () => {
    const wrong = await h.request().post('/auth/signin').send({ email: 'owner@example.test', password: 'wrong password' });
    const unknown = await h.request().post('/auth/signin').send({ email: 'nobody@example.test', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(errorOf(wrong)).toEqual(errorOf(unknown));
    expect(errorOf(wrong).code).toBe('UNAUTHORIZED');
  });

  it('spends bcrypt work on an unknown email too (about the same time as a wrong password)', async () => {
    const time = async (email: string) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await h.request().post('/auth/signin').send({ email, password: 'wrong password' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    // Warm both paths (the dummy hash is made on first use).
    await time('nobody@example.test');
    const known = await time('owner@example.test');
    const unknown = await time('nobody2@example.test');
    // Generous bounds: the point is that the unknown email does not skip the comparison (it would be ~10x faster).
    expect(unknown).toBeGreaterThan(known * 0.3);
  });

  it('validates its body like signup', async () => {
    const response = await h.request().post('/auth/signin').send({ email: 'owner@example.test' });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'password' });
  });
});

describe('tokens', () => {
  it('signs access tokens HS256 with sub, role, sid, typ, iat and exp one hour out', () => {
    const header = JSON.parse(Buffer.from(owner.accessToken.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('HS256');
    const claims = jwt.verify(owner.accessToken, TEST_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: owner.id, role: 'owner', typ: 'access' });
    expect(typeof claims.sid).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('signs refresh tokens with sub, sid, typ, jti and exp seven days out, stored only as sha256', async () => {
    const claims = jwt.verify(owner.refreshToken, TEST_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: owner.id, typ: 'refresh' });
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(7 * 24 * 3600);
    const stored = await h.services.knex('sessions').where({ id: claims.sid }).first();
    expect(stored.token_hash).toBe(createHash('sha256').update(owner.refreshToken).digest('hex'));
    const everything = JSON.stringify(await h.services.knex('sessions').select('*'));
    expect(everything).not.toContain(owner.refreshToken);
  });
});

describe('me', () => {
  it('returns id, email, role and createdAt', async () => {
    const response = await h.request().get('/auth/me').set(owner.auth);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: owner.id, email: 'owner@example.test', role: 'owner' });
    expect(new Date(response.body.data.createdAt).toISOString()).toBe(response.body.data.createdAt);
  });

  it('accepts a lower-case bearer scheme', async () => {
    const response = await h.request().get('/auth/me').set('Authorization', `bearer ${owner.accessToken}`);
    expect(response.status).toBe(200);
  });

  it('rejects the anon key, in either header, and no credentials', async () => {
    const anonKey = h.services.tokens.anonKey;
    for (const headers of [{ apikey: anonKey }, { Authorization: `Bearer ${anonKey}` }, {}]) {
      const response = await h.request().get('/auth/me').set(headers);
      expect(response.status).toBe(401);
      expect(errorOf(response).code).toBe('UNAUTHORIZED');
    }
  });

  it('answers 401 when the account of a valid token no longer exists', async () => {
    const gone = await signUp(h);
    await h.services.knex('users').where({ id: gone.id }).delete();
    const response = await h.request().get('/auth/me').set(gone.auth);
    expect(response.status).toBe(401);
  });
});

describe('refresh', () => {
  it('exchanges a refresh token once: the new pair works, the old token is dead', async () => {
    const user = await signUp(h);
    const first = await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.data).sort()).toEqual(['accessToken', 'refreshToken']);
    const again = await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken });
    expect(again.status).toBe(401);
    expect(errorOf(again).code).toBe('UNAUTHORIZED');
    const me = await h.request().get('/auth/me').set('Authorization', `Bearer ${first.body.data.accessToken}`);
    expect(me.status).toBe(200);
    const next = await h.request().post('/auth/refresh').send({ refreshToken: first.body.data.refreshToken });
    expect(next.status).toBe(200);
  });

  it('lets exactly one of 10 parallel refreshes with one token win', async () => {
    const user = await signUp(h);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(9);
    const winner = responses.find((response) => response.status === 200)!;
    const onward = await h.request().post('/auth/refresh').send({ refreshToken: winner.body.data.refreshToken });
    expect(onward.status).toBe(200);
    expect(await h.services.knex('sessions').where({ user_id: user.id }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('answers 401 for malformed, forged, expired, wrong-typ and unknown refresh tokens', async () => {
    const user = await signUp(h);
    const claims = jwt.decode(user.refreshToken) as jwt.JwtPayload;
    const now = Math.floor(Date.now() / 1000);
    const tokens = [
      'not-a-jwt',
      jwt.sign({ ...claims, jti: 'forged' }, 'another secret that is long enough 123456', { algorithm: 'HS256' }),
      jwt.sign({ ...claims, iat: now - 10, exp: now - 5 }, TEST_SECRET, { algorithm: 'HS256' }),
      user.accessToken,
      jwt.sign({ ...claims, jti: 'never-issued' }, TEST_SECRET, { algorithm: 'HS256' }),
      `${user.refreshToken.split('.').slice(0, 2).join('.')}.`,
    ];
    for (const refreshToken of tokens) {
      const response = await h.request().post('/auth/refresh').send({ refreshToken });
      expect(response.status, refreshToken).toBe(401);
      expect(errorOf(response).code).toBe('UNAUTHORIZED');
    }
    // The real one still works: failed attempts did not consume it.
    expect((await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })).status).toBe(200);
  });

  it('ignores a stale Authorization header', async () => {
    const user = await signUp(h);
    const response = await h.request().post('/auth/refresh').set('Authorization', 'Bearer expired.or.bad').send({ refreshToken: user.refreshToken });
    expect(response.status).toBe(200);
  });

  it('answers 400 for a missing or non-string refresh token', async () => {
    for (const body of [{}, { refreshToken: 5 }, { refreshToken: '' }]) {
      const response = await h.request().post('/auth/refresh').send(body);
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'refreshToken' } });
    }
  });
});

describe('signout', () => {
  it('deletes every session of the caller: all refresh tokens die, access tokens live until exp', async () => {
    const user = await signUp(h);
    const second = await h.request().post('/auth/signin').send({ email: user.email, password: 'correct horse' });
    const response = await h.request().post('/auth/signout').set(user.auth);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { signedOut: true } });
    for (const refreshToken of [user.refreshToken, second.body.data.refreshToken]) {
      expect((await h.request().post('/auth/refresh').send({ refreshToken })).status).toBe(401);
    }
    expect((await h.request().get('/auth/me').set(user.auth)).status).toBe(200);
  });

  it('rejects the anon key and missing credentials', async () => {
    expect((await h.request().post('/auth/signout').set('apikey', h.services.tokens.anonKey)).status).toBe(401);
    expect((await h.request().post('/auth/signout')).status).toBe(401);
  });
});

describe('settings', () => {
  it('tells a sign-in screen whether sign-up is open and an owner exists', async () => {
    const response = await h.request().get('/auth/settings');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { signupEnabled: true, hasOwner: true, emailSignIn: false, emailVerification: 'optional', providers: [] } });
  });
});
