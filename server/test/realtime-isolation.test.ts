import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { anonHeaders, createTable, signUp, startHarness, type Account, type Harness } from './harness.js';
import { openStream, type TestStream } from './sse.js';

/**
 * Issue 22, items 1 and 2: a column named like an alias of the write trigger (`n`, `o`, `w`, ...) must not turn the
 * logged rows into that column's values, and a change that cannot be delivered must cost only its own table's
 * subscribers, never every stream of the process.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
let member: Account;
const streams: TestStream[] = [];

const METRICS_TOKEN = 'isolation-metrics-token';

// Every alias the trigger function uses, and the ones the old one did, as column names.
const ALIAS_COLUMNS = ['n', 'o', 'r', 'w', 's', 'scope', 'basalt_row', 'written', 'removed', 'logged'];

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database, metricsToken: METRICS_TOKEN });
  b = await startHarness({ database });
  owner = await signUp(a);
  member = await signUp(a);
  await createTable(a, owner, { name: 'shadows', policy: 'public-read', columns: ALIAS_COLUMNS.map((name) => ({ name, type: name === 'n' ? 'integer' : 'text' })) });
  await createTable(a, owner, { name: 'mine', columns: [{ name: 'user_id', type: 'text' }, { name: 'n', type: 'integer' }, { name: 'o', type: 'text' }] });
  await createTable(a, owner, { name: 'healthy', policy: 'public-read', columns: [{ name: 'label', type: 'text' }] });
  await createTable(a, owner, { name: 'poisoned', policy: 'public-read', columns: [{ name: 'amount', type: 'integer' }] });
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
  expect(opened.status).toBe(200);
  // The hub reads every 50 ms; give the subscription a moment to join before writing.
  await new Promise((resolve) => setTimeout(resolve, 120));
  return opened;
}

describe('columns named like the trigger aliases', () => {
  it('streams whole rows of a table with columns n, o and the rest, across two processes, API and psql writes alike', async () => {
    const watcher = await stream(b, '/realtime/shadows', anonHeaders(b));
    const values = Object.fromEntries(ALIAS_COLUMNS.map((name) => [name, name === 'n' ? 7 : `${name}-value`]));
    const created = await a.request().post('/api/shadows').set(owner.auth).send(values);
    expect(created.status).toBe(201);
    const id = (created.body.data as { id: string }).id;
    await a.request().put(`/api/shadows/${id}`).set(owner.auth).send({ o: 'changed' });
    const sql = await a.sql();
    await sql.query(`INSERT INTO shadows (id, n, o) VALUES ('p1', 1, 'from psql'), ('p2', 2, 'also psql')`);
    await a.request().delete(`/api/shadows/${id}`).set(owner.auth);
    const events = await watcher.waitFor(5);
    expect(events.map((event) => event.event)).toEqual(['insert', 'update', 'insert', 'insert', 'delete']);
    expect(events[0]!.data).toMatchObject({ table: 'shadows', record: { id, ...values } });
    expect(events[1]!.data).toMatchObject({ record: { id, n: 7, o: 'changed', w: 'w-value' } });
    expect(events[2]!.data).toMatchObject({ record: { id: 'p1', n: 1, o: 'from psql', r: null } });
    expect(events[3]!.data).toMatchObject({ record: { id: 'p2', n: 2, o: 'also psql' } });
    expect(events[4]!.data).toEqual({ table: 'shadows', record: { id } });
    // The log holds rows, never a column's values.
    const logged = await sql.query<{ record: unknown[] }>(`SELECT record FROM _basalt_changes WHERE table_name = 'shadows'`);
    for (const row of logged.rows) for (const record of row.record) expect(record).toMatchObject({ id: expect.any(String) });
  });

  it('keeps exact totals per owner on an owner-scoped table with columns n and o', async () => {
    const watcher = await stream(b, '/realtime/mine', member.auth);
    for (const n of [1, 2, 3]) expect((await a.request().post('/api/mine').set(member.auth).send({ n, o: `o${n}` })).status).toBe(201);
    await a.request().post('/api/mine').set(owner.auth).send({ n: 9, o: 'not theirs' });
    const events = await watcher.waitFor(3);
    expect(events.map((event) => (event.data as { record: { n: number; user_id: string } }).record)).toEqual([
      expect.objectContaining({ n: 1, o: 'o1', user_id: member.id }),
      expect.objectContaining({ n: 2, o: 'o2', user_id: member.id }),
      expect.objectContaining({ n: 3, o: 'o3', user_id: member.id }),
    ]);
    const list = await b.request().get('/api/mine?limit=1').set(member.auth);
    expect(list.body.total).toBe(3);
    const maintained = await a.services.knex.raw<{ rows: Array<{ scope: string; n: string }> }>(
      `SELECT scope, sum(n)::text AS n FROM _basalt_counts WHERE table_name = 'mine' GROUP BY scope ORDER BY scope`,
    );
    expect(Object.fromEntries(maintained.rows.map((row) => [row.scope, Number(row.n)]))).toEqual({ '*': 4, [member.id]: 3, [owner.id]: 1 });
  });
});

describe('a change that cannot be delivered', () => {
  it("costs only its own table's subscribers a reset; every other stream of the process goes on", async () => {
    const healthy = await stream(a, '/realtime/healthy', anonHeaders(a));
    const poisoned = await stream(a, '/realtime/poisoned', anonHeaders(a));
    const both = await stream(a, '/realtime?tables=healthy,poisoned', anonHeaders(a));
    const before = a.services.hub.undeliverable;
    const sql = await a.sql();
    // Log rows the table's types cannot take: a scalar where a row belongs (what the old trigger wrote for a column
    // named n), and a value of the wrong type (as after a psql type change); then a good change of each table.
    await sql.query(`INSERT INTO _basalt_changes (table_name, op, record) VALUES ('poisoned', 'i', '[2]'), ('poisoned', 'i', '[{"id": "x", "amount": "many"}]')`);
    await a.request().post('/api/poisoned').set(owner.auth).send({ amount: 5 });
    await a.request().post('/api/healthy').set(owner.auth).send({ label: 'still flowing' });
    const fine = await healthy.waitFor(1);
    expect(fine[0]).toMatchObject({ event: 'insert', data: { table: 'healthy', record: { label: 'still flowing' } } });
    const seen = await poisoned.waitFor(3);
    expect(seen.map((event) => event.event)).toEqual(['reset', 'reset', 'insert']);
    expect(seen[0]!.data).toMatchObject({ table: 'poisoned', reason: expect.stringContaining('could not be delivered') });
    expect(seen[2]!.data).toMatchObject({ record: { amount: 5 } });
    const mixed = await both.waitFor(4);
    expect(mixed.map((event) => `${event.event} ${(event.data as { table: string }).table}`)).toEqual(['reset poisoned', 'reset poisoned', 'insert poisoned', 'insert healthy']);
    expect(a.services.hub.undeliverable - before).toBe(2);
    const metrics = await a.request().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`);
    expect(metrics.text).toMatch(new RegExp(`^basalt_realtime_undeliverable_changes_total ${a.services.hub.undeliverable}$`, 'm'));
    // The reset's id is the change's place: a resume after it does not meet it again.
    const resumed = await stream(b, '/realtime/poisoned', { ...anonHeaders(b), 'last-event-id': seen[1]!.id! });
    const again = await resumed.waitFor(1);
    expect(again[0]).toMatchObject({ event: 'insert', data: { record: { amount: 5 } } });
    // The streams are still open and the hub still reads: a later change arrives at once.
    await a.request().post('/api/healthy').set(owner.auth).send({ label: 'later' });
    expect((await healthy.waitFor(2))[1]).toMatchObject({ data: { record: { label: 'later' } } });
    expect(healthy.ended || poisoned.ended || both.ended).toBe(false);
  });
});
