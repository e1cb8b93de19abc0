import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { anonHeaders, createTable, errorOf, signUp, startHarness, TEST_SECRET, type Account, type Harness } from './harness.js';
import { openStream, type StreamEvent, type TestStream } from './sse.js';

/**
 * Realtime (API.md, "Realtime") on two processes sharing one database: writes through A (or psql) reach streams on B,
 * each subscriber seeing what its policy, scope and filters let it see; resumes by Last-Event-ID lose nothing.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
let alice: Account;
let bob: Account;
const streams: TestStream[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database });
  b = await startHarness({ database });
  owner = await signUp(a);
  alice = await signUp(a);
  bob = await signUp(a);
  await createTable(a, owner, { name: 'todos', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'done', type: 'boolean', default: false }] });
  await createTable(a, owner, { name: 'news', policy: 'public-read', columns: [{ name: 'headline', type: 'text' }] });
  await createTable(a, owner, { name: 'vault', policy: 'private', columns: [{ name: 'secret', type: 'text' }] });
});
afterAll(async () => {
  streams.forEach((stream) => stream.close());
  await a?.close();
  await b?.close();
  await database?.drop();
});

async function stream(h: Harness, path: string, headers: Record<string, string>): Promise<TestStream> {
  const opened = await openStream(`${h.url}${path}`, headers);
  streams.push(opened);
  // The hub reads every 50 ms; give the subscription a moment to join before writing.
  if (opened.status === 200) await new Promise((resolve) => setTimeout(resolve, 120));
  return opened;
}

const write = (h: Harness, account: Account, path: string, body: object) => h.request().post(path).set(account.auth).send(body);
const records = (events: StreamEvent[]): Array<[string, Record<string, unknown>]> => events.map((event) => [event.event, (event.data as { record: Record<string, unknown> }).record]);

describe('delivery across processes', () => {
  it('delivers inserts, updates and deletes made through A to a stream on B, each user only their own rows', async () => {
    const mine = await stream(b, '/realtime/todos', alice.auth);
    const theirs = await stream(b, '/realtime/todos', bob.auth);
    const created = (await write(a, alice, '/api/todos', { title: 'buy milk' })).body.data as { id: string };
    await a.request().put(`/api/todos/${created.id}`).set(alice.auth).send({ done: true });
    await a.request().delete(`/api/todos/${created.id}`).set(alice.auth);
    const events = await mine.waitFor(3);
    expect(events.map((event) => event.event)).toEqual(['insert', 'update', 'delete']);
    expect(events[0]!.data).toMatchObject({ table: 'todos', record: { id: created.id, title: 'buy milk', done: false, user_id: alice.id } });
    expect((events[0]!.data as { record: { createdAt: string } }).record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(events[1]!.data).toMatchObject({ record: { id: created.id, done: true } });
    expect(events[2]!.data).toEqual({ table: 'todos', record: { id: created.id } });
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(theirs.events).toEqual([]);
  });

  it('delivers changes made with psql, bulk inserts included', async () => {
    const watcher = await stream(b, '/realtime/news', anonHeaders(b));
    await a.services.knex.raw(`INSERT INTO news (id, headline) VALUES ('n1', 'from psql'), ('n2', 'also from psql')`);
    await write(a, owner, '/api/news', [{ headline: 'bulk 1' }, { headline: 'bulk 2' }]);
    const events = await watcher.waitFor(4);
    expect(events.map((event) => (event.data as { record: { headline: string } }).record.headline)).toEqual(['from psql', 'also from psql', 'bulk 1', 'bulk 2']);
  });

  it('logs a table\'s changes only while somebody streams it: from the first stream on, none before', async () => {
    await createTable(a, owner, { name: 'fresh_table', policy: 'public-read', columns: [{ name: 'label', type: 'text' }] });
    const logged = async () => Number((await a.services.knex('_basalt_changes').where({ table_name: 'fresh_table' }).count({ n: '*' }).first())?.n);
    const described = async () => (await a.request().get('/admin/tables/fresh_table').set(owner.auth)).body.data.realtime;
    await write(a, owner, '/api/fresh_table', { label: 'before any stream' });
    expect(await logged()).toBe(0);
    expect(await described()).toEqual({ captured: true, streamed: false });
    // The stream answers only once capture is on, on whichever process: the first write after it is delivered.
    const watcher = await openStream(`${b.url}/realtime/fresh_table`, anonHeaders(b));
    streams.push(watcher);
    await write(a, owner, '/api/fresh_table', { label: 'right after' });
    const [event] = await watcher.waitFor(1);
    expect(event!.data).toMatchObject({ table: 'fresh_table', record: { label: 'right after' } });
    expect(await logged()).toBe(1);
    expect(await described()).toEqual({ captured: true, streamed: true });
  });

  it('covers a table made with psql as soon as the schema cache sees it, and says so in its description', async () => {
    await a.services.knex.raw(`CREATE TABLE from_psql (id text PRIMARY KEY DEFAULT md5(random()::text), label text)`);
    await a.services.knex.raw(`NOTIFY basalt, 'reload schema'`);
    const started = Date.now();
    let described = await a.request().get('/admin/tables/from_psql').set(owner.auth);
    while (described.body.data?.realtime?.captured !== true && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      described = await a.request().get('/admin/tables/from_psql').set(owner.auth);
    }
    expect(described.body.data.realtime).toEqual({ captured: true, streamed: false });
    const watcher = await stream(b, '/realtime/from_psql', owner.auth);
    await a.services.knex.raw(`INSERT INTO from_psql (label) VALUES ('made in psql')`);
    const [event] = await watcher.waitFor(1);
    expect(event!.data).toMatchObject({ table: 'from_psql', record: { label: 'made in psql' } });
  });

  it('applies the list filters and select: a row that stops matching sends nothing', async () => {
    const open = await stream(b, '/realtime/todos?done=false&select=id,title', alice.auth);
    const first = (await write(a, alice, '/api/todos', { title: 'open one' })).body.data as { id: string };
    await write(a, alice, '/api/todos', { title: 'done already', done: true });
    await a.request().put(`/api/todos/${first.id}`).set(alice.auth).send({ done: true });
    await write(a, alice, '/api/todos', { title: 'open two' });
    const events = await open.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(records(open.events)).toEqual([
      ['insert', { id: first.id, title: 'open one' }],
      ['insert', { id: expect.any(String), title: 'open two' }],
    ]);
    expect(events).toHaveLength(2);
  });

  it('carries several tables in one stream', async () => {
    const both = await stream(b, '/realtime?tables=todos,news', alice.auth);
    await write(a, alice, '/api/todos', { title: 'in both' });
    await write(a, owner, '/api/news', { headline: 'also in both' });
    const events = await both.waitFor(2);
    expect(events.map((event) => (event.data as { table: string }).table)).toEqual(['todos', 'news']);
  });

  it('sends reset on TRUNCATE', async () => {
    const watcher = await stream(b, '/realtime/vault', owner.auth);
    await a.services.knex.raw('TRUNCATE vault');
    const [event] = await watcher.waitFor(1);
    expect(event).toMatchObject({ event: 'reset', data: { table: 'vault' } });
  });
});

describe('policies', () => {
  it('refuses before the stream opens: 401 without credentials, 403 where the policy says no, 404 for no table', async () => {
    expect((await stream(b, '/realtime/todos', {})).status).toBe(401);
    const anonTodos = await stream(b, '/realtime/todos', anonHeaders(b));
    expect(anonTodos.status).toBe(403);
    expect(anonTodos.body).toMatchObject({ error: { code: 'FORBIDDEN', details: { table: 'todos', policy: 'owner-scoped', operation: 'read' } } });
    expect((await stream(b, '/realtime/vault', alice.auth)).status).toBe(403);
    expect((await stream(b, '/realtime/users', owner.auth)).status).toBe(404);
    expect((await stream(b, '/realtime?tables=news,vault', alice.auth)).status).toBe(403);
  });

  it('gives the owner every row on the admin stream, and ends a stream whose policy stops allowing it', async () => {
    const all = await stream(b, '/admin/tables/todos/realtime', owner.auth);
    const anon = await stream(b, '/realtime/news', anonHeaders(b));
    await write(a, bob, '/api/todos', { title: "bob's" });
    expect((await all.waitFor(1))[0]!.data).toMatchObject({ record: { title: "bob's", user_id: bob.id } });
    expect((await a.request().patch('/admin/tables/news').set(owner.auth).send({ policy: 'private' })).status).toBe(200);
    await write(a, owner, '/api/news', { headline: 'now private' });
    await anon.waitForEnd();
    expect(anon.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'FORBIDDEN' } } });
    expect(anon.events.some((event) => event.event === 'insert')).toBe(false);
    await a.request().patch('/admin/tables/news').set(owner.auth).send({ policy: 'public-read' });
  });
});

describe('resuming', () => {
  it('resumes after a killed connection by Last-Event-ID on the other process: nothing lost, nothing twice', async () => {
    const first = await stream(a, '/realtime/todos', alice.auth);
    await write(a, alice, '/api/todos', { title: 'before the cut' });
    const [seen] = await first.waitFor(1);
    first.close();
    for (const title of ['during 1', 'during 2', 'during 3']) await write(a, alice, '/api/todos', { title });
    const resumed = await stream(b, '/realtime/todos', { ...alice.auth, 'Last-Event-ID': seen!.id! });
    await write(a, alice, '/api/todos', { title: 'after' });
    const events = await resumed.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed.events.map((event) => (event.data as { record: { title: string } }).record.title)).toEqual(['during 1', 'during 2', 'during 3', 'after']);
    expect(events).toHaveLength(4);
  });

  it('ends the stream at the token’s exp with the 401, and resumes with a new token losing nothing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const short = jwt.sign({ sub: alice.id, role: 'member', sid: 'x', typ: 'access', iat: now, exp: now + 2 }, TEST_SECRET, { algorithm: 'HS256' });
    const expiring = await stream(b, '/realtime/todos', { Authorization: `Bearer ${short}` });
    await write(a, alice, '/api/todos', { title: 'while valid' });
    const [seen] = await expiring.waitFor(1);
    await expiring.waitForEnd(4_000);
    expect(expiring.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'UNAUTHORIZED', details: { reason: 'token_expired' } } } });
    await write(a, alice, '/api/todos', { title: 'while away' });
    const again = await stream(b, `/realtime/todos?lastEventId=${encodeURIComponent(seen!.id!)}`, alice.auth);
    const [missed] = await again.waitFor(1);
    expect((missed!.data as { record: { title: string } }).record.title).toBe('while away');
  });

  it('answers reset for an event id older than what is kept', async () => {
    const open = await stream(b, '/realtime/todos', alice.auth);
    await write(a, alice, '/api/todos', { title: 'to be forgotten' });
    const [seen] = await open.waitFor(1);
    await a.services.knex.raw(`UPDATE _basalt_changes_trimmed SET xid = pg_current_xact_id()`);
    const late = await stream(b, '/realtime/todos', { ...alice.auth, 'Last-Event-ID': seen!.id! });
    const [reset] = await late.waitFor(1);
    expect(reset!.event).toBe('reset');
    await a.services.knex.raw(`UPDATE _basalt_changes_trimmed SET xid = '0'`);
  });
});

describe('credentials and slow readers', () => {
  it('ends a stream opened with an API key when the key is revoked through the other process', async () => {
    const created = await a.request().post('/auth/keys').set(alice.auth).send({ name: 'live', access: 'read' });
    const { id, key } = created.body.data as { id: string; key: string };
    const open = await stream(b, '/realtime/todos', { Authorization: `Bearer ${key}` });
    expect(open.status).toBe(200);
    await write(a, alice, '/api/todos', { title: 'seen by the key' });
    await open.waitFor(1);
    expect((await a.request().delete(`/auth/keys/${id}`).set(alice.auth)).status).toBe(200);
    await write(a, alice, '/api/todos', { title: 'after the revocation' });
    await open.waitForEnd();
    expect(open.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'UNAUTHORIZED' } } });
    expect(open.events.filter((event) => event.event === 'insert')).toHaveLength(1);
  });

});

describe('parameters and limits', () => {
  it.each([
    ['/realtime/todos?order=title.asc', 'order'],
    ['/realtime/todos?limit=5', 'limit'],
    ['/realtime/todos?count=none', 'count'],
    ['/realtime/todos?select=id,author(name)', 'select'],
    ['/realtime/todos?nosuch=1', 'nosuch'],
    ["/realtime/todos?title[eq]='; DROP TABLE todos; --&done[gt]=x", 'done[gt]'],
    ['/realtime?tables=todos&done=true', 'done'],
    ['/realtime', 'tables'],
    ['/realtime/todos?lastEventId=../../etc', 'lastEventId'],
  ])('refuses %s with 400 naming %s', async (path, parameter) => {
    const refused = await stream(b, path, alice.auth);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { parameter } } });
  });

  it('treats injection in a filter value as a value', async () => {
    const open = await stream(b, "/realtime/todos?title=x'%20OR%20'1'='1", alice.auth);
    expect(open.status).toBe(200);
    await write(a, alice, '/api/todos', { title: 'plain' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(open.events).toEqual([]);
    expect((await a.request().get('/api/todos?limit=1').set(alice.auth)).status).toBe(200);
  });

  it('takes access_token and apikey in the query (EventSource sends no headers)', async () => {
    expect((await stream(b, `/realtime/todos?access_token=${alice.accessToken}`, {})).status).toBe(200);
    expect((await stream(b, `/realtime/news?apikey=${b.services.tokens.anonKey}`, {})).status).toBe(200);
    expect((await stream(b, '/realtime/news?access_token=nonsense', {})).status).toBe(401);
  });

  it('refuses past the streams a caller may hold open (429)', async () => {
    const carol = await signUp(a);
    const open: TestStream[] = [];
    for (let count = 0; count < 10; count++) open.push(await openStream(`${b.url}/realtime/todos`, carol.auth));
    expect(open.map((one) => one.status)).toEqual(Array.from({ length: 10 }, () => 200));
    const refused = await stream(b, '/realtime/todos', carol.auth);
    expect(refused.status).toBe(429);
    expect(errorOf({ body: refused.body } as never).code).toBe('RATE_LIMITED');
    open.forEach((one) => one.close());
  });

  it('ends every stream on shutdown so clients resume elsewhere', async () => {
    const c = await startHarness({ database });
    const open = await openStream(`${c.url}/realtime/news`, anonHeaders(c));
    c.services.hub.close();
    await open.waitForEnd();
    await c.close();
  });
});
