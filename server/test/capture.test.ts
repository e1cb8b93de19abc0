import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { eventually } from '../../test-support/wait.js';
import { ANON } from '../src/policies/caller.js';
import { anonHeaders, createTable, signUp, startHarness, type Account, type Harness } from './harness.js';
import { openStream, type TestStream } from './sse.js';

/**
 * Capture on demand (issue 22, item 8; docs/realtime.md): a table's changes are logged only while somebody streams it,
 * on any process; capture outlives the last subscriber long enough for resumes; a resume across a time without capture
 * is a reset, never a silent gap.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
const streams: TestStream[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database });
  b = await startHarness({ database });
  owner = await signUp(a);
  for (const name of ['notes', 'busy', 'gaps']) await createTable(a, owner, { name, policy: 'public-read', columns: [{ name: 'label', type: 'text' }] });
});
afterAll(async () => {
  streams.forEach((stream) => stream.close());
  await a?.close();
  await b?.close();
  await database?.drop();
});

async function stream(h: Harness, path: string, headers: Record<string, string> = anonHeaders(h)): Promise<TestStream> {
  const opened = await openStream(`${h.url}${path}`, headers);
  streams.push(opened);
  return opened;
}
const write = (label: string, table = 'notes') => a.request().post(`/api/${table}`).set(owner.auth).send({ label });
const logged = async (table: string) => Number((await a.services.knex('_basalt_changes').where({ table_name: table }).count({ n: '*' }).first())?.n);
const capturing = async (table: string) =>
  (await a.services.knex.raw<{ rows: Array<{ on: boolean }> }>(`SELECT bool_and(tgenabled <> 'D') AS on FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname LIKE '\\_basalt\\_capture\\_%'`, [table])).rows[0]!.on;
/** As if the last subscriber had left longer ago than capture is kept. */
const lapse = (table: string) => a.services.knex.raw(`UPDATE _basalt_streamed SET until = now() - interval '1 second' WHERE table_name = ?`, [table]);

describe('capture on demand', () => {
  it('is off for a table nobody streams, on once a stream of it opens on any process, kept while it is open', async () => {
    await write('unseen');
    expect([await capturing('notes'), await logged('notes')]).toEqual([false, 0]);
    const watcher = await stream(b, '/realtime/notes');
    expect(await capturing('notes')).toBe(true);
    await write('seen');
    expect((await watcher.waitFor(1))[0]).toMatchObject({ data: { record: { label: 'seen' } } });
    // The hub keeps its tables' capture ahead every minute; an expiry meanwhile leaves a kept table alone.
    await b.services.capture.keep(['notes']);
    expect(await a.services.capture.expire()).toBe(0);
    expect(await capturing('notes')).toBe(true);
  });

  it("delivers a write committed between the stream's start and the hub's first read of the log", async () => {
    // What a stream's handler does before its 200 (realtime/routes.ts), then a write its client makes at once, then
    // the hub's turn: however late that turn comes, the write belongs to the stream.
    await a.services.capture.want(['notes']);
    const start = await a.services.hub.position();
    await write('right after the 200');
    const sent: string[] = [];
    const sink = { send: (text: string) => (sent.push(text), true), end: () => undefined };
    const subscription = { caller: ANON, identity: 'anon:test', surface: 'api' as const, tables: ['notes'], filter: null, columns: null, after: null, start, sink };
    a.services.hub.add(subscription);
    try {
      await eventually(async () => expect(sent.join('')).toContain('right after the 200'));
    } finally {
      a.services.hub.drop(subscription);
    }
  });

  it('goes off once nobody kept it past its time, and on again with the next stream', async () => {
    streams.splice(0).forEach((open) => open.close());
    await lapse('notes');
    expect(await a.services.capture.expire()).toBe(1);
    expect(await capturing('notes')).toBe(false);
    const before = await logged('notes');
    await write('while nobody streams');
    expect(await logged('notes')).toBe(before);
    await a.services.cache.reload();
    expect((await a.request().get('/admin/tables/notes').set(owner.auth)).body.data.realtime).toEqual({ captured: true, streamed: false });
    const again = await stream(a, '/realtime/notes');
    await write('streamed again');
    expect((await again.waitFor(1))[0]).toMatchObject({ data: { record: { label: 'streamed again' } } });
  });

  it('answers a resume from before a time without capture with reset, and one within the kept time with what it missed', async () => {
    const first = await stream(a, '/realtime/gaps');
    await write('one', 'gaps');
    const [one] = await first.waitFor(1);
    first.close();
    // Within the kept time: nothing lost.
    await write('two', 'gaps');
    const resumed = await stream(b, '/realtime/gaps', { ...anonHeaders(b), 'last-event-id': one!.id! });
    expect((await resumed.waitFor(1))[0]).toMatchObject({ event: 'insert', data: { record: { label: 'two' } } });
    resumed.close();
    // Capture lapses, a write goes unlogged, capture comes back: the old id cannot be resumed from.
    await lapse('gaps');
    await a.services.capture.expire();
    await write('unlogged', 'gaps');
    const late = await stream(b, '/realtime/gaps', { ...anonHeaders(b), 'last-event-id': one!.id! });
    expect((await late.waitFor(1))[0]).toMatchObject({ event: 'reset' });
  });

  it('opens a stream of a table whose writes hold it too long with 503 and Retry-After, and nothing half done', async () => {
    const sql = await a.sql();
    await sql.query('BEGIN');
    await sql.query(`INSERT INTO busy (id, label) VALUES ('held', 'by an open transaction')`);
    const refused = await stream(b, '/realtime/busy');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    await sql.query('COMMIT');
    expect(await capturing('busy')).toBe(false);
    const opened = await stream(b, '/realtime/busy');
    expect(opened.status).toBe(200);
    await write('now', 'busy');
    expect((await opened.waitFor(1))[0]).toMatchObject({ data: { record: { label: 'now' } } });
  });
});
