import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicated, type Replicated } from '../../test-support/standby.js';
import type { TestDatabase } from '../../test-support/database.js';
import { anonHeaders, createTable, signUp, startHarness, type Account, type Harness } from './harness.js';
import { openStream, type StreamEvent, type TestStream } from './sse.js';

/**
 * Realtime from a standby (issue 25, REALTIME_FROM_REPLICA): process A's hub reads the change log on the primary,
 * process B's on a real hot standby. B delivers the same changes in the same order, later; a stream resumed on B while
 * B's hub is behind its Last-Event-ID gets nothing twice and nothing missed; a standby that stops leaves B's hub on the
 * primary without a gap.
 */

let r: Replicated;
let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
let psql: pg.Client;
const streams: TestStream[] = [];

beforeAll(async () => {
  r = await startReplicated();
  database = { url: r.primaryUrl, name: 'postgres', drop: async () => undefined };
  a = await startHarness({ database });
  b = await startHarness({ database, replicas: { urls: [r.standbyUrl], waitMs: 20, maxLagMs: 10_000, realtime: true } });
  owner = await signUp(a);
  await createTable(a, owner, { name: 'feed', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
  psql = new pg.Client({ connectionString: r.primaryUrl });
  await psql.connect();
}, 60_000);
afterAll(async () => {
  streams.forEach((stream) => stream.close());
  await psql?.end();
  await r?.resume().catch(() => undefined);
  await a?.close();
  await b?.close();
  await r?.stop();
});

async function stream(h: Harness, headers: Record<string, string> = {}): Promise<TestStream> {
  const opened = await openStream(`${h.url}/realtime/feed`, { ...anonHeaders(h), ...headers });
  streams.push(opened);
  expect(opened.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 150));
  return opened;
}

const changes = (events: StreamEvent[]) => events.filter((event) => event.id !== undefined);
const titles = (events: StreamEvent[]) => changes(events).map((event) => `${event.event}:${(event.data as { record: { title?: string } }).record.title ?? ''}`);
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('the change log read from a standby', () => {
  it('delivers the same changes in the same order as the primary, with the same event ids', async () => {
    const onPrimary = await stream(a);
    const onStandby = await stream(b);
    await psql.query("BEGIN; INSERT INTO feed (id, title) VALUES ('t1', 'one'), ('t2', 'two'); UPDATE feed SET title = 'one again' WHERE id = 't1'; COMMIT");
    for (let i = 0; i < 5; i++) expect((await a.request().post('/api/feed').set(owner.auth).send({ title: `api ${i}` })).status).toBe(201);
    await psql.query("DELETE FROM feed WHERE id = 't2'");
    const expected = 3 + 5 + 1;
    await onPrimary.waitFor(expected, (event) => event.id !== undefined);
    await onStandby.waitFor(expected, (event) => event.id !== undefined);
    await settle();
    expect(titles(onStandby.events)).toEqual(titles(onPrimary.events));
    expect(changes(onStandby.events).map((event) => event.id)).toEqual(changes(onPrimary.events).map((event) => event.id));
    expect(changes(onStandby.events)).toHaveLength(expected);
  });

  it('is read on the standby: while its replay is paused B delivers nothing new, then all of it', async () => {
    const onPrimary = await stream(a);
    const onStandby = await stream(b);
    await r.pause();
    try {
      await psql.query("INSERT INTO feed (id, title) VALUES ('p1', 'while paused')");
      await onPrimary.waitFor(1, (event) => event.id !== undefined);
      await settle();
      expect(changes(onStandby.events)).toEqual([]);
    } finally {
      await r.resume();
    }
    await onStandby.waitFor(1, (event) => event.id !== undefined);
    expect(titles(onStandby.events)).toEqual(['insert:while paused']);
  });

  it('a stream resumed on B while its hub is behind the Last-Event-ID gets no change twice and none missed', async () => {
    const keepB = await stream(b);
    const first = await stream(a);
    await r.pause();
    try {
      for (let i = 1; i <= 4; i++) await psql.query('INSERT INTO feed (id, title) VALUES ($1, $2)', [`r${i}`, `before ${i}`]);
      const seen = await first.waitFor(4, (event) => event.id !== undefined);
      first.close();
      // B's hub has not seen these four: it reads the paused standby. The stream resumes there after the fourth.
      const resumed = await stream(b, { 'Last-Event-ID': seen[3]!.id! });
      for (let i = 5; i <= 7; i++) await psql.query('INSERT INTO feed (id, title) VALUES ($1, $2)', [`r${i}`, `after ${i}`]);
      await settle();
      expect(changes(resumed.events)).toEqual([]);
      await r.resume();
      await resumed.waitFor(3, (event) => event.id !== undefined);
      await keepB.waitFor(7, (event) => event.id !== undefined);
      await settle();
      expect(titles(resumed.events)).toEqual(['insert:after 5', 'insert:after 6', 'insert:after 7']);
    } finally {
      await r.resume();
    }
  });

  it("streams read on the standby keep each subscriber to its policy and rule: another user's rows never arrive", async () => {
    const [alice, bob] = [await signUp(a), await signUp(a)];
    await createTable(a, owner, { name: 'diaries', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
    await createTable(a, owner, { name: 'letters', policy: 'rules', rules: { read: 'user_id = @auth.id or sent = true', create: 'user_id = @auth.id' }, columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }, { name: 'sent', type: 'boolean', default: false }] });
    const open = async (table: string, who: Account) => {
      const opened = await openStream(`${b.url}/realtime/${table}`, who.auth);
      streams.push(opened);
      expect(opened.status).toBe(200);
      return opened;
    };
    const [aliceDiary, bobDiary, bobLetters] = [await open('diaries', alice), await open('diaries', bob), await open('letters', bob)];
    await new Promise((resolve) => setTimeout(resolve, 150));
    await a.request().post('/api/diaries').set(alice.auth).send({ body: 'mine' }).expect(201);
    await a.request().post('/api/letters').set(alice.auth).send({ body: 'draft' }).expect(201);
    await a.request().post('/api/letters').set(alice.auth).send({ body: 'sent', sent: true }).expect(201);
    await aliceDiary.waitFor(1, (event) => event.id !== undefined);
    await bobLetters.waitFor(1, (event) => event.id !== undefined);
    await settle();
    expect(changes(bobDiary.events)).toEqual([]);
    expect(changes(bobLetters.events).map((event) => (event.data as { record: { body: string } }).record.body)).toEqual(['sent']);
  });

  it('a standby that stops leaves the hub on the primary: nothing lost, nothing twice', async () => {
    const onPrimary = await stream(a);
    const onStandby = await stream(b);
    await psql.query("INSERT INTO feed (id, title) VALUES ('s1', 'standby up')");
    await onStandby.waitFor(1, (event) => event.id !== undefined);
    await r.caughtUp();
    await r.stopStandby();
    try {
      for (let i = 2; i <= 4; i++) await psql.query('INSERT INTO feed (id, title) VALUES ($1, $2)', [`s${i}`, `standby down ${i}`]);
      await onPrimary.waitFor(4, (event) => event.id !== undefined);
      await onStandby.waitFor(4, (event) => event.id !== undefined, 10_000);
      await settle();
      expect(titles(onStandby.events)).toEqual(titles(onPrimary.events));
    } finally {
      await r.startStandby();
    }
  });
});
