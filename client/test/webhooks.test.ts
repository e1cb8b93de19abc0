import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhookReceiver.js';
import type { BasaltClient, DeliveryStatus, WebhookDelivery } from '../src/index.js';
import { failure } from './support/mail.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/**
 * `admin.webhooks` against the real server (issue 29), delivering to a real node:http receiver on loopback that checks
 * every signature with the `standardwebhooks` package (config.json lets webhooks reach 127.0.0.1).
 */

let configDir: string;
let live: Live;
let owner: BasaltClient;
let member: BasaltClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-webhooks-'));
  const config = path.join(configDir, 'config.json');
  await fs.writeFile(config, JSON.stringify({ limits: false, webhooks: { allowPrivateTargets: true } }));
  live = await startLive({ env: { CONFIG_PATH: config } });
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  member = live.client();
  await member.auth.signUp({ email: uniqueEmail('member'), password: PASSWORD });
  await owner.admin.tables.create({ name: 'orders', policy: 'public-read', columns: [{ name: 'status', type: 'text' }, { name: 'total', type: 'integer' }] });
  await owner.admin.tables.create({ name: 'notes', policy: 'public-read', columns: [{ name: 'body', type: 'text' }] });
});
afterAll(async () => {
  await live?.stop();
  await receiver?.close();
  await fs.rm(configDir, { recursive: true, force: true });
});

/** Waits until the webhook's deliveries (in a status, when given) satisfy `done`; returns the last page read. */
async function deliveriesUntil(id: string, done: (deliveries: WebhookDelivery[]) => boolean, status?: DeliveryStatus): Promise<WebhookDelivery[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await owner.admin.webhooks.deliveries(id, status ? { status } : {});
    if (done(page.data)) return page.data;
    if (Date.now() > deadline) throw new Error(`deliveries of ${id} never got there: ${JSON.stringify(page.data.map((d) => [d.id, d.status, d.attempts]))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What the receiver got for a record id, 2xx answers only. */
const receivedFor = (recordId: unknown) => receiver.received.filter((r) => r.payload.record?.id === recordId || r.payload.old?.id === recordId);

describe('admin.webhooks', () => {
  it('creates a webhook (its secret once), lists, reads, changes and removes it', async () => {
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['orders'], headers: { Authorization: 'Bearer for-the-receiver' } });
    expect(made).toMatchObject({ url: receiver.url, tables: ['orders'], events: ['insert', 'update', 'delete'], filter: null, enabled: true, previousSecretUntil: null });
    expect(made.secret).toMatch(/^whsec_/);

    const listed = await owner.admin.webhooks.list();
    const found = listed.find((webhook) => webhook.id === made.id);
    expect(found).toMatchObject({ url: receiver.url, headers: { Authorization: 'Bearer for-the-receiver' } });
    expect(found).not.toHaveProperty('secret');
    const read = await owner.admin.webhooks.get(made.id);
    expect(read).not.toHaveProperty('secret');
    expect(read).toMatchObject({ id: made.id, createdAt: made.createdAt });

    const changed = await owner.admin.webhooks.update(made.id, { enabled: false, events: ['insert', 'truncate'], filter: 'total >= 100' });
    expect(changed).toMatchObject({ id: made.id, enabled: false, events: ['insert', 'truncate'], filter: 'total >= 100', tables: ['orders'] });
    await expect(owner.admin.webhooks.update(made.id, { filter: null })).resolves.toMatchObject({ filter: null });

    await expect(owner.admin.webhooks.remove(made.id)).resolves.toEqual({ id: made.id, deleted: true });
    expect(await failure(owner.admin.webhooks.get(made.id))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await owner.admin.webhooks.list()).some((webhook) => webhook.id === made.id)).toBe(false);
  });

  it('delivers a change, signed with the secret, and lists it delivered with its attempt, status and payload', async () => {
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['orders'] });
    receiver.secrets = [made.secret];
    try {
      const order = await owner.admin.from('orders').create({ status: 'new', total: 120 });
      const [delivered] = await deliveriesUntil(made.id, (list) => list.length === 1 && list[0]!.status === 'delivered');
      expect(delivered).toMatchObject({
        webhookId: made.id,
        table: 'orders',
        type: 'insert',
        status: 'delivered',
        attempts: 1,
        lastStatus: 200,
        lastError: null,
        nextAttemptAt: null,
        payload: { type: 'insert', table: 'orders', record: { id: order.id, status: 'new', total: 120 }, old: null },
      });
      expect(delivered!.latencyMs).toEqual(expect.any(Number));
      expect(Date.parse(delivered!.deliveredAt!)).not.toBeNaN();
      const arrived = receivedFor(order.id);
      expect(arrived).toHaveLength(1);
      expect(arrived[0]).toMatchObject({ id: delivered!.id, verified: true, payload: delivered!.payload });

      // The status filter: delivered lists it, failed does not.
      expect((await owner.admin.webhooks.deliveries(made.id, { status: 'delivered' })).data.map((d) => d.id)).toEqual([delivered!.id]);
      await expect(owner.admin.webhooks.deliveries(made.id, { status: 'failed' })).resolves.toEqual({ data: [], next: null });
    } finally {
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('pages deliveries newest first with limit and before', async () => {
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['notes'] });
    receiver.secrets = [made.secret];
    try {
      for (const body of ['one', 'two', 'three']) await owner.admin.from('notes').create({ body });
      await deliveriesUntil(made.id, (list) => list.length === 3 && list.every((d) => d.status === 'delivered'));
      const first = await owner.admin.webhooks.deliveries(made.id, { limit: 2 });
      expect(first.data.map((d) => d.payload.record?.body)).toEqual(['three', 'two']);
      expect(first.next).toEqual(expect.any(String));
      const second = await owner.admin.webhooks.deliveries(made.id, { limit: 2, before: first.next! });
      expect(second).toMatchObject({ data: [{ payload: { record: { body: 'one' } } }], next: null });
    } finally {
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('lists a refused attempt as failed with its status code, and retry sends it again at once with the same id', async () => {
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['orders'], events: ['update'] });
    receiver.secrets = [made.secret];
    const order = await owner.admin.from('orders').create({ status: 'new', total: 5 });
    receiver.answer(500);
    try {
      await owner.admin.from('orders').upsert(String(order.id), { status: 'paid' });
      const [failed] = await deliveriesUntil(made.id, (list) => list.length === 1, 'failed');
      expect(failed).toMatchObject({ type: 'update', status: 'failed', lastStatus: 500, lastError: 'status 500', deliveredAt: null });
      expect(failed!.attempts).toBeGreaterThanOrEqual(1);
      expect(failed!.payload).toMatchObject({ record: { id: order.id, status: 'paid' }, old: { id: order.id, status: 'new' } });
      expect(Date.parse(failed!.nextAttemptAt!)).toBeGreaterThan(Date.now());

      receiver.accept();
      const retried = await owner.admin.webhooks.retry(made.id, failed!.id);
      expect(retried).toMatchObject({ id: failed!.id, status: 'pending' });
      // The automatic attempt is seconds away (about 5 s after the first): what arrives now is the retry's doing.
      await until(() => receivedFor(order.id).length > 0, 3_000);
      expect(receivedFor(order.id)).toEqual([expect.objectContaining({ id: failed!.id, verified: true })]);
      await deliveriesUntil(made.id, (list) => list[0]?.id === failed!.id && list[0].status === 'delivered' && list[0].lastStatus === 200);

      expect(await failure(owner.admin.webhooks.retry(made.id, 'msg_nope'))).toMatchObject({ status: 404 });
    } finally {
      receiver.accept();
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('rotates the secret: the new one verifies, both sign meanwhile', async () => {
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['notes'] });
    try {
      const rotated = await owner.admin.webhooks.rotateSecret(made.id);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(made.secret);
      expect(Date.parse(rotated.previousSecretUntil!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
      await expect(owner.admin.webhooks.get(made.id)).resolves.toMatchObject({ previousSecretUntil: rotated.previousSecretUntil });

      for (const secret of [rotated.secret, made.secret]) {
        receiver.secrets = [secret];
        const note = await owner.admin.from('notes').create({ body: `signed for ${secret.slice(0, 12)}` });
        await deliveriesUntil(made.id, (list) => list.some((d) => d.payload.record?.id === note.id && d.status === 'delivered'));
        expect(receivedFor(note.id)).toEqual([expect.objectContaining({ verified: true })]);
        expect(receivedFor(note.id)[0]!.signature.split(' ')).toHaveLength(2);
      }
    } finally {
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('replays the changes since a time as new deliveries, and says how many', async () => {
    const since = new Date(Date.now() - 1000);
    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['notes'], filter: "body = 'replayed'" });
    receiver.secrets = [made.secret];
    try {
      const note = await owner.admin.from('notes').create({ body: 'replayed' });
      await owner.admin.from('notes').create({ body: 'filtered out' });
      const [first] = await deliveriesUntil(made.id, (list) => list.length === 1 && list[0]!.status === 'delivered');
      expect(first!.payload.record).toMatchObject({ id: note.id });

      // The one change since then that the filter takes: queued again.
      const answer = await owner.admin.webhooks.replay(made.id, since);
      expect(answer).toEqual({ queued: 1 });
      const all = await deliveriesUntil(made.id, (list) => list.length === 1 + answer.queued && list.every((d) => d.status === 'delivered'));
      // A new id, the same change, received again verified.
      expect(new Set(all.map((d) => d.id)).size).toBe(2);
      expect(all.map((d) => d.payload)).toEqual([first!.payload, first!.payload]);
      expect(receivedFor(note.id).map((r) => r.id).sort()).toEqual(all.map((d) => d.id).sort());
      expect(receivedFor(note.id).every((r) => r.verified)).toBe(true);
      await expect(owner.admin.webhooks.replay(made.id, since.toISOString())).resolves.toEqual({ queued: 1 });
      expect(await failure(owner.admin.webhooks.replay(made.id, 'not a time'))).toMatchObject({ status: 400, details: { field: 'since' } });
    } finally {
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('names the field of a refused setting, and the parameter of a refused list', async () => {
    const field = async (input: Parameters<typeof owner.admin.webhooks.create>[0]) => (await failure(owner.admin.webhooks.create(input))).details?.field;
    expect(await field({ url: 'ftp://127.0.0.1/hook', tables: ['orders'] })).toBe('url');
    expect(await field({ url: receiver.url, tables: ['missing'] })).toBe('tables');
    expect(await field({ url: receiver.url, tables: ['orders', 'notes'], filter: 'total > 1' })).toBe('filter');
    expect(await field({ url: receiver.url, tables: ['orders'], headers: { 'webhook-id': 'mine' } })).toBe('headers');

    const made = await owner.admin.webhooks.create({ url: receiver.url, tables: ['orders'], enabled: false });
    try {
      expect(await failure(owner.admin.webhooks.update(made.id, { filter: 'nope >' }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'filter' } });
      expect(await failure(owner.admin.webhooks.deliveries(made.id, { limit: 0 }))).toMatchObject({ status: 400, details: { parameter: 'limit' } });
    } finally {
      await owner.admin.webhooks.remove(made.id);
    }
  });

  it('is the owner’s alone: a member gets 403', async () => {
    expect(await failure(member.admin.webhooks.list())).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await failure(member.admin.webhooks.create({ url: receiver.url, tables: '*' }))).toMatchObject({ status: 403 });
  });
});
