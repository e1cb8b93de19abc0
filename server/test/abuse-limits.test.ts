import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@basalt/contract';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { readProjectConfig } from '../src/config.js';
import { errorOf, signUp, startHarness, uniqueEmail, type Harness } from './harness.js';

/**
 * The abuse limits (API.md, "Accounts: abuse limits"), on two processes sharing one database: a counter filled through
 * one is obeyed by the other. Addresses are told apart by X-Forwarded-For (TRUST_PROXY on).
 */

const PASSWORD = 'correct horse';
let database: TestDatabase;
let a: Harness;
let b: Harness;
let counter = 0;
/** A fresh client address per test, so the tests' counters never meet. */
const nextAddress = () => `203.0.113.${++counter}`;

beforeAll(async () => {
  database = await createTestDatabase();
  const limits = { ...DEFAULT_LIMITS, signinFailuresPerAddress: { max: 25, windowSeconds: 900 }, signupsPerAddress: { max: 30, windowSeconds: 3600 }, refreshesPerSession: { max: 5, windowSeconds: 60 } };
  a = await startHarness({ database, limits, trustProxy: true });
  b = await startHarness({ database, limits, trustProxy: true });
  await signUp(a, uniqueEmail('owner'));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

const signIn = (h: Harness, address: string, email: string, password: string) =>
  h.request().post('/auth/signin').set('X-Forwarded-For', address).send({ email, password });

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await run();
  return [result, performance.now() - started];
}

describe('failed sign-ins per account and address', () => {
  it('refuses the 11th failure on the other process with 429 and Retry-After, even with the right password', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await signIn(attempt % 2 ? a : b, address, user.email, 'wrong password');
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const refused = await signIn(b, address, user.email, 'wrong password');
    expect(refused.status).toBe(429);
    expect(errorOf(refused)).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'signinFailuresPerAccountAndAddress' } });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(errorOf(refused).details?.retryAfter).toBe(retryAfter);

    const right = await signIn(a, address, user.email, PASSWORD);
    expect(right.status).toBe(429);
    // The same account from another address, and another account from this address, are not held back.
    expect((await signIn(a, nextAddress(), user.email, PASSWORD)).status).toBe(200);
    const other = await signUp(a);
    expect((await signIn(b, address, other.email, PASSWORD)).status).toBe(200);
  });

  it('answers an unknown email exactly as a known one: same statuses, same body, about the same time', async () => {
    const address = nextAddress();
    const known = await signUp(a);
    const unknown = uniqueEmail('nobody');
    const answers: Record<string, Array<{ status: number; body: unknown; ms: number }>> = { known: [], unknown: [] };
    for (let attempt = 1; attempt <= 12; attempt++) {
      for (const [kind, email] of [['known', known.email], ['unknown', unknown]] as const) {
        const [response, ms] = await timed(() => signIn(attempt % 2 ? a : b, address, email, 'wrong password'));
        answers[kind]!.push({ status: response.status, body: { ...response.body, error: { ...response.body.error, details: { ...response.body.error.details, retryAfter: undefined } } }, ms });
      }
    }
    expect(answers.known!.map((answer) => answer.status)).toEqual([...Array(10).fill(401), 429, 429]);
    expect(answers.unknown!.map((answer) => answer.status)).toEqual(answers.known!.map((answer) => answer.status));
    expect(answers.unknown!.map((answer) => answer.body)).toEqual(answers.known!.map((answer) => answer.body));
    // Refusals cost no hashing for either: both are far below a bcrypt round even at this test's cost 4... and alike.
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const knownRefused = median(answers.known!.slice(10).map((answer) => answer.ms));
    const unknownRefused = median(answers.unknown!.slice(10).map((answer) => answer.ms));
    expect(Math.abs(knownRefused - unknownRefused)).toBeLessThan(25);
  });

  it('refuses a parallel burst of guesses exactly at the limit once a failure is counted, across both processes', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    expect((await signIn(a, address, user.email, 'wrong password')).status).toBe(401);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, index) => signIn(index % 2 ? a : b, address, user.email, 'wrong password')));
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(9);
    expect(statuses.filter((status) => status === 429)).toHaveLength(21);
  });

  it('never limits parallel successful sign-ins of one account from one address', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    const burst = await Promise.all(Array.from({ length: 32 }, (_, index) => signIn(index % 2 ? a : b, address, user.email, PASSWORD)));
    expect(burst.map((response) => response.status)).toEqual(Array(32).fill(200));
  });

  it('clears the account-and-address counter on a successful sign-in', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    for (let attempt = 0; attempt < 9; attempt++) expect((await signIn(a, address, user.email, 'wrong password')).status).toBe(401);
    expect((await signIn(b, address, user.email, PASSWORD)).status).toBe(200);
    for (let attempt = 0; attempt < 9; attempt++) expect((await signIn(b, address, user.email, 'wrong password')).status).toBe(401);
    expect((await signIn(a, address, user.email, PASSWORD)).status).toBe(200);
  });

  it('counts a wrong current password of a password change as a failed sign-in', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await a.request().post('/auth/password').set('X-Forwarded-For', address).set(user.auth).send({ currentPassword: 'wrong password', newPassword: 'new password 1' });
      expect(response.status).toBe(400);
    }
    const refused = await b.request().post('/auth/password').set('X-Forwarded-For', address).set(user.auth).send({ currentPassword: PASSWORD, newPassword: 'new password 1' });
    expect(refused.status).toBe(429);
    expect((await signIn(a, address, user.email, PASSWORD)).status).toBe(429);
  });

  it('does not count malformed requests (400)', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    for (let attempt = 0; attempt < 15; attempt++) {
      expect((await a.request().post('/auth/signin').set('X-Forwarded-For', address).send({ email: user.email, password: 'short' })).status).toBe(400);
    }
    expect((await signIn(a, address, user.email, PASSWORD)).status).toBe(200);
  });
});

describe('failed sign-ins per address', () => {
  it('refuses an address that guesses at many accounts, across both processes', async () => {
    const address = nextAddress();
    for (let attempt = 0; attempt < 25; attempt++) {
      expect((await signIn(attempt % 2 ? a : b, address, uniqueEmail('spray'), 'wrong password')).status).toBe(401);
    }
    const refused = await signIn(a, address, uniqueEmail('spray'), 'wrong password');
    expect(refused.status).toBe(429);
    expect(errorOf(refused).details).toMatchObject({ limit: 'signinFailuresPerAddress' });
    expect((await signIn(a, nextAddress(), uniqueEmail('spray'), 'wrong password')).status).toBe(401);
  });
});

describe('signups per address', () => {
  it('lets 20 parallel signups from one address through, refuses past the limit, and counts no 400', async () => {
    const address = nextAddress();
    const signup = (h: Harness, body: object) => h.request().post('/auth/signup').set('X-Forwarded-For', address).send(body);
    const parallel = await Promise.all(Array.from({ length: 20 }, (_, index) => signup(index % 2 ? a : b, { email: uniqueEmail('burst'), password: PASSWORD })));
    expect(parallel.map((response) => response.status)).toEqual(Array(20).fill(201));
    for (let attempt = 0; attempt < 5; attempt++) expect((await signup(a, { email: 'not an email', password: PASSWORD })).status).toBe(400);
    for (let index = 0; index < 10; index++) expect((await signup(index % 2 ? a : b, { email: uniqueEmail('more'), password: PASSWORD })).status).toBe(201);
    const refused = await signup(b, { email: uniqueEmail('over'), password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).details).toMatchObject({ limit: 'signupsPerAddress' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await a.request().post('/auth/signup').set('X-Forwarded-For', nextAddress()).send({ email: uniqueEmail(), password: PASSWORD })).status).toBe(201);
  });
});

describe('refreshes per session', () => {
  it('refuses a session refreshed too often, on either process', async () => {
    const user = await signUp(a);
    let token = user.refreshToken;
    for (let refresh = 0; refresh < 5; refresh++) {
      const response = await (refresh % 2 ? a : b).request().post('/auth/refresh').send({ refreshToken: token });
      expect(response.status).toBe(200);
      token = response.body.data.refreshToken;
    }
    const refused = await a.request().post('/auth/refresh').send({ refreshToken: token });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).details).toMatchObject({ limit: 'refreshesPerSession' });
    // Another device of the same user refreshes on.
    const other = await signUp(a);
    expect((await b.request().post('/auth/refresh').send({ refreshToken: other.refreshToken })).status).toBe(200);
  });
});

describe('the counters', () => {
  it('are stored as digests (no email or address in the table) and cleaned up once their window ended', async () => {
    const address = nextAddress();
    const email = uniqueEmail('stored');
    await signIn(a, address, email, 'wrong password');
    const rows = await a.services.knex('_basalt_limits').select('key');
    expect(JSON.stringify(rows)).not.toContain(email);
    expect(JSON.stringify(rows)).not.toContain(address);
    await a.services.knex('_basalt_limits').insert({ key: 'ended', hits: 3, window_end: a.services.knex.raw("now() - interval '1 second'") });
    await a.services.sweeper.run();
    expect(a.services.sweeper.last.limits).toBeGreaterThanOrEqual(1);
    expect(await a.services.knex('_basalt_limits').where({ key: 'ended' }).first()).toBeUndefined();
    expect((await a.services.knex('_basalt_limits').count({ n: '*' }).first())?.n).not.toBe('0');
  });

  it('start over once the window has ended', async () => {
    const address = nextAddress();
    const user = await signUp(a);
    for (let attempt = 0; attempt < 10; attempt++) await signIn(a, address, user.email, 'wrong password');
    expect((await signIn(a, address, user.email, PASSWORD)).status).toBe(429);
    await a.services.knex('_basalt_limits').update({ window_end: a.services.knex.raw("now() - interval '1 second'") });
    expect((await signIn(b, address, user.email, PASSWORD)).status).toBe(200);
  });
});

describe('configuration', () => {
  const withConfig = (content: unknown) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-limits-'));
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify(content));
    return file;
  };

  it('reads limits from config.json: defaults, overrides, false for none', () => {
    expect(readProjectConfig(withConfig({})).limits).toEqual(DEFAULT_LIMITS);
    expect(readProjectConfig(withConfig({ limits: false })).limits).toBe(false);
    const limits = readProjectConfig(withConfig({ limits: { signupsPerAddress: { max: 5, windowSeconds: 60 } } })).limits;
    expect(limits).toEqual({ ...DEFAULT_LIMITS, signupsPerAddress: { max: 5, windowSeconds: 60 } });
    const files = readProjectConfig(withConfig({ limits: { uploadsPerUser: { max: 9, windowSeconds: 60 }, storageBytesPerUser: { max: 1024 } } })).limits;
    expect(files).toEqual({ ...DEFAULT_LIMITS, uploadsPerUser: { max: 9, windowSeconds: 60 }, storageBytesPerUser: { max: 1024 } });
  });

  it.each([
    [{ limits: true }],
    [{ limits: { nonsense: { max: 1, windowSeconds: 1 } } }],
    [{ limits: { signupsPerAddress: { max: 0, windowSeconds: 60 } } }],
    [{ limits: { signupsPerAddress: { max: 5 } } }],
    [{ limits: { signupsPerAddress: { max: 5, windowSeconds: 1.5 } } }],
    [{ limits: { signupsPerAddress: { max: 5, windowSeconds: 60, burst: 2 } } }],
    [{ limits: { storageBytesPerUser: { max: 0 } } }],
    [{ limits: { storageBytesPerUser: { max: 10, windowSeconds: 60 } } }],
    [{ limits: { storageBytesPerUser: 10 } }],
  ])('refuses %j with a message naming the file', (content) => {
    const file = withConfig(content);
    expect(() => readProjectConfig(file)).toThrow(file);
  });

  it('turns every limit off with limits: false', async () => {
    const h = await startHarness({ limits: false });
    try {
      const user = await signUp(h);
      for (let attempt = 0; attempt < 12; attempt++) expect((await h.request().post('/auth/signin').send({ email: user.email, password: 'wrong password' })).status).toBe(401);
      expect((await h.request().post('/auth/signin').send({ email: user.email, password: PASSWORD })).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const h = await startHarness({ limits: { ...DEFAULT_LIMITS, signinFailuresPerAccountAndAddress: { max: 2, windowSeconds: 900 } } });
    try {
      const user = await signUp(h);
      for (let attempt = 0; attempt < 2; attempt++) await h.request().post('/auth/signin').set('X-Forwarded-For', nextAddress()).send({ email: user.email, password: 'wrong password' });
      // A forged header does not make a new address: the socket's address is counted.
      const response = await h.request().post('/auth/signin').set('X-Forwarded-For', nextAddress()).send({ email: user.email, password: PASSWORD });
      expect(response.status).toBe(429);
    } finally {
      await h.close();
    }
  });
});
