import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Received, WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import type { Harness } from '../harness.js';
import type { Answer, Traffic } from './traffic.js';

/**
 * The owner's webhooks (issue 29) through the Prism proxy (prism.test.ts), on the fixture's tables and a real receiver
 * on loopback that checks every signature with the `standardwebhooks` package: every operation with a success and its
 * documented refusals (the service's 400s naming the field, 401, 403, 404, and the 409 of dropping a table or column a
 * webhook's filter reads), the changes delivered as the answers say (signed, in order per row, filtered), a failed
 * attempt and its retry, a rotation (both secrets sign), a replay and its refusal once the log was trimmed.
 */

type Headers = Record<string, string>;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers, checked by the proxy

export interface WebhookRun {
  t: Traffic;
  h: Harness;
  receiver: WebhookReceiver;
  owner: Headers;
  member: Headers;
  /** The anon key as a bearer token (the /admin routes take bearer credentials alone). */
  anon: Headers;
}

const details = (answer: Answer) => answer.body.error.details;

/**
 * Watches for deliveries from now on: the returned function waits for the next `count` the receiver takes (2xx) with
 * ids it had not had when watching began, in the order they came. Watch before the change: a delivery may arrive
 * before the call that caused it has its answer.
 */
function watch(receiver: WebhookReceiver): (count: number) => Promise<Received[]> {
  const known = new Set(receiver.received.map((received) => received.id));
  return async (count) => (await receiver.waitForDistinct(known.size + count)).filter((received) => !known.has(received.id));
}

/** The webhook's deliveries (asked of the service directly, not through the proxy) once `ready` holds for them. */
async function deliveriesOnce(run: WebhookRun, id: string, ready: (deliveries: Json[]) => boolean): Promise<Json[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const deliveries = (await run.h.request().get(`/admin/webhooks/${id}/deliveries?limit=200`).set(run.owner)).body.data as Json[];
    if (ready(deliveries)) return deliveries;
    if (Date.now() > deadline) throw new Error(`the deliveries of ${id} never got there: ${JSON.stringify(deliveries.map(({ type, status }) => ({ type, status })))}`);
    await sleep(50);
  }
}

export async function webhookTraffic(run: WebhookRun): Promise<void> {
  const { t, receiver, owner } = run;
  const url = receiver.url;
  const started = new Date().toISOString();

  // The owner's alone.
  await t.call('GET', '/admin/webhooks', { headers: run.member, status: 403 });
  await t.call('GET', '/admin/webhooks', { headers: run.anon, status: 401 });
  await t.call('POST', '/admin/webhooks', { headers: run.member, body: { url, tables: ['authors'] }, status: 403 });

  // A webhook on authors, every event, a header for the receiver; its secret is shown this once.
  const hook = (await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: ['authors'], events: ['insert', 'update', 'delete', 'truncate'], headers: { 'X-Token': 'for the receiver' } }, status: 201 })).body.data as Json;
  expect(hook).toMatchObject({ url, tables: ['authors'], filter: null, enabled: true, previousSecretUntil: null, secret: expect.stringMatching(/^whsec_/) });
  receiver.secrets = [hook.secret as string];
  const listed = (await t.call('GET', '/admin/webhooks', { headers: owner, status: 200 })).body.data as Json[];
  expect(listed.map((webhook) => webhook.id)).toContain(hook.id);
  expect(listed.filter((webhook) => 'secret' in webhook)).toEqual([]);
  await t.call('GET', `/admin/webhooks/${hook.id}`, { headers: owner, status: 200 });
  await t.call('GET', '/admin/webhooks/nothere', { headers: owner, status: 404 });
  await t.refusedByDocument('GET', '/admin/webhooks/not.an.id', { headers: owner });

  // What only the service knows (a served table, the rules language, where a name resolves) is its 400 naming the field.
  expect(details(await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: ['nothere'] }, status: 400 }))).toEqual({ field: 'tables' });
  expect(details(await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: ['authors'], filter: 'nope = 1' }, status: 400 })).field).toBe('filter');
  expect(details(await t.call('POST', '/admin/webhooks', { headers: owner, body: { url: 'http://nothing.invalid/hook', tables: ['authors'] }, status: 400 }))).toEqual({ field: 'url' });
  // What the document refuses, Prism stops.
  for (const body of [
    { url: 'ftp://127.0.0.1/hook', tables: ['authors'] },
    { url: 'http://someone:secret@127.0.0.1/hook', tables: ['authors'] },
    { url, tables: '*', filter: "name = 'x'" },
    { url, tables: [], events: ['insert'] },
    { url, tables: ['authors'], events: ['insert', 'insert'] },
    { url, tables: ['authors'], headers: { Host: 'elsewhere.test' } },
    { url, tables: ['authors'], headers: { 'X-Token': 'two\nlines' } },
    { url, tables: ['authors'], secret: 'mine' },
    { tables: ['authors'] },
  ]) {
    await t.refusedByDocument('POST', '/admin/webhooks', { headers: owner, body });
  }

  // Changes are delivered signed, with the webhook's header, in order per row, as /api answers the row.
  const changes = watch(receiver);
  const author = (await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Hooked' }, status: 201 })).body.data as Json;
  await t.call('PUT', `/api/authors/${author.id}`, { headers: owner, body: { bio: 'changed' }, status: 200 });
  const [inserted, updated] = await changes(2);
  expect(inserted!.payload).toMatchObject({ type: 'insert', table: 'authors', record: { id: author.id, name: 'Hooked' }, old: null });
  expect(updated!.payload).toMatchObject({ type: 'update', record: { id: author.id, bio: 'changed' }, old: { id: author.id, bio: null } });
  expect([inserted, updated].map((received) => [received!.verified, received!.headers['x-token']])).toEqual([[true, 'for the receiver'], [true, 'for the receiver']]);

  // The deliveries: newest first, by status, a page at a time.
  await deliveriesOnce(run, hook.id, (deliveries) => deliveries.filter((delivery) => delivery.status === 'delivered').length === 2);
  const page = await t.call('GET', `/admin/webhooks/${hook.id}/deliveries?status=delivered&limit=1`, { headers: owner, status: 200 });
  expect([page.body.data.map((delivery: Json) => delivery.id), page.body.next]).toEqual([[updated!.id], expect.stringMatching(/^[1-9][0-9]*$/)]);
  const last = await t.call('GET', `/admin/webhooks/${hook.id}/deliveries?status=delivered&limit=1&before=${page.body.next as string}`, { headers: owner, status: 200 });
  expect([last.body.data.map((delivery: Json) => delivery.id), last.body.next]).toEqual([[inserted!.id], null]);
  await t.call('GET', `/admin/webhooks/${hook.id}/deliveries`, { headers: owner, status: 200 });
  expect(details(await t.call('GET', `/admin/webhooks/${hook.id}/deliveries?since=yesterday`, { headers: owner, status: 400 }))).toEqual({ parameter: 'since' });
  await t.call('GET', '/admin/webhooks/nothere/deliveries', { headers: owner, status: 404 });
  for (const query of ['status=bogus', 'limit=0', 'limit=201', 'before=0', 'before=9223372036854775808']) await t.refusedByDocument('GET', `/admin/webhooks/${hook.id}/deliveries?${query}`, { headers: owner });

  // A failed attempt (the receiver answers 503), then the owner's retry: the same webhook-id, delivered.
  receiver.answer(503);
  await t.call('DELETE', `/api/authors/${author.id}`, { headers: owner, status: 200 });
  await deliveriesOnce(run, hook.id, (deliveries) => deliveries.some((delivery) => delivery.type === 'delete' && delivery.status === 'failed'));
  const failed = (await t.call('GET', `/admin/webhooks/${hook.id}/deliveries?status=failed`, { headers: owner, status: 200 })).body.data[0] as Json;
  expect(failed).toMatchObject({ type: 'delete', status: 'failed', attempts: 1, lastStatus: 503, lastError: 'status 503', nextAttemptAt: expect.any(String), deliveredAt: null });
  receiver.accept();
  const retry = watch(receiver);
  expect((await t.call('POST', `/admin/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { headers: owner, status: 200 })).body.data).toMatchObject({ id: failed.id, status: 'pending' });
  const [retried] = await retry(1);
  expect([retried!.id, retried!.payload.type, retried!.payload.record, retried!.payload.old?.id]).toEqual([failed.id, 'delete', null, author.id]);
  await t.call('POST', `/admin/webhooks/${hook.id}/deliveries/msg_nothere/retry`, { headers: owner, status: 404 });
  await t.refusedByDocument('POST', `/admin/webhooks/${hook.id}/deliveries/not.an.id/retry`, { headers: owner });

  // A rotation: the new secret alone verifies, and the previous one signs too for 24 hours.
  const rotated = (await t.call('POST', `/admin/webhooks/${hook.id}/secret`, { headers: owner, status: 200 })).body.data as Json;
  expect([rotated.secret === hook.secret, typeof rotated.previousSecretUntil]).toEqual([false, 'string']);
  receiver.secrets = [rotated.secret as string];
  const afterRotation = watch(receiver);
  await t.call('POST', '/api/authors', { headers: owner, body: { name: 'After the rotation' }, status: 201 });
  const [signed] = await afterRotation(1);
  expect([signed!.verified, signed!.signature.split(' ').length]).toEqual([true, 2]);
  await t.call('POST', '/admin/webhooks/nothere/secret', { headers: owner, status: 404 });

  // A change of settings, checked as a whole; the filter decides what is delivered.
  const changed = await t.call('PATCH', `/admin/webhooks/${hook.id}`, { headers: owner, body: { filter: "name = 'Wanted'", events: ['insert'] }, status: 200 });
  expect(changed.body.data).toMatchObject({ filter: "name = 'Wanted'", events: ['insert'] });
  expect(details(await t.call('PATCH', `/admin/webhooks/${hook.id}`, { headers: owner, body: { tables: ['authors', 'posts'] }, status: 400 }))).toEqual({ field: 'filter' });
  await t.call('PATCH', '/admin/webhooks/nothere', { headers: owner, body: { enabled: false }, status: 404 });
  for (const body of [{}, { tables: ['authors', 'posts'], filter: "name = 'x'" }, { enabled: 'no' }, { events: ['upsert'] }]) await t.refusedByDocument('PATCH', `/admin/webhooks/${hook.id}`, { headers: owner, body });
  const filtered = watch(receiver);
  await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Unwanted' }, status: 201 });
  await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Wanted' }, status: 201 });
  const [wanted] = await filtered(1);
  expect(wanted!.payload.record?.name).toBe('Wanted');

  // A replay: the changes since the start, under the webhook's filter and events now, with new webhook-ids.
  const replay = watch(receiver);
  const replayed = await t.call('POST', `/admin/webhooks/${hook.id}/replay`, { headers: owner, body: { since: started }, status: 200 });
  expect(replayed.body.data).toEqual({ queued: 1 });
  const [again] = await replay(1);
  expect([again!.id === wanted!.id, again!.payload.record?.name]).toEqual([false, 'Wanted']);
  await t.call('POST', '/admin/webhooks/nothere/replay', { headers: owner, body: { since: started }, status: 404 });
  for (const body of [{}, { since: 'yesterday' }, { since: '2026-11-29' }, { since: started, until: started }]) await t.refusedByDocument('POST', `/admin/webhooks/${hook.id}/replay`, { headers: owner, body });
  // Once the log has been trimmed, a since before its oldest change is the service's refusal.
  const sql = await run.h.sql();
  const trimmed = (await sql.query<{ xid: string }>('SELECT xid::text AS xid FROM _basalt_changes_trimmed')).rows[0]!.xid;
  await sql.query(`UPDATE _basalt_changes_trimmed SET xid = '1'`);
  try {
    const refused = await t.call('POST', `/admin/webhooks/${hook.id}/replay`, { headers: owner, body: { since: '2000-01-01T00:00:00Z' }, status: 400 });
    expect(details(refused)).toEqual({ field: 'since', oldest: expect.any(String) });
  } finally {
    await sql.query('UPDATE _basalt_changes_trimmed SET xid = $1::text::xid8', [trimmed]);
  }

  // Dropping a column or a table a webhook's filter reads is 409 (rule), on its own table or through a path.
  await t.call('POST', '/admin/tables', { headers: owner, body: { name: 'hooked', columns: [{ name: 'state', type: 'text' }] }, status: 201 });
  const onColumn = (await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: ['hooked'], filter: "state = 'done'", enabled: false }, status: 201 })).body.data as Json;
  expect(details(await t.call('DELETE', '/admin/tables/hooked/columns/state', { headers: owner, status: 409 }))).toEqual({ constraint: 'rule', column: `webhooks.${onColumn.id}.filter` });
  const onPath = (await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: ['posts'], filter: "author.name = 'Ada'", enabled: false }, status: 201 })).body.data as Json;
  expect(details(await t.call('DELETE', '/admin/tables/authors', { headers: owner, status: 409 }))).toEqual({ constraint: 'rule', column: `webhooks.${onPath.id}.filter` });
  const everything = (await t.call('POST', '/admin/webhooks', { headers: owner, body: { url, tables: '*', enabled: false }, status: 201 })).body.data as Json;
  expect(everything.tables).toBe('*');

  for (const webhook of [hook, onColumn, onPath, everything]) expect((await t.call('DELETE', `/admin/webhooks/${webhook.id}`, { headers: owner, status: 200 })).body.data).toEqual({ id: webhook.id, deleted: true });
  await t.call('DELETE', `/admin/webhooks/${hook.id}`, { headers: owner, status: 404 });
  await t.refusedByDocument('DELETE', '/admin/webhooks/not.an.id', { headers: owner });
  await t.call('DELETE', '/admin/tables/hooked', { headers: owner, status: 200 });
  expect(receiver.received.filter((received) => !received.verified)).toEqual([]);
}
