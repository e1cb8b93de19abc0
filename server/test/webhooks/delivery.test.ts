import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTable, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';

/**
 * Deliveries from the change log to a real receiver that verifies Standard Webhooks signatures with the
 * `standardwebhooks` package: the payload of every kind of change (API and psql writes, bulk statements, files), the
 * per-row order, filters and events, retries, dead deliveries, manual retry and replay.
 */

let h: Harness;
let owner: Account;
let psql: pg.Client;
let receiver: WebhookReceiver;
let hook: { id: string; secret: string };

const METRICS_TOKEN = 'webhook-metrics-token-0123456789';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  h = await startHarness({ limits: false, webhooks: { allowPrivateTargets: true }, metricsToken: METRICS_TOKEN });
  owner = await signUp(h);
  psql = await h.sql();
  await createTable(h, owner, {
    name: 'orders',
    policy: 'public-read',
    columns: [
      { name: 'status', type: 'text' },
      { name: 'total', type: 'integer' },
      { name: 'paid_at', type: 'timestamp' },
      { name: 'meta', type: 'json' },
    ],
  });
});
afterAll(() => h.close());

async function makeHook(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const response = await h.request().post('/admin/webhooks').set(owner.auth).send({ url: receiver.url, ...body });
  if (response.status !== 201) throw new Error(`webhook: ${response.status} ${JSON.stringify(response.body)}`);
  receiver.secrets = [response.body.data.secret];
  return response.body.data;
}

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  if (hook) await h.request().delete(`/admin/webhooks/${hook.id}`).set(owner.auth);
  await receiver.close();
});

const deliveries = async (status?: string) =>
  (await h.request().get(`/admin/webhooks/${hook.id}/deliveries${status ? `?status=${status}` : ''}`).set(owner.auth)).body.data as Array<Record<string, unknown>>;

const byRow = (received: Received[], id: string) => received.filter((r) => (r.payload.record ?? r.payload.old)?.id === id);

describe('what is delivered', () => {
  it('delivers inserts, updates and deletes made through the API, signed, with the values /api answers', async () => {
    hook = await makeHook({ tables: ['orders'] });
    const made = (await h.request().post('/api/orders').set(owner.auth).send({ status: 'new', total: 5, paid_at: '2026-01-02T03:04:05.678Z', meta: { a: [1] } })).body.data;
    const changed = (await h.request().put(`/api/orders/${made.id}`).set(owner.auth).send({ status: 'paid', total: 7 })).body.data;
    await h.request().delete(`/api/orders/${made.id}`).set(owner.auth);
    const got = await receiver.waitForDistinct(3);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got.map((r) => r.payload.type)).toEqual(['insert', 'update', 'delete']);
    const [insert, update, remove] = got;
    expect(insert!.payload).toEqual({ type: 'insert', table: 'orders', record: made, old: null, changedAt: expect.stringMatching(ISO_MS) });
    expect(update!.payload).toEqual({ type: 'update', table: 'orders', record: changed, old: made, changedAt: expect.stringMatching(ISO_MS) });
    expect(remove!.payload).toEqual({ type: 'delete', table: 'orders', record: null, old: changed, changedAt: expect.stringMatching(ISO_MS) });
    expect(insert!.id).toMatch(/^msg_/);
    expect(insert!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(insert!.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    expect(insert!.headers['content-type']).toBe('application/json');
    // Outcomes are written in batches a moment after the receiver answered.
    await expect.poll(async () => (await deliveries('delivered')).length, { timeout: 5_000 }).toBe(3);
    const listed = await deliveries('delivered');
    expect(listed[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200, lastError: null, webhookId: hook.id, table: 'orders', type: 'delete' });
    expect(typeof listed[0]!.latencyMs).toBe('number');
  });

  it('delivers psql writes, one delivery per row of a bulk statement (1,000 rows)', async () => {
    hook = await makeHook({ tables: ['orders'] });
    await psql.query(`INSERT INTO orders (id, status, total) SELECT 'bulk' || g, 'bulk', g FROM generate_series(1, 1000) g`);
    const got = await receiver.waitForDistinct(1000, 60_000);
    expect(new Set(got.map((r) => r.payload.record!.id)).size).toBe(1000);
    expect(got.every((r) => r.verified && r.payload.type === 'insert')).toBe(true);
    await psql.query(`UPDATE orders SET total = total + 1 WHERE status = 'bulk' AND total <= 3`);
    const updates = (await receiver.waitForDistinct(1003, 20_000)).filter((r) => r.payload.type === 'update');
    expect(updates.map((r) => [r.payload.old!.total, r.payload.record!.total]).sort()).toEqual([[1, 2], [2, 3], [3, 4]]);
    await psql.query(`DELETE FROM orders WHERE status = 'bulk'`);
    await receiver.waitForDistinct(2003, 60_000);
  });

  it('queues a statement of more rows than a round takes over several rounds, none lost or twice', async () => {
    hook = await makeHook({ tables: ['orders'], events: ['insert'], filter: "status = 'many' and (total <= 3 or total > 5995)" });
    await psql.query(`INSERT INTO orders (id, status, total) SELECT 'many' || g, 'many', g FROM generate_series(1, 6000) g`);
    const got = await receiver.waitForDistinct(8);
    expect(got.map((r) => r.payload.record!.total)).toEqual([1, 2, 3, 5996, 5997, 5998, 5999, 6000]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(8);
    await psql.query(`DELETE FROM orders WHERE status = 'many'`);
  });

  it('keeps the order of one row\'s changes, and names the old id on an update that changed it', async () => {
    hook = await makeHook({ tables: ['orders'] });
    await psql.query(`INSERT INTO orders (id, status, total) VALUES ('seq', 'a', 0)`);
    for (let i = 1; i <= 8; i++) await psql.query(`UPDATE orders SET total = $1 WHERE id = 'seq'`, [i]);
    const got = byRow(await receiver.waitForDistinct(9), 'seq');
    expect(got.map((r) => r.payload.record!.total)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await psql.query(`UPDATE orders SET id = 'seq2' WHERE id = 'seq'`);
    const moved = (await receiver.waitForDistinct(10)).at(-1)!;
    expect(moved.payload).toMatchObject({ type: 'update', record: { id: 'seq2' }, old: null });
    await psql.query(`DELETE FROM orders WHERE id = 'seq2'`);
    await receiver.waitForDistinct(11);
  });

  it('takes only the events named (truncate only when named) and the rows its filter matches', async () => {
    hook = await makeHook({ tables: ['orders'], events: ['insert', 'truncate'], filter: "status = 'paid' and total >= 10" });
    await psql.query(`INSERT INTO orders (id, status, total) VALUES ('f1', 'paid', 10), ('f2', 'paid', 9), ('f3', 'new', 50)`);
    await psql.query(`UPDATE orders SET total = 11 WHERE id = 'f1'`);
    await psql.query(`DELETE FROM orders WHERE id LIKE 'f%'`);
    await psql.query(`INSERT INTO orders (id, status, total) VALUES ('f4', 'paid', 99)`);
    const got = await receiver.waitForDistinct(2);
    expect(got.map((r) => r.payload.record?.id)).toEqual(['f1', 'f4']);
    await psql.query(`TRUNCATE orders`);
    const truncated = (await receiver.waitForDistinct(3)).at(-1)!;
    expect(truncated.payload).toEqual({ type: 'truncate', table: 'orders', record: null, old: null, changedAt: expect.stringMatching(ISO_MS) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(3);
  });

  it('skips changes made while disabled, sends its own headers, and signs with both secrets while a rotation overlaps', async () => {
    hook = await makeHook({ tables: ['orders'], headers: { Authorization: 'Bearer for-the-receiver', 'X-Team': 'blue' } });
    await h.request().patch(`/admin/webhooks/${hook.id}`).set(owner.auth).send({ enabled: false });
    await psql.query(`INSERT INTO orders (id, status) VALUES ('off', 'x')`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await h.request().patch(`/admin/webhooks/${hook.id}`).set(owner.auth).send({ enabled: true });
    const first = hook.secret;
    const rotated = (await h.request().post(`/admin/webhooks/${hook.id}/secret`).set(owner.auth)).body.data.secret as string;
    await psql.query(`INSERT INTO orders (id, status) VALUES ('on', 'x')`);
    const [got] = await receiver.waitForDistinct(1);
    expect(got!.payload.record!.id).toBe('on');
    expect(got!.headers.authorization).toBe('Bearer for-the-receiver');
    expect(got!.headers['x-team']).toBe('blue');
    expect(got!.signature.split(' ')).toHaveLength(2);
    receiver.secrets = [first];
    const { Webhook } = await import('standardwebhooks');
    const headers = { 'webhook-id': got!.id, 'webhook-timestamp': got!.timestamp, 'webhook-signature': got!.signature };
    expect(() => new Webhook(first).verify(got!.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated).verify(got!.body, headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got!.body, headers)).toThrow();
    await psql.query(`DELETE FROM orders WHERE id IN ('on', 'off')`);
  });
});

describe('failures', () => {
  it('retries a failing receiver with the same webhook-id, then delivers; follows no redirect', async () => {
    hook = await makeHook({ tables: ['orders'] });
    receiver.answer(500);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('retry', 'x')`);
    const deadline = Date.now() + 5_000;
    while ((await deliveries('failed')).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const failed = (await deliveries('failed'))[0]!;
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastStatus: 500, lastError: 'status 500' });
    const wait = Date.parse(failed.nextAttemptAt as string) - Date.now();
    expect(wait).toBeGreaterThan(2_000);
    expect(wait).toBeLessThanOrEqual(6_000);
    receiver.accept();
    const [got] = await receiver.waitForDistinct(1, 15_000);
    expect(got!.id).toBe(failed.id);
    expect(receiver.attempts.filter((a) => a.id === failed.id).map((a) => a.status)).toEqual([500, 200]);
    await expect.poll(async () => (await deliveries('delivered'))[0], { timeout: 5_000 }).toMatchObject({ id: failed.id, attempts: 2, lastStatus: 200 });

    const elsewhere = await startWebhookReceiver();
    receiver.redirect(elsewhere.url);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('redirected', 'x')`);
    const until = Date.now() + 5_000;
    while (!(await deliveries('failed')).some((d) => d.lastStatus === 307) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await deliveries('failed'))[0]).toMatchObject({ lastStatus: 307 });
    expect(elsewhere.attempts).toHaveLength(0);
    await elsewhere.close();
    await psql.query(`DELETE FROM orders WHERE id IN ('retry', 'redirected')`);
  });

  it('holds a row\'s later changes while an earlier one is failing', async () => {
    hook = await makeHook({ tables: ['orders'] });
    receiver.answer(503);
    await psql.query(`INSERT INTO orders (id, status, total) VALUES ('held', 'x', 1)`);
    await psql.query(`INSERT INTO orders (id, status, total) VALUES ('free', 'x', 1)`);
    await psql.query(`UPDATE orders SET total = 2 WHERE id = 'held'`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // One attempt each for the first change of each row; the update of `held` waits behind its insert.
    expect(receiver.attempts).toHaveLength(2);
    expect((await deliveries('pending')).map((d) => (d.payload as { record: { id: string } }).record.id)).toEqual(['held']);
    receiver.accept();
    const got = byRow(await receiver.waitForDistinct(3, 15_000), 'held');
    expect(got.map((r) => r.payload.type)).toEqual(['insert', 'update']);
    await psql.query(`DELETE FROM orders WHERE id IN ('held', 'free')`);
  });

  it('is dead 24 hours after it was made, and a manual retry sends it again with its id', async () => {
    hook = await makeHook({ tables: ['orders'] });
    receiver.answer(500);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('late', 'x')`);
    const deadline = Date.now() + 5_000;
    while ((await deliveries('failed')).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await psql.query(`UPDATE _basalt_webhook_deliveries SET created_at = now() - interval '25 hours', next_attempt_at = now() WHERE webhook_id = $1`, [hook.id]);
    const until = Date.now() + 5_000;
    while ((await deliveries('dead')).length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    const dead = (await deliveries('dead'))[0]!;
    expect(dead).toMatchObject({ status: 'dead', attempts: 2, nextAttemptAt: null });
    receiver.accept();
    const retried = await h.request().post(`/admin/webhooks/${hook.id}/deliveries/${dead.id}/retry`).set(owner.auth);
    expect(retried.status).toBe(200);
    expect(retried.body.data.status).toBe('pending');
    const [got] = await receiver.waitForDistinct(1);
    expect(got!.id).toBe(dead.id);
    expect((await h.request().post(`/admin/webhooks/${hook.id}/deliveries/msg_nope/retry`).set(owner.auth)).status).toBe(404);
    await psql.query(`DELETE FROM orders WHERE id = 'late'`);
  });
});

describe('a manual retry while an attempt is in flight', () => {
  it('wins: the late outcome of the overtaken attempt is not written over it', async () => {
    hook = await makeHook({ tables: ['orders'] });
    receiver.hang();
    await psql.query(`INSERT INTO orders (id, status) VALUES ('overtaken', 'x')`);
    await expect.poll(() => receiver.attempts.length, { timeout: 5_000 }).toBe(1);
    const [inFlight] = await deliveries('pending');
    receiver.accept();
    expect((await h.request().post(`/admin/webhooks/${hook.id}/deliveries/${inFlight!.id}/retry`).set(owner.auth)).status).toBe(200);
    const [got] = await receiver.waitForDistinct(1);
    expect(got!.id).toBe(inFlight!.id);
    await expect.poll(async () => (await deliveries('delivered')).length, { timeout: 5_000 }).toBe(1);
    // The first attempt times out (10 s) after the retry was delivered: its failure must not undo the delivery.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect((await deliveries())[0]).toMatchObject({ id: inFlight!.id, status: 'delivered', attempts: 2, lastStatus: 200 });
    await psql.query(`DELETE FROM orders WHERE id = 'overtaken'`);
  }, 30_000);
});

describe('a receiver that goes away for a while', () => {
  it('gets the changes made meanwhile once it is back', async () => {
    hook = await makeHook({ tables: ['orders'] });
    await receiver.stop();
    await psql.query(`INSERT INTO orders (id, status) VALUES ('away1', 'x'), ('away2', 'x')`);
    await expect.poll(async () => (await deliveries('failed')).map((d) => d.lastError), { timeout: 5_000 }).toEqual(['connection refused', 'connection refused']);
    await receiver.start();
    const got = await receiver.waitForDistinct(2, 15_000);
    expect(got.map((r) => r.payload.record!.id).sort()).toEqual(['away1', 'away2']);
    await psql.query(`DELETE FROM orders WHERE id LIKE 'away%'`);
  });
});

describe('every table ("*")', () => {
  it('follows tables made later, by the admin API and by psql', async () => {
    hook = await makeHook({ tables: '*', events: ['insert'] });
    await createTable(h, owner, { name: 'later', policy: 'public-read', columns: [{ name: 'n', type: 'integer' }] });
    await psql.query(`INSERT INTO later (id, n) VALUES ('l1', 1)`);
    await psql.query(`CREATE TABLE by_psql (id text PRIMARY KEY, n integer)`);
    // Its triggers go on as the schema cache sees it (a moment after the DDL).
    await expect.poll(async () => (await psql.query(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'by_psql'::regclass AND tgname = '_basalt_capture_i' AND tgenabled <> 'D'`)).rows[0].n, { timeout: 10_000 }).toBe(1);
    await psql.query(`INSERT INTO by_psql (id, n) VALUES ('p1', 2)`);
    const got = await receiver.waitForDistinct(2);
    expect(got.map((r) => [r.payload.table, r.payload.record!.n])).toEqual([['later', 1], ['by_psql', 2]]);
  });
});

describe('housekeeping', () => {
  it('deletes delivered deliveries after 7 days and dead ones after 30', async () => {
    hook = await makeHook({ tables: ['orders'] });
    await psql.query(`INSERT INTO orders (id, status) VALUES ('old1', 'x'), ('old2', 'x')`);
    await receiver.waitForDistinct(2);
    await expect.poll(async () => (await deliveries('delivered')).length, { timeout: 5_000 }).toBe(2);
    const [first, second] = await deliveries('delivered');
    await psql.query(`UPDATE _basalt_webhook_deliveries SET updated_at = now() - interval '8 days' WHERE id = $1`, [first!.id]);
    await psql.query(`UPDATE _basalt_webhook_deliveries SET status = 'dead', updated_at = now() - interval '8 days' WHERE id = $1`, [second!.id]);
    expect(await h.services.webhooks.deliverer.clean()).toBe(1);
    expect((await deliveries()).map((d) => d.id)).toEqual([second!.id]);
    await psql.query(`UPDATE _basalt_webhook_deliveries SET updated_at = now() - interval '31 days' WHERE id = $1`, [second!.id]);
    expect(await h.services.webhooks.deliverer.clean()).toBe(1);
    expect(await deliveries()).toEqual([]);
    await psql.query(`DELETE FROM orders WHERE id LIKE 'old%'`);
  });

  it('keeps the change log from a hold on, whatever its age', async () => {
    await psql.query(`INSERT INTO orders (id, status) VALUES ('kept', 'x')`);
    const change = (await psql.query(`SELECT xid::text AS xid FROM _basalt_changes WHERE record @> '[{"id":"kept"}]'`)).rows[0];
    expect(change).toBeDefined();
    await psql.query(`INSERT INTO _basalt_change_holds (name, xid) VALUES ('test', $1::text::xid8)`, [change.xid]);
    await psql.query(`UPDATE _basalt_changes SET at = now() - interval '1 day'`);
    await h.services.trimmer.run();
    expect((await psql.query(`SELECT 1 FROM _basalt_changes WHERE xid = $1::text::xid8`, [change.xid])).rows).toHaveLength(1);
    await psql.query(`DELETE FROM _basalt_change_holds WHERE name = 'test'`);
    // Without a webhook the enqueuer lets its own hold go within a second: then the trim takes the change.
    await expect
      .poll(
        async () => {
          await h.services.trimmer.run();
          return (await psql.query(`SELECT 1 FROM _basalt_changes WHERE xid = $1::text::xid8`, [change.xid])).rows.length;
        },
        { timeout: 5_000 },
      )
      .toBe(0);
    await psql.query(`DELETE FROM orders WHERE id = 'kept'`);
  });
});

describe('replay', () => {
  it('queues the changes still in the log since a time again, with new ids', async () => {
    hook = await makeHook({ tables: ['orders'], events: ['insert'] });
    const since = new Date().toISOString();
    await psql.query(`INSERT INTO orders (id, status) VALUES ('r1', 'x'), ('r2', 'x')`);
    const first = await receiver.waitForDistinct(2);
    const replayed = await h.request().post(`/admin/webhooks/${hook.id}/replay`).set(owner.auth).send({ since });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data.queued).toBe(2);
    const all = await receiver.waitForDistinct(4);
    const again = all.filter((r) => !first.some((f) => f.id === r.id));
    expect(again.map((r) => r.payload.record!.id).sort()).toEqual(['r1', 'r2']);
    await psql.query(`DELETE FROM orders WHERE id IN ('r1', 'r2')`);
  });

  it('refuses a since older than the oldest change kept (400 naming since with the oldest) or not a time', async () => {
    hook = await makeHook({ tables: ['orders'] });
    await psql.query(`UPDATE _basalt_changes_trimmed SET xid = '1'`);
    const refused = await h.request().post(`/admin/webhooks/${hook.id}/replay`).set(owner.auth).send({ since: '2000-01-01T00:00:00Z' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field: 'since', oldest: expect.stringMatching(ISO_MS) });
    expect((await h.request().post(`/admin/webhooks/${hook.id}/replay`).set(owner.auth).send({ since: "'; DROP TABLE orders; --" })).status).toBe(400);
    expect((await h.request().post(`/admin/webhooks/${hook.id}/replay`).set(owner.auth).send({ since: new Date().toISOString(), extra: 1 })).status).toBe(400);
    expect((await h.request().get(`/admin/webhooks/${hook.id}/deliveries?status=lost`).set(owner.auth)).status).toBe(400);
    expect((await h.request().get(`/admin/webhooks/${hook.id}/deliveries?limit=1000`).set(owner.auth)).status).toBe(400);
    expect((await h.request().get(`/admin/webhooks/${hook.id}/deliveries?before=1;DROP`).set(owner.auth)).status).toBe(400);
  });
});

describe('metrics', () => {
  it('counts outcomes and shows the queue', async () => {
    hook = await makeHook({ tables: ['orders'] });
    receiver.answer(500);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('m1', 'x')`);
    await expect.poll(async () => (await deliveries('failed')).length, { timeout: 5_000 }).toBe(1);
    const text = (await h.request().get('/metrics').set({ Authorization: `Bearer ${METRICS_TOKEN}` })).text;
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('basalt_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_deliveries_total{outcome="dead"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_queue_depth')).toBe(1);
    expect(value('basalt_webhook_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
    expect(value('basalt_webhook_log_behind_seconds')).toBeGreaterThanOrEqual(0);
    receiver.accept();
    await receiver.waitForDistinct(1, 15_000);
    await psql.query(`DELETE FROM orders WHERE id = 'm1'`);
  });
});

describe('files', () => {
  it('delivers a bucket\'s rows: upload, replacement, delete', async () => {
    const bucket = await h.request().post('/admin/tables').set(owner.auth).send({ name: 'docs', kind: 'files', policy: 'public-read' });
    expect(bucket.status).toBe(201);
    hook = await makeHook({ tables: ['docs'] });
    const up = (await h.request().post('/files/docs?name=a.txt').set(owner.auth).send(Buffer.from('first'))).body.data;
    await h.request().put(`/files/docs/${up.id}`).set(owner.auth).send(Buffer.from('second!'));
    await h.request().delete(`/api/docs/${up.id}`).set(owner.auth);
    const got = await receiver.waitForDistinct(3);
    expect(got.map((r) => r.payload.type)).toEqual(['insert', 'update', 'delete']);
    expect(got[0]!.payload.record).toMatchObject({ id: up.id, name: 'a.txt', size: 5, type: 'text/plain' });
    expect(got[1]!.payload).toMatchObject({ record: { size: 7 }, old: { size: 5 } });
    expect(got[2]!.payload).toMatchObject({ record: null, old: { id: up.id, size: 7 } });
  });
});
