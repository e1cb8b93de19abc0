import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, type Account } from '../harness.js';
import { edgeRun } from './runs.js';

/**
 * The owner's webhooks' edges (issue 29), as files-edges.test.ts holds the files': a webhook's `url`, `tables`,
 * `events`, `filter`, `headers`, `enabled` and the bodies' shapes, the path's ids, the deliveries' `status`, `limit`
 * and `before`, a replay's `since`, each in both directions; and answers of every kind (a delivery delivered, failed,
 * pending and dead, a rotation, a 413) checked against the document. Targets are a receiver on loopback
 * (`webhooks.allowPrivateTargets`); webhooks made to test a value are disabled, so nothing is sent to them.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers and an OpenAPI document

const run = edgeRun({
  webhooks: true,
  prepare: async (h) => {
    const owner = await signUp(h);
    await createTable(h, owner, { name: 'orders', policy: 'public-read', columns: [{ name: 'status', type: 'text' }, { name: 'total', type: 'integer' }] });
    await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'body', type: 'text' }] });
    return { owner, member: await signUp(h) };
  },
});

const as = (who: Account = run.project.owner) => who.auth;
const create = (body: unknown) => run.h.request().post('/admin/webhooks').set(as()).send(body as object);
const patch = (id: string, body: unknown) => run.h.request().patch(`/admin/webhooks/${id}`).set(as()).send(body as object);
const get = (path: string) => run.h.request().get(path).set(as());
const post = (path: string, body?: object) => run.h.request().post(path).set(as()).send(body);
const createBody = () => () => run.schemas.of(run.component('CreateWebhook'));
const field = (name: string) => () => run.schemas.of(run.component('CreateWebhook').properties[name]);
/** A disabled webhook on orders with this field changed. */
const withField = (name: string) => (value: unknown) => create({ url: run.receiver.url, tables: ['orders'], enabled: false, [name]: value });

/** The webhook's deliveries once `ready` holds for them. */
async function deliveries(id: string, ready: (list: Json[]) => boolean): Promise<Json[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = (await get(`/admin/webhooks/${id}/deliveries?limit=200`)).body.data as Json[];
    if (ready(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries of ${id}: ${JSON.stringify(list.map(({ type, status }) => ({ type, status })))}`);
    await sleep(50);
  }
}

describe('the webhooks\' edges: what the document admits the service takes, what it refuses the service refuses', () => {
  it('url: http or https, no credentials, at most 2048 characters; the target may be loopback here', async () => {
    const port = run.receiver.port;
    const base = `http://127.0.0.1:${port}/`;
    await run.holds({
      schema: field('url'),
      send: withField('url'),
      named: 'url',
      refused: ['', 'ftp://127.0.0.1/hook', 'http://someone:secret@127.0.0.1/', '127.0.0.1/hook', 'http://a b/', 'http://127.0.0.1:65536/', 'http://xn--a.test/', 'http://a.09/', `${base}${'x'.repeat(2049 - base.length)}`, 'mailto:a@x.test', 5, null],
      admitted: [run.receiver.url, `HTTP://127.0.0.1:${port}/hook?x=1#f`, `http://localhost:${port}/`, `http://[::1]:${port}/hook`, `https://127.0.0.1:00443/`, `${base}${'x'.repeat(2048 - base.length)}`],
    });
    // Where the host resolves is the service's to find out (the document cannot): a name that does not is 400 naming url.
    const unresolved = await withField('url')('http://nothing.invalid/hook');
    expect([field('url')()('http://nothing.invalid/hook'), errorOf(unresolved).details]).toEqual([true, { field: 'url' }]);
  });

  it('url: NUL is refused, naming url', async () => {
    await run.holds({ schema: field('url'), send: withField('url'), named: 'url', refused: [`${run.receiver.url}\u0000`, `${run.receiver.url}#\u0000`], admitted: [] });
  });

  it('tables: "*" or 1 to 100 distinct names of 1 to 200 characters; each must be served', async () => {
    const send = withField('tables');
    await run.holds({ schema: field('tables'), send, named: 'tables', refused: [[], 'orders', 5, null, Array.from({ length: 101 }, (_, i) => `t${i}`)], admitted: [['orders'], '*', ['orders', 'notes']] });
    await run.holds({ schema: field('tables'), send, named: 'tables.0', refused: [[''], ['x'.repeat(201)], [5]], admitted: [] });
    await run.holds({ schema: field('tables'), send, named: 'tables.1', refused: [['orders', 'orders']], admitted: [] });
    expect([field('tables')()(['nothere']), errorOf(await send(['nothere'])).details]).toEqual([true, { field: 'tables' }]);
  });

  it('events: 1 or more of insert, update, delete, truncate, each once', async () => {
    const send = withField('events');
    await run.holds({ schema: field('events'), send, named: 'events', refused: [[], 'insert', null], admitted: [['truncate'], ['insert', 'update', 'delete', 'truncate']] });
    await run.holds({ schema: field('events'), send, named: 'events.0', refused: [['bogus'], ['INSERT'], [5]], admitted: [] });
    await run.holds({ schema: field('events'), send, named: 'events.1', refused: [['insert', 'insert']], admitted: [] });
  });

  it('filter: 1 to 2000 characters of the rules language about exactly one table, or null', async () => {
    const long = `status = '${'x'.repeat(2000 - 11)}'`;
    expect(long).toHaveLength(2000);
    await run.holds({ schema: field('filter'), send: withField('filter'), named: 'filter', refused: ['', 5, `${long}x`, 'x'.repeat(4097)], admitted: ["status = 'paid' and total >= 100", long, null, '@now > createdAt'] });
    // Exactly one table: the body says it (the document's if/then), or the webhook as it ends up.
    await run.holds({ schema: createBody(), send: create, named: 'filter', refused: [{ url: run.receiver.url, tables: '*', filter: "status = 'x'" }, { url: run.receiver.url, tables: ['orders', 'notes'], filter: "status = 'x'" }], admitted: [{ url: run.receiver.url, tables: ['orders'], filter: "status = 'x'", enabled: false }] });
    // The language is the service's: @auth (a webhook has no caller), a column the table lacks, nonsense.
    for (const filter of ['@auth.id = status', 'nope = 1', 'status =']) expect(errorOf(await withField('filter')(filter)).details?.field, filter).toBe('filter');
  });

  it('filter: NUL is refused, naming filter', async () => {
    await run.holds({ schema: field('filter'), send: withField('filter'), named: 'filter', refused: ["status = 'a\u0000'"], admitted: [] });
  });

  it('headers: up to 10, HTTP token names but webhook-*, host and content-*, values of 1 to 1000 sendable characters', async () => {
    const send = withField('headers');
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-H${i}`, `v${i}`]));
    await run.holds({
      schema: field('headers'),
      send,
      named: 'headers',
      refused: [{ Host: 'x' }, { 'content-type': 'x' }, { 'Webhook-Id': 'x' }, { 'X A': 'x' }, { ['x'.repeat(101)]: 'v' }, { ...ten, 'X-H10': 'v' }, { 'X-A': 'a\nb' }, { 'X-A': 'a\rb' }, [], null, 'x'],
      admitted: [{}, ten, { 'X-A': 'x'.repeat(1000) }, { "!#$%&'*+.^_`|~": 'v' }, { 'X-A': 'é\tb ~' }, { HOSTS: 'x', webhook: 'x', 'x-content': 'x' }],
    });
    await run.holds({ schema: field('headers'), send, named: 'headers.X-A', refused: [{ 'X-A': '' }, { 'X-A': 'x'.repeat(1001) }, { 'X-A': 5 }], admitted: [] });
  });

  it('enabled, unknown members, required members and the body itself', async () => {
    // An enabled one is deleted at once: it would be sent the later tests' changes, signed with a secret they lack.
    const once = async (enabled: unknown) => {
      const response = await withField('enabled')(enabled);
      if (response.status === 201) await run.h.request().delete(`/admin/webhooks/${response.body.data.id as string}`).set(as()).expect(200);
      return response;
    };
    await run.holds({ schema: field('enabled'), send: once, named: 'enabled', refused: ['yes', null, 1, 0], admitted: [true, false] });
    const url = run.receiver.url;
    const shapes: Array<[string, unknown[]]> = [['extra', [{ url, tables: ['orders'], extra: 1 }]], ['secret', [{ url, tables: ['orders'], secret: 'whsec_x' }]], ['url', [{ tables: ['orders'] }]], ['tables', [{ url }]], ['body', [[{ url, tables: ['orders'] }]]]];
    for (const [named, refused] of shapes) await run.holds({ schema: createBody(), send: create, named, refused, admitted: [] });
    const made = (await create({ url, tables: ['orders'], enabled: false })).body.data as Json;
    const update = () => run.schemas.of(run.component('UpdateWebhook'));
    const send = (body: unknown) => patch(made.id, body);
    await run.holds({ schema: update, send, named: 'body', refused: [{}], admitted: [{ enabled: false }, { filter: null }, { events: ['insert'] }, { headers: {} }] });
    await run.holds({ schema: update, send, named: 'filter', refused: [{ tables: ['orders', 'notes'], filter: "status = 'x'" }, { tables: '*', filter: "status = 'x'" }], admitted: [{ tables: ['orders'], filter: "status = 'x'" }] });
    // With the filter stored, a change of tables alone is the service's to refuse (the webhook as it ends up).
    expect([update()({ tables: ['orders', 'notes'] }), errorOf(await send({ tables: ['orders', 'notes'] })).details]).toEqual([true, { field: 'filter' }]);
  });

  it('the path\'s ids: 1 to 64 of A-Z a-z 0-9 _ -', async () => {
    const made = (await create({ url: run.receiver.url, tables: ['orders'], enabled: false })).body.data as Json;
    const refused = ['a.b', 'x'.repeat(65), 'a b', 'é', 'a/b', '%'];
    await run.holds({ schema: run.parameter('/admin/webhooks/{id}', 'get', 'id'), send: (id: string) => get(`/admin/webhooks/${encodeURIComponent(id)}`), named: 'id', refused, admitted: [made.id, 'x'.repeat(64), '_-'], alsoFine: [404] });
    const retry = (delivery: string) => post(`/admin/webhooks/${made.id}/deliveries/${encodeURIComponent(delivery)}/retry`);
    await run.holds({ schema: run.parameter('/admin/webhooks/{id}/deliveries/{delivery}/retry', 'post', 'delivery'), send: retry, named: 'delivery', refused, admitted: ['msg_nothere', 'x'.repeat(64)], alsoFine: [404] });
  });

  it('deliveries: status, limit from 1 to 200, before a position in the queue; no other parameter', async () => {
    const hook = (await create({ url: run.receiver.url, tables: ['notes'] })).body.data as Json;
    run.receiver.secrets = [hook.secret as string];
    for (const body of ['one', 'two', 'three']) await run.h.request().post('/api/notes').set(as()).send({ body }).expect(201);
    await deliveries(hook.id, (list) => list.filter((delivery) => delivery.status === 'delivered').length === 3);
    const list = (name: string) => (value: string) => get(`/admin/webhooks/${hook.id}/deliveries?${new URLSearchParams({ [name]: value })}`);
    const path = '/admin/webhooks/{id}/deliveries';
    await run.holds({ schema: run.parameter(path, 'get', 'status'), send: list('status'), named: 'status', refused: ['bogus', '', 'DELIVERED'], admitted: ['pending', 'delivered', 'failed', 'dead'] });
    await run.holds({ schema: run.parameter(path, 'get', 'limit'), send: list('limit'), named: 'limit', refused: ['0', '201', '-1', '1.5', '', 'x', '00'], admitted: ['1', '200', '007', '0200'] });
    const next = run.answers('GET', `/admin/webhooks/${hook.id}/deliveries?limit=1`, await list('limit')('1')).body.next as string;
    await run.holds({ schema: run.parameter(path, 'get', 'before'), send: list('before'), named: 'before', refused: ['0', '01', '-1', 'x', '', '1.5'], admitted: [next, '1', '9223372036854775807'] });
    expect(errorOf(await list('nope')('1')).details).toEqual({ parameter: 'nope' });
  });

  it('deliveries: before past the largest position (2^63 - 1) is refused, naming before', async () => {
    const hook = (await create({ url: run.receiver.url, tables: ['orders'], enabled: false })).body.data as Json;
    await run.holds({ schema: run.parameter('/admin/webhooks/{id}/deliveries', 'get', 'before'), send: (before: string) => get(`/admin/webhooks/${hook.id}/deliveries?before=${before}`), named: 'before', refused: ['9223372036854775808', '9999999999999999999'], admitted: [] });
  });

  it('a replay\'s since: an RFC 3339 date-time', async () => {
    const hook = (await create({ url: run.receiver.url, tables: ['orders'], enabled: false })).body.data as Json;
    const path = `/admin/webhooks/${hook.id}/replay`;
    const since = () => run.schemas.of(run.body('/admin/webhooks/{id}/replay').properties.since);
    const now = new Date().toISOString();
    await run.holds({ schema: since, send: (value: unknown) => post(path, { since: value }), named: 'since', refused: ['yesterday', '', 5, null, '2026-13-01T00:00:00Z', '2016-12-31T23:59:60Z'], admitted: [now, now.replace('T', 't').replace('Z', 'z'), '2030-01-02T03:04:05.123456789+05:30', '2030-01-02T03:04:05-00:00'] });
    await run.holds({ schema: () => run.schemas.of(run.body('/admin/webhooks/{id}/replay')), send: (body: unknown) => post(path, body as object), named: 'until', refused: [{ since: now, until: now }], admitted: [] });
  });

  it('answers: a webhook with its secret, lists, deliveries delivered, failed, pending and dead, a rotation, a 413', async () => {
    const made = run.answers('POST', '/admin/webhooks', await create({ url: run.receiver.url, tables: ['orders'], headers: { 'X-Token': 't' } }));
    const hook = made.body.data as Json;
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    for (const path of ['/admin/webhooks', `/admin/webhooks/${hook.id}`]) run.answers('GET', path, await get(path));
    const rotated = run.answers('POST', `/admin/webhooks/${hook.id}/secret`, await post(`/admin/webhooks/${hook.id}/secret`)).body.data as Json;
    run.receiver.secrets = [rotated.secret as string];

    await run.h.request().post('/api/orders').set(as()).send({ status: 'paid', total: 120 }).expect(201);
    await deliveries(hook.id, (list) => list.some((delivery) => delivery.status === 'delivered'));
    run.answers('GET', `/admin/webhooks/${hook.id}/deliveries?status=delivered`, await get(`/admin/webhooks/${hook.id}/deliveries?status=delivered`));

    // A failure, then one given up: a delivery older than 24 hours fails for good at its next attempt.
    run.receiver.answer(503);
    try {
      await run.h.request().post('/api/orders').set(as()).send({ status: 'new' }).expect(201);
      const failed = (await deliveries(hook.id, (list) => list.some((delivery) => delivery.status === 'failed'))).find((delivery) => delivery.status === 'failed')!;
      run.answers('GET', `/admin/webhooks/${hook.id}/deliveries?status=failed`, await get(`/admin/webhooks/${hook.id}/deliveries?status=failed`));
      const sql = await run.h.sql();
      await sql.query(`UPDATE _basalt_webhook_deliveries SET created_at = now() - interval '25 hours' WHERE id = $1`, [failed.id]);
      const pending = run.answers('POST', `/admin/webhooks/${hook.id}/deliveries/${failed.id}/retry`, await post(`/admin/webhooks/${hook.id}/deliveries/${failed.id}/retry`));
      expect(pending.body.data).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });
      await deliveries(hook.id, (list) => list.some((delivery) => delivery.id === failed.id && delivery.status === 'dead'));
      const dead = run.answers('GET', `/admin/webhooks/${hook.id}/deliveries?status=dead`, await get(`/admin/webhooks/${hook.id}/deliveries?status=dead`));
      expect(dead.body.data[0]).toMatchObject({ id: failed.id, status: 'dead', lastStatus: 503, nextAttemptAt: null, deliveredAt: null });
    } finally {
      run.receiver.accept();
    }
    run.answers('POST', `/admin/webhooks/${hook.id}/replay`, await post(`/admin/webhooks/${hook.id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() }));

    const tooLarge = await create({ url: run.receiver.url, tables: ['orders'], filter: 'x'.repeat(1024 * 1024) });
    expect(run.answers('POST', '/admin/webhooks', tooLarge).status).toBe(413);
    expect(run.answers('GET', '/admin/webhooks', await run.h.request().get('/admin/webhooks').set(run.project.member.auth)).status).toBe(403);
    expect(run.answers('GET', '/admin/webhooks', await run.h.request().get('/admin/webhooks')).status).toBe(401);
    run.answers('DELETE', `/admin/webhooks/${hook.id}`, await run.h.request().delete(`/admin/webhooks/${hook.id}`).set(as()));
    expect(run.receiver.received.every((received) => received.verified)).toBe(true);
  });
});
