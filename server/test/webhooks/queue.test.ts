import { describe, expect, it } from 'vitest';
import { Deliveries } from '../../src/webhooks/deliveries.js';
import { h, owner, psql, receiver, hook, makeHook, deliveries, METRICS_TOKEN, ISO_MS, useDeliverySuite } from './support.js';

/**
 * The queue's upkeep, seen from outside: delivered and dead deliveries deleted in time, the change log kept from a
 * hold on, replay of the changes still in the log, and the metrics of outcomes and the queue.
 */
useDeliverySuite();

describe('housekeeping', () => {
  it('deletes delivered deliveries after 7 days and dead ones after 30', async () => {
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'], events: ['insert'] });
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

  it('answers 404 for a webhook deleted while its replay began, and queues nothing (no foreign-key error)', async () => {
    await makeHook({ tables: ['orders'], events: ['insert'] });
    const since = new Date().toISOString();
    await psql.query(`INSERT INTO orders (id, status) VALUES ('gone1', 'x')`);
    await receiver.waitForDistinct(1);
    // The webhook as the replay read it, then deleted before the replay's transaction.
    const active = { id: hook.id, url: receiver.url, tables: ['orders'], events: ['insert' as const], filter: null, headers: {}, since: 0n };
    expect((await h.request().delete(`/admin/webhooks/${hook.id}`).set(owner.auth)).status).toBe(200);
    const queue = new Deliveries(h.services.knex, h.services.pool, h.services.cache);
    await expect(queue.replay(active, since)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await psql.query(`SELECT count(*)::int AS n FROM _basalt_webhook_deliveries WHERE webhook_id = $1`, [active.id])).rows[0].n).toBe(0);
    await psql.query(`DELETE FROM orders WHERE id = 'gone1'`);
  });

  it('refuses a since older than the oldest change kept (400 naming since with the oldest) or not a time', async () => {
    await makeHook({ tables: ['orders'] });
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
    await makeHook({ tables: ['orders'], events: ['insert'] });
    // One delivered, one failed and waiting, one dead (made 25 hours ago as far as the queue knows).
    await psql.query(`INSERT INTO orders (id, status) VALUES ('m0', 'x')`);
    await receiver.waitForDistinct(1);
    receiver.answer(500);
    await psql.query(`INSERT INTO orders (id, status) VALUES ('m1', 'x'), ('m2', 'x')`);
    await expect.poll(async () => (await deliveries('failed')).length, { timeout: 5_000 }).toBe(2);
    await psql.query(`UPDATE _basalt_webhook_deliveries SET created_at = now() - interval '25 hours', next_attempt_at = now() WHERE webhook_id = $1 AND row_key = 'm2'`, [hook.id]);
    await expect.poll(async () => (await deliveries('dead')).length, { timeout: 5_000 }).toBe(1);
    const text = (await h.request().get('/metrics').set({ Authorization: `Bearer ${METRICS_TOKEN}` })).text;
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('basalt_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_deliveries_total{outcome="dead"}')).toBeGreaterThan(0);
    expect(value('basalt_webhook_queue_depth')).toBe(1);
    expect(value('basalt_webhook_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
    expect(value('basalt_webhook_log_behind_seconds')).toBeGreaterThanOrEqual(0);
    receiver.accept();
    await receiver.waitForDistinct(2, 15_000);
    await psql.query(`DELETE FROM orders WHERE id IN ('m0', 'm1', 'm2')`);
  });
});
