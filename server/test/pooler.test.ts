import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { pgbouncerVersion, startPgBouncer, type PgBouncer } from '../../test-support/pgbouncer.js';
import { MAX_PREPARED_PER_CONNECTION } from '../src/db/preparedPool.js';
import { listenForSchemaChanges, SCHEMA_CHANNEL } from '../src/db/notifications.js';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';
import { openStream } from './sse.js';

/**
 * Behind a transaction pooler (issue 25, API.md "Past one database machine"): a real PgBouncer >= 1.21 in
 * transaction mode between Basalt and Postgres, DATABASE_POOL_MODE=transaction, LISTEN on its own session URL. No
 * startup parameter, statements closed by the protocol, the timeout set per statement, schema changes heard through
 * the listen URL (a stream on one process ends when the owner closes the table through another), and a listen URL
 * through the pooler refused at start-up. Runs when a `pgbouncer` >= 1.21 is on PATH (`.ci/run` builds one),
 * otherwise says in one line that it did not run.
 */

const available = pgbouncerVersion();
if (!available.ok) console.log(`pooler tests did not run: ${available.reason}`);

describe.runIf(available.ok)('through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  let owner: Account;
  let ann: Account;

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    database = await createTestDatabase();
    const pooled = { database, databaseUrl: bouncer.url(database.name), poolMode: 'transaction' as const, listenUrl: database.url };
    a = await startHarness(pooled);
    b = await startHarness(pooled);
    owner = await signUp(a);
    ann = await signUp(a);
    await createTable(a, owner, { name: 'notes', policy: 'owner-scoped', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'n', type: 'integer' }] });
    await createTable(a, owner, { name: 'news', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await bouncer?.stop();
  });

  it('serves records: writes, reads, lists with totals, errors in the envelope', async () => {
    const created = await a.request().post('/api/notes').set(ann.auth).send({ title: 'first', n: 1 });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await b.request().get(`/api/notes/${id}`).set(ann.auth)).body.data).toMatchObject({ title: 'first', n: 1 });
    expect((await b.request().put(`/api/notes/${id}`).set(ann.auth).send({ title: 'first', n: 2 })).body.data).toMatchObject({ n: 2 });
    const listed = await a.request().get('/api/notes?order=n.desc').set(ann.auth);
    expect(listed.body).toMatchObject({ total: 1, data: [{ id, n: 2 }] });
    const invalid = await a.request().post('/api/notes').set(ann.auth).send({ n: 'many' });
    expect(invalid.status).toBe(400);
    expect(errorOf(invalid).details).toMatchObject({ field: 'n' });
    expect((await a.request().delete(`/api/notes/${id}`).set(ann.auth)).status).toBe(200);
  });

  it('keeps every statement working under more query shapes than a connection keeps (Close, not DEALLOCATE)', async () => {
    const orders = ['id', 'title', 'n', 'createdAt', 'updatedAt'].flatMap((column) => [`${column}.asc`, `${column}.desc`]);
    const shapes: string[] = [];
    for (const first of orders) for (const second of orders) for (const count of ['exact', 'none']) for (const select of ['*', 'id,n']) shapes.push(`/api/notes?order=${first},${second}&count=${count}&select=${select}&n[lt]=5`);
    expect(shapes.length).toBeGreaterThan(MAX_PREPARED_PER_CONNECTION);
    // One record connection: it closes its least recently used statements a hundred times a round and prepares them
    // again the next, while the pooler hands its transactions to whichever server connections are free (beside b's).
    const one = { database, databaseUrl: bouncer.url(database.name), poolMode: 'transaction' as const, listenUrl: database.url, poolSize: 1 };
    const c = await startHarness(one);
    const d = b;
    try {
      const statuses: number[] = [];
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < shapes.length; i += 8) {
          const batch = shapes.slice(i, i + 8).map((path, k) => ((k < 6 ? c : d).request().get(path).set(ann.auth)));
          statuses.push(...(await Promise.all(batch)).map((response) => response.status));
        }
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // The pooler forgot what the connection closed: none of its clients holds more names than a connection keeps.
      const clients = await bouncer.show('CLIENTS');
      const held = clients.filter((client) => client.database === database.name).map((client) => Number(client.prepared_statements));
      expect(Math.max(...held)).toBeGreaterThan(MAX_PREPARED_PER_CONNECTION / 2);
      expect(Math.max(...held)).toBeLessThanOrEqual(MAX_PREPARED_PER_CONNECTION);
    } finally {
      await c.close();
    }
  });

  it('cancels a slow statement by the timeout set in its transaction (504), and the next one runs', async () => {
    const slow = await startHarness({ database, databaseUrl: bouncer.url(database.name), poolMode: 'transaction', listenUrl: database.url, statementTimeoutMs: 50 });
    try {
      const sql = await slow.sql();
      await sql.query(`INSERT INTO news (id, title, "createdAt", "updatedAt") SELECT 'bulk-' || g, md5(g::text), now(), now() FROM generate_series(1, 300000) g`);
      const answer = await slow.request().get('/api/news?title[ilike]=*zzzz*&count=exact').set(anonHeaders(slow));
      expect(answer.status).toBe(504);
      expect((await slow.request().get('/api/news?limit=1&count=none').set(anonHeaders(slow))).status).toBe(200);
      await sql.query(`DELETE FROM news WHERE id LIKE 'bulk-%'`);
    } finally {
      await slow.close();
    }
  });

  it('ends a stream on one process when the owner closes the table through the other', async () => {
    const stream = await openStream(`${b.url}/realtime/news`, anonHeaders(b));
    expect(stream.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await a.request().post('/api/news').set(owner.auth).send({ title: 'before' })).status).toBe(201);
    await stream.waitFor(1);
    expect((await a.request().patch('/admin/tables/news').set(owner.auth).send({ policy: 'private' })).status).toBe(200);
    await stream.waitForEnd();
    expect(stream.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'FORBIDDEN' } } });
    stream.close();
    expect((await a.request().patch('/admin/tables/news').set(owner.auth).send({ policy: 'public-read' })).status).toBe(200);
  });

  it('refuses a listen URL through the pooler: the test notification never arrives', async () => {
    const listener = await listenForSchemaChanges(bouncer.url(database.name), () => undefined);
    try {
      const send = (payload: string) => a.services.knex.raw('SELECT pg_notify(?, ?)', [SCHEMA_CHANNEL, payload]).then(() => undefined);
      await expect(listener.confirm(send, 300, 2)).rejects.toThrow(/DATABASE_LISTEN_URL/);
    } finally {
      await listener.close();
    }
    const direct = await listenForSchemaChanges(database.url, () => undefined);
    try {
      await direct.confirm((payload) => a.services.knex.raw('SELECT pg_notify(?, ?)', [SCHEMA_CHANNEL, payload]).then(() => undefined), 2_000, 1);
    } finally {
      await direct.close();
    }
  });
});
