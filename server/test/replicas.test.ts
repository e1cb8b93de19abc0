import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicated, type Replicated } from '../../test-support/standby.js';
import type { TestDatabase } from '../../test-support/database.js';
import type { ReplicaConfig } from '../src/config.js';
import { findFreePort } from '../src/db/embedded.js';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';
import { parseSamples, promtoolCheck, total } from './metricsText.js';

/**
 * Read replicas (issue 25) against a real hot standby of a primary of its own (test-support/standby.ts): reads go to
 * the standby when it replayed what they must see, else after REPLICA_WAIT_MS to the primary, never stale for a
 * caller who wrote; a paused, stopped or far-behind standby is skipped.
 */

const METRICS_TOKEN = 'replicas-metrics-token-0123456789';
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

let r: Replicated;
let database: TestDatabase;
let h: Harness;
let owner: Account;
let alice: Account;
let bob: Account;
const harnesses: Harness[] = [];

async function replicated(replicas: Partial<ReplicaConfig> = {}): Promise<Harness> {
  const started = await startHarness({ database, metricsToken: METRICS_TOKEN, replicas: { urls: [r.standbyUrl], waitMs: 20, maxLagMs: 10_000, realtime: false, ...replicas } });
  harnesses.push(started);
  return started;
}

const standbyOf = (harness: Harness) => harness.services.replicas!.standbys[0]!;
/** Reads the standby served and reads that went to the primary, from now on. */
function counting(harness: Harness): () => { standby: number; primary: number } {
  const [served, fallbacks] = [standbyOf(harness).served, harness.services.replicas!.primaryFallbacks];
  return () => ({ standby: standbyOf(harness).served - served, primary: harness.services.replicas!.primaryFallbacks - fallbacks });
}

/** One list read of `notes` by bob through `harness`: where it went (it must answer 200). */
async function oneRead(harness: Harness): Promise<{ standby: number; primary: number }> {
  const served = counting(harness);
  expect((await harness.request().get('/api/notes').set(bob.auth)).status).toBe(200);
  return served();
}

async function onStandby<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: r.standbyUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  r = await startReplicated();
  database = { url: r.primaryUrl, name: 'postgres', drop: async () => undefined };
  h = await replicated();
  owner = await signUp(h);
  alice = await signUp(h);
  bob = await signUp(h);
  // Every member writes their own notes and reads everyone's.
  await createTable(h, owner, { name: 'notes', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }], policy: 'rules', rules: { read: 'true', create: 'user_id = @auth.id' } });
  await r.caughtUp();
}, 60_000);
afterAll(async () => {
  await r?.resume().catch(() => undefined);
  for (const harness of harnesses) await harness.close();
  await r?.stop();
});

async function scrape(harness: Harness) {
  return parseSamples((await harness.request().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).text);
}

const write = (who: Account, body: string) => h.request().post('/api/notes').set(who.auth).send({ body });

describe('Basalt-Lsn and Basalt-Min-Lsn', () => {
  it('a write answers the primary position after its commit; reads and refusals do not', async () => {
    const created = await write(alice, 'first');
    expect(created.status).toBe(201);
    const lsn = created.headers['basalt-lsn'];
    expect(lsn).toMatch(LSN);
    // Once the standby replayed that far, the row is there: the position is not before the commit.
    await r.caughtUp();
    const replayed = (await onStandby<{ replayed: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS replayed', [lsn]))[0]?.replayed;
    expect(replayed).toBe(true);
    expect(await onStandby('SELECT body FROM notes WHERE id = $1', [created.body.data.id])).toEqual([{ body: 'first' }]);
    const read = await h.request().get(`/api/notes/${created.body.data.id}`).set(bob.auth);
    expect(read.status).toBe(200);
    expect(read.headers['basalt-lsn']).toBeUndefined();
    const refused = await h.request().post('/api/notes').send({ body: 'anon' });
    expect(refused.status).toBe(401);
    expect(refused.headers['basalt-lsn']).toBeUndefined();
    // Other doors that write carry it too: a sign-in writes a session.
    const signIn = await h.request().post('/auth/signin').send({ email: bob.email, password: 'correct horse' });
    expect(signIn.status).toBe(200);
    expect(signIn.headers['basalt-lsn']).toMatch(LSN);
  });

  it('refuses a malformed Basalt-Min-Lsn with 400 naming the header, and takes one as Basalt-Lsn gives it', async () => {
    for (const bad of ['', 'latest', '0/', '1', '0/1;DROP TABLE notes', "0/1' OR '1'='1", '123456789/0', '0/1/2', '-1/0', 'FFFFFFFFF/0']) {
      const response = await h.request().get('/api/notes').set(bob.auth).set('Basalt-Min-Lsn', bad);
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { header: 'basalt-min-lsn' } });
    }
    const fine = await h.request().get('/api/notes').set(bob.auth).set('Basalt-Min-Lsn', '0/1a');
    expect(fine.status).toBe(200);
    expect((await h.request().get('/api/notes').set('Basalt-Min-Lsn', 'nope').set('apikey', h.services.tokens.anonKey)).status).toBe(400);
  });
});

describe('routing reads', () => {
  it('sends reads to the standby once it replayed what they must see', async () => {
    await r.caughtUp();
    const served = counting(h);
    for (let i = 0; i < 20; i++) expect((await h.request().get('/api/notes?limit=5').set(bob.auth)).status).toBe(200);
    expect(served()).toEqual({ standby: 20, primary: 0 });
  });

  it('with replay paused: the writer reads its own writes, Basalt-Min-Lsn gets them for anyone, others may see the past', async () => {
    await r.pause();
    try {
      const served = counting(h);
      for (let i = 0; i < 25; i++) {
        const created = await write(alice, `paused ${i}`);
        expect(created.status).toBe(201);
        // Remembered for the writer by this process: never stale (the standby is paused, so the primary answers).
        const mine = await h.request().get(`/api/notes/${created.body.data.id}`).set(alice.auth);
        expect(mine.status).toBe(200);
        expect(mine.body.data.body).toBe(`paused ${i}`);
        // Another caller without the header is served the standby's past: the row is not there yet.
        expect((await h.request().get(`/api/notes/${created.body.data.id}`).set(bob.auth)).status).toBe(404);
        const asked = await h.request().get(`/api/notes/${created.body.data.id}`).set(bob.auth).set('Basalt-Min-Lsn', String(created.headers['basalt-lsn']));
        expect(asked.status).toBe(200);
      }
      expect(served()).toEqual({ standby: 25, primary: 50 });
    } finally {
      await r.resume();
    }
  });

  it('waits up to REPLICA_WAIT_MS for the standby, then reads there', async () => {
    const patient = await replicated({ waitMs: 5_000 });
    // Caught up first: only the request's Basalt-Min-Lsn keeps its read from the standby's present.
    await r.caughtUp();
    await r.pause();
    const created = await write(alice, 'waited for');
    const served = counting(patient);
    const started = Date.now();
    const reading = patient.request().get(`/api/notes/${created.body.data.id}`).set(bob.auth).set('Basalt-Min-Lsn', String(created.headers['basalt-lsn']));
    setTimeout(() => void r.resume(), 300);
    const read = await reading;
    expect(read.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(served()).toEqual({ standby: 1, primary: 0 });
  });

  it('reads a table made a moment ago on the primary until the standby has it', async () => {
    await r.pause();
    try {
      await createTable(h, owner, { name: 'fresh_table', columns: [{ name: 'title', type: 'text' }], policy: 'public-read' });
      expect((await h.request().post('/api/fresh_table').set(owner.auth).send({ title: 'new' })).status).toBe(201);
      const served = counting(h);
      const listed = await h.request().get('/api/fresh_table').set(bob.auth);
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((row: { title: string }) => row.title)).toEqual(['new']);
      expect(served()).toEqual({ standby: 0, primary: 1 });
    } finally {
      await r.resume();
    }
  });
});

describe('the access decision on a standby', () => {
  it("a read routed to the standby sees only what the caller's policy or rule lets it see", async () => {
    await createTable(h, owner, { name: 'diaries', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
    await createTable(h, owner, { name: 'letters', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }, { name: 'sent', type: 'boolean', default: false }], policy: 'rules', rules: { read: 'user_id = @auth.id or sent = true', create: 'user_id = @auth.id' } });
    await createTable(h, owner, { name: 'ledger', columns: [{ name: 'body', type: 'text' }], policy: 'private' });
    const diary = (await h.request().post('/api/diaries').set(alice.auth).send({ body: "alice's" })).body.data.id as string;
    const draft = (await h.request().post('/api/letters').set(alice.auth).send({ body: 'draft' })).body.data.id as string;
    const sent = (await h.request().post('/api/letters').set(alice.auth).send({ body: 'sent', sent: true })).body.data.id as string;
    const entry = (await h.request().post('/api/ledger').set(owner.auth).send({ body: 'owner only' })).body.data.id as string;
    await r.caughtUp();
    const served = counting(h);
    // Owner-scoped: bob sees none of alice's rows, alice sees hers.
    expect((await h.request().get('/api/diaries').set(bob.auth)).body).toMatchObject({ data: [], total: 0 });
    expect((await h.request().get(`/api/diaries/${diary}`).set(bob.auth)).status).toBe(404);
    expect((await h.request().get(`/api/diaries/${diary}`).set(alice.auth)).body.data.body).toBe("alice's");
    // Rules: bob reads the sent letter and not the draft; the filter= language is ANDed with the rule there too.
    const letters = await h.request().get('/api/letters').set(bob.auth);
    expect(letters.body.data.map((row: { id: string }) => row.id)).toEqual([sent]);
    expect(letters.body.total).toBe(1);
    expect((await h.request().get(`/api/letters/${draft}`).set(bob.auth)).status).toBe(404);
    expect((await h.request().get(`/api/letters?filter=${encodeURIComponent("body = 'draft'")}`).set(bob.auth)).body.total).toBe(0);
    // Private: 403 for a member and for anon, whatever copy would have answered.
    expect((await h.request().get(`/api/ledger/${entry}`).set(bob.auth)).status).toBe(403);
    expect((await h.request().get('/api/ledger').set('apikey', h.services.tokens.anonKey)).status).toBe(403);
    // Every read that ran a statement ran it on the standby (the 403s are decided before any statement).
    expect(served()).toEqual({ standby: 6, primary: 0 });
  });
});

describe('standby health', () => {
  it('a stopped standby: reads move to the primary without errors, and come back when it is up again', async () => {
    await r.caughtUp();
    await r.stopStandby();
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, () => h.request().get('/api/notes?limit=3').set(bob.auth)));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      await h.services.replicas!.sample();
      const ready = await h.request().get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.data).toEqual({ status: 'ready', replicas: { configured: 1, inUse: 0 } });
      expect(await oneRead(h)).toEqual({ standby: 0, primary: 1 });
    } finally {
      await r.startStandby();
    }
    await r.caughtUp();
    await h.services.replicas!.sample();
    expect((await h.request().get('/ready')).body.data.replicas).toEqual({ configured: 1, inUse: 1 });
    expect(await oneRead(h)).toEqual({ standby: 1, primary: 0 });
  });

  it('starts with a standby that does not answer, and serves every read from the primary', async () => {
    const unreachable = await startHarness({ database, replicas: { urls: [`postgres://postgres@127.0.0.1:${await findFreePort()}/postgres`], waitMs: 20, maxLagMs: 10_000, realtime: false } });
    harnesses.push(unreachable);
    expect((await unreachable.request().get('/ready')).body.data).toEqual({ status: 'ready', replicas: { configured: 1, inUse: 0 } });
    const served = counting(unreachable);
    expect((await unreachable.request().get('/api/notes').set(bob.auth)).status).toBe(200);
    expect(served()).toEqual({ standby: 0, primary: 1 });
  });

  it('a standby further behind than REPLICA_MAX_LAG_MS is skipped, its lag in /metrics, until it catches up', async () => {
    const strict = await replicated({ maxLagMs: 1_000 });
    await r.pause();
    try {
      await h.services.replicas!.sample();
      expect((await write(alice, 'left behind')).status).toBe(201);
      for (let i = 0; i < 4; i++) {
        await strict.services.replicas!.sample();
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      await strict.services.replicas!.sample();
      const behind = await scrape(strict);
      expect(total(behind, 'basalt_replica_lag_seconds', { standby: standbyOf(strict).name })).toBeGreaterThan(1);
      expect(total(behind, 'basalt_replica_in_use', { standby: standbyOf(strict).name })).toBe(0);
      expect((await strict.request().get('/ready')).body.data.replicas).toEqual({ configured: 1, inUse: 0 });
      expect(await oneRead(strict)).toEqual({ standby: 0, primary: 1 });
    } finally {
      await r.resume();
    }
    await r.caughtUp();
    await strict.services.replicas!.sample();
    expect(await oneRead(strict)).toEqual({ standby: 1, primary: 0 });
    const after = await scrape(strict);
    expect(total(after, 'basalt_replica_lag_seconds', { standby: standbyOf(strict).name })).toBeLessThan(0.5);
    expect(total(after, 'basalt_replica_in_use', { standby: standbyOf(strict).name })).toBe(1);
    expect(total(after, 'basalt_replica_reads_total', { standby: standbyOf(strict).name })).toBe(1);
    expect(total(after, 'basalt_replica_primary_fallbacks_total')).toBe(1);
    // Names carry no credentials, and the scrape is valid Prometheus text.
    expect(standbyOf(strict).name).toMatch(/^127\.0\.0\.1:\d+\/postgres$/);
    const text = (await strict.request().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).text;
    expect((await promtoolCheck(text)).code).toBe(0);
  });
});
