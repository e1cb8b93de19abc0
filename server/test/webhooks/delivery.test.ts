import { describe, expect, it } from 'vitest';
import { Sealer } from '../../src/auth/sealed.js';
import { createTable } from '../harness.js';
import { startWebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { h, owner, psql, receiver, hook, makeHook, deliveries, byRow, ISO_MS, useDeliverySuite } from './support.js';

/**
 * Deliveries from the change log to a real receiver that verifies Standard Webhooks signatures with the
 * `standardwebhooks` package: the payload of every kind of change (API and psql writes, bulk statements, files), the
 * per-row order, filters and events, retries, dead deliveries, a manual retry, a receiver away for a while, "*".
 */
useDeliverySuite();

describe('what is delivered', () => {
  it('delivers inserts, updates and deletes made through the API, signed, with the values /api answers', async () => {
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'] });
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

  it('queues a statement of more rows than a round takes over several rounds, in parts, none lost or twice', async () => {
    // Rounds take 5,000 rows, read from the statement's log row in parts: the rows around the cut and at both ends.
    await makeHook({ tables: ['orders'], events: ['insert', 'update'], filter: "status = 'many' and (total <= 3 or (total >= 4999 and total <= 5002) or total > 5995)" });
    await psql.query(`INSERT INTO orders (id, status, total) SELECT 'many' || g, 'many', g FROM generate_series(1, 6000) g`);
    const totals = [1, 2, 3, 4999, 5000, 5001, 5002, 5996, 5997, 5998, 5999, 6000];
    const got = await receiver.waitForDistinct(totals.length);
    expect(got.map((r) => r.payload.record!.total)).toEqual(totals);
    // An update's old rows come in the same parts as its new ones.
    await psql.query(`UPDATE orders SET paid_at = '2026-01-01' WHERE status = 'many'`);
    const updates = (await receiver.waitForDistinct(totals.length * 2)).slice(totals.length);
    const seen = updates.map((r) => [r.payload.type, r.payload.record!.total, r.payload.old!.total, r.payload.old!.paid_at] as const);
    expect(seen.sort((a, b) => (a[1] as number) - (b[1] as number))).toEqual(totals.map((total) => ['update', total, total, null]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(totals.length * 2);
    await psql.query(`DELETE FROM orders WHERE status = 'many'`);
  });

  it('keeps the order of one row\'s changes, and names the old id on an update that changed it', async () => {
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'], events: ['insert', 'truncate'], filter: "status = 'paid' and total >= 10" });
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
    await makeHook({ tables: ['orders'], headers: { Authorization: 'Bearer for-the-receiver', 'X-Team': 'blue' } });
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
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'] });
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

describe('a secret sealed under another JWT_SECRET', () => {
  it('fails every attempt, saying why, until the secret is rotated; then the new secret signs alone', async () => {
    await makeHook({ tables: ['orders'], events: ['insert'] });
    const foreign = new Sealer('another-jwt-secret-0123456789-0123456789', 'basalt webhook secrets').seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwaAa0a0aAaAa=');
    await psql.query(`UPDATE _basalt_webhooks SET secret = $1 WHERE id = $2`, [foreign, hook.id]);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('sealed', 'x')`);
    await expect.poll(async () => (await deliveries('failed'))[0]?.lastError, { timeout: 5_000 }).toMatch(/JWT_SECRET/);
    expect(receiver.received).toHaveLength(0);
    const rotated = await h.request().post(`/admin/webhooks/${hook.id}/secret`).set(owner.auth);
    expect(rotated.status).toBe(200);
    receiver.secrets = [rotated.body.data.secret];
    const [failed] = await deliveries('failed');
    expect((await h.request().post(`/admin/webhooks/${hook.id}/deliveries/${failed!.id}/retry`).set(owner.auth)).status).toBe(200);
    const [got] = await receiver.waitForDistinct(1);
    expect(got!.verified).toBe(true);
    // The unreadable previous secret is left out: one signature.
    expect(got!.signature.split(' ')).toHaveLength(1);
    await psql.query(`DELETE FROM orders WHERE id = 'sealed'`);
  });
});

describe('a manual retry while an attempt is in flight', () => {
  it('wins: the late outcome of the overtaken attempt is not written over it', async () => {
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: '*', events: ['insert'] });
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

describe('files', () => {
  it('delivers a bucket\'s rows: upload, replacement, delete', async () => {
    const bucket = await h.request().post('/admin/tables').set(owner.auth).send({ name: 'docs', kind: 'files', policy: 'public-read' });
    expect(bucket.status).toBe(201);
    await makeHook({ tables: ['docs'] });
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
