import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';

/** /admin/webhooks: who may, what a webhook takes, the checks of every field, secrets and their rotation. */

let h: Harness;
let owner: Account;
let member: Account;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  h = await startHarness({ limits: false, webhooks: { allowPrivateTargets: true } });
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, { name: 'orders', policy: 'public-read', columns: [{ name: 'status', type: 'text' }, { name: 'total', type: 'integer' }] });
  await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'body', type: 'text' }] });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const create = (body: object, who: Account = owner) => h.request().post('/admin/webhooks').set(who.auth).send(body);

describe('managing webhooks', () => {
  it('creates one with its secret shown once, lists and reads it without the secret, changes and deletes it', async () => {
    const made = await create({ url: receiver.url, tables: ['orders'] });
    expect(made.status).toBe(201);
    const webhook = made.body.data;
    expect(webhook).toMatchObject({ url: receiver.url, tables: ['orders'], events: ['insert', 'update', 'delete'], filter: null, headers: {}, enabled: true, previousSecretUntil: null });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(webhook.secret.slice(6), 'base64')).toHaveLength(32);

    const listed = await h.request().get('/admin/webhooks').set(owner.auth);
    expect(listed.status).toBe(200);
    const found = listed.body.data.find((w: { id: string }) => w.id === webhook.id);
    expect(found).toBeDefined();
    expect(found.secret).toBeUndefined();
    const read = await h.request().get(`/admin/webhooks/${webhook.id}`).set(owner.auth);
    expect(read.body.data.secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(webhook.secret.slice(6, 20));

    const changed = await h.request().patch(`/admin/webhooks/${webhook.id}`).set(owner.auth).send({ events: ['insert', 'truncate'], enabled: false, headers: { Authorization: 'Bearer abc' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ events: ['insert', 'truncate'], enabled: false, headers: { Authorization: 'Bearer abc' } });

    expect((await h.request().delete(`/admin/webhooks/${webhook.id}`).set(owner.auth)).body).toEqual({ data: { id: webhook.id, deleted: true } });
    expect((await h.request().get(`/admin/webhooks/${webhook.id}`).set(owner.auth)).status).toBe(404);
    expect((await h.request().delete(`/admin/webhooks/${webhook.id}`).set(owner.auth)).status).toBe(404);
  });

  it('takes "*" for every table', async () => {
    const made = await create({ url: receiver.url, tables: '*', enabled: false });
    expect(made.status).toBe(201);
    expect(made.body.data.tables).toBe('*');
    await h.request().delete(`/admin/webhooks/${made.body.data.id}`).set(owner.auth);
  });

  it('is the owner\'s alone: 401 without credentials, 403 for a member, with the anon key or a member key', async () => {
    expect((await h.request().get('/admin/webhooks')).status).toBe(401);
    expect((await h.request().get('/admin/webhooks').set({ apikey: h.services.tokens.anonKey })).status).toBe(401);
    expect((await create({ url: receiver.url, tables: ['orders'] }, member)).status).toBe(403);
    expect((await h.request().get('/admin/webhooks').set(member.auth)).status).toBe(403);
  });

  it('rotates the secret: both sign for 24 hours', async () => {
    const made = (await create({ url: receiver.url, tables: ['orders'], enabled: false })).body.data;
    const rotated = await h.request().post(`/admin/webhooks/${made.id}/secret`).set(owner.auth);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(made.secret);
    const until = Date.parse(rotated.body.data.previousSecretUntil);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect((await h.request().post('/admin/webhooks/nope/secret').set(owner.auth)).status).toBe(404);
    await h.request().delete(`/admin/webhooks/${made.id}`).set(owner.auth);
  });
});

describe('what a webhook takes', () => {
  const refused = async (body: object, field: string) => {
    const response = await create(body);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    const error = errorOf(response);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details?.field).toBe(field);
    expect(JSON.stringify(response.body)).not.toMatch(/syntax error|relation|pg_|SELECT/);
    return error;
  };

  it('refuses urls that are not http(s), carry credentials or do not resolve', async () => {
    await refused({ url: 'ftp://example.com/x', tables: ['orders'] }, 'url');
    await refused({ url: 'not a url', tables: ['orders'] }, 'url');
    await refused({ url: 'http://user:pw@127.0.0.1/x', tables: ['orders'] }, 'url');
    await refused({ url: 'http://does-not-exist.invalid/hook', tables: ['orders'] }, 'url');
    await refused({ url: `${receiver.url}?${'a'.repeat(2100)}`, tables: ['orders'] }, 'url');
    await refused({ tables: ['orders'] }, 'url');
  });

  it('refuses tables that are not served, reserved, or not a list', async () => {
    await refused({ url: receiver.url, tables: ['nope'] }, 'tables');
    await refused({ url: receiver.url, tables: ['_basalt_webhooks'] }, 'tables');
    await refused({ url: receiver.url, tables: ['users'] }, 'tables');
    await refused({ url: receiver.url, tables: [] }, 'tables');
    await refused({ url: receiver.url, tables: 'orders' }, 'tables');
    await refused({ url: receiver.url, tables: ['orders"; DROP TABLE orders; --'] }, 'tables');
    await refused({ url: receiver.url }, 'tables');
  });

  it('refuses unknown events and fields', async () => {
    await refused({ url: receiver.url, tables: ['orders'], events: ['upsert'] }, 'events.0');
    await refused({ url: receiver.url, tables: ['orders'], events: [] }, 'events');
    await refused({ url: receiver.url, tables: ['orders'], secret: 'whsec_mine' }, 'secret');
  });

  it('checks a filter: one table, the rules language, no @auth', async () => {
    const ok = await create({ url: receiver.url, tables: ['orders'], filter: "status = 'paid' and total > 10", enabled: false });
    expect(ok.status).toBe(201);
    await h.request().delete(`/admin/webhooks/${ok.body.data.id}`).set(owner.auth);
    await refused({ url: receiver.url, tables: ['orders', 'notes'], filter: "status = 'paid'" }, 'filter');
    await refused({ url: receiver.url, tables: '*', filter: "status = 'paid'" }, 'filter');
    await refused({ url: receiver.url, tables: ['orders'], filter: 'user_id = @auth.id' }, 'filter');
    await refused({ url: receiver.url, tables: ['orders'], filter: 'nope = 1' }, 'filter');
    await refused({ url: receiver.url, tables: ['orders'], filter: "status = 'a'; DROP TABLE orders" }, 'filter');
    await refused({ url: receiver.url, tables: ['orders'], filter: "total = 'many'" }, 'filter');
  });

  it('checks headers: at most 10, no webhook-*, host or content-*, no line breaks', async () => {
    await refused({ url: receiver.url, tables: ['orders'], headers: { 'webhook-id': 'x' } }, 'headers');
    await refused({ url: receiver.url, tables: ['orders'], headers: { Host: 'evil' } }, 'headers');
    await refused({ url: receiver.url, tables: ['orders'], headers: { 'Content-Type': 'text/plain' } }, 'headers');
    await refused({ url: receiver.url, tables: ['orders'], headers: { 'X-A': 'a\r\nX-B: b' } }, 'headers');
    await refused({ url: receiver.url, tables: ['orders'], headers: { 'bad name': 'a' } }, 'headers');
    // A key the JSON parser keeps as an own property and a validator would drop unseen: refused, nothing polluted.
    await refused(JSON.parse(`{"url":"${receiver.url}","tables":["orders"],"headers":{"__proto__":{"polluted":"yes"},"X-Ok":"1"}}`), 'headers');
    await refused(JSON.parse(`{"url":"${receiver.url}","tables":["orders"],"headers":{"__proto__":"x"}}`), 'headers');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await refused({ url: receiver.url, tables: ['orders'], headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-${i}`, 'v'])) }, 'headers');
  });

  it('answers 400 for a bad id in the path and 404 for an unknown one', async () => {
    expect((await h.request().get('/admin/webhooks/..%2F..').set(owner.auth)).status).toBe(400);
    expect((await h.request().get(`/admin/webhooks/${"x'or'1'='1"}`).set(owner.auth)).status).toBe(400);
    expect((await h.request().get('/admin/webhooks/unknown').set(owner.auth)).status).toBe(404);
    expect((await h.request().patch('/admin/webhooks/unknown').set(owner.auth).send({ enabled: false })).status).toBe(404);
  });

  it('keeps the columns and tables a filter reads: dropping them is 409 naming the webhook', async () => {
    const made = (await create({ url: receiver.url, tables: ['orders'], filter: "status = 'paid'", enabled: false })).body.data;
    const dropped = await h.request().delete('/admin/tables/orders/columns/status').set(owner.auth);
    expect(dropped.status).toBe(409);
    expect(errorOf(dropped).details).toEqual({ constraint: 'rule', column: `webhooks.${made.id}.filter` });
    expect((await h.request().delete('/admin/tables/orders/columns/total').set(owner.auth)).status).toBe(200);
    await h.request().delete(`/admin/webhooks/${made.id}`).set(owner.auth);
    expect((await h.request().delete('/admin/tables/orders/columns/status').set(owner.auth)).status).toBe(200);
  });
});

describe('targets without allowPrivateTargets', () => {
  let strict: Harness;
  let strictOwner: Account;
  beforeAll(async () => {
    strict = await startHarness({ limits: false });
    strictOwner = await signUp(strict);
    await createTable(strict, strictOwner, { name: 'orders', policy: 'public-read', columns: [{ name: 'status', type: 'text' }] });
  });
  afterAll(() => strict.close());

  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost:9/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[64:ff9b::a9fe:a9fe]/hook',
    'http://[fe80::1]/hook',
    'http://[fd00::1]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
  ])('refuses %s at creation (400 naming url)', async (url) => {
    const response = await strict.request().post('/admin/webhooks').set(strictOwner.auth).send({ url, tables: ['orders'] });
    expect(response.status).toBe(400);
    expect(errorOf(response).details?.field).toBe('url');
  });
});
