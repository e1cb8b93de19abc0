import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage, type RealtimeEvent, type Session } from '../src/index.js';
import { PASSWORD, countingFetch, sessionOf, signJwt, startLive, uniqueEmail, type Live } from './support/live.js';

/** `from(table).subscribe(...)` against a real server: delivery, filters, one shared connection, token refresh. */

let live: Live;
let email: string;
let userId: string;

beforeAll(async () => {
  live = await startLive();
  const owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  await owner.admin.tables.create({ name: 'todos', columns: [{ name: 'title', type: 'text' }, { name: 'done', type: 'boolean', default: false }, { name: 'user_id', type: 'text' }] });
  await owner.admin.tables.create({ name: 'news', policy: 'public-read', columns: [{ name: 'headline', type: 'text' }] });
  email = uniqueEmail('member');
  userId = (await live.client().auth.signUp({ email, password: PASSWORD })).user.id;
});
afterAll(() => live.stop());

async function until<T>(read: () => T[], count: number, timeoutMs = 5_000): Promise<T[]> {
  const started = Date.now();
  while (read().length < count) {
    if (Date.now() - started > timeoutMs) throw new Error(`waited for ${count}, got ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

describe('subscribe', () => {
  it('delivers the changes the caller may see, filtered and selected, until unsubscribed', async () => {
    const client = live.client();
    await client.auth.signIn({ email, password: PASSWORD });
    const all: RealtimeEvent[] = [];
    const open: RealtimeEvent[] = [];
    const stopAll = client.from('todos').subscribe({}, (event) => all.push(event));
    const stopOpen = client.from('todos').subscribe({ filter: { done: false }, select: ['title'] }, (event) => open.push(event));
    await settle();
    const created = await client.from('todos').create({ title: 'live one' });
    await client.from('todos').upsert(created.id as string, { done: true });
    await client.from('todos').create({ title: 'live two' });
    await until(() => all, 3);
    await until(() => open, 2);
    expect(all.map((event) => event.type)).toEqual(['insert', 'update', 'insert']);
    expect(all[0]).toMatchObject({ table: 'todos', record: { title: 'live one', user_id: userId } });
    expect(open.map((event) => event.record)).toEqual([{ title: 'live one' }, { title: 'live two' }]);
    stopAll();
    stopOpen();
    await client.from('todos').create({ title: 'after unsubscribing' });
    await settle();
    expect(all).toHaveLength(3);
    client.close();
  });

  it('says when the stream is open: a write made right after it is delivered, with no waiting', async () => {
    const client = live.client();
    await client.auth.signIn({ email, password: PASSWORD });
    const events: RealtimeEvent[] = [];
    const statuses: string[] = [];
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stop = client.from('todos').subscribe({}, (event) => events.push(event), (status) => {
      statuses.push(status);
      if (status === 'open') opened();
    });
    await open;
    await client.from('todos').create({ title: 'at once' });
    // A write of the test before, committed just before this stream opened, may come first (the stream promises every
    // change after its open, and may start a little before it): this one must arrive without waiting.
    const [event] = await until(() => events.filter((item) => (item as { record?: { title?: unknown } }).record?.title === 'at once'), 1);
    expect(event).toMatchObject({ type: 'insert', record: { title: 'at once' } });
    expect(statuses).toEqual(['open']);
    stop();
    client.close();
  });

  it('shares one connection between unfiltered subscriptions of several tables', async () => {
    const fetch = countingFetch();
    const client = live.client({ fetch });
    await client.auth.signIn({ email, password: PASSWORD });
    const events: RealtimeEvent[] = [];
    const stopTodos = client.from('todos').subscribe({}, (event) => events.push(event));
    const stopNews = client.from('news').subscribe({}, (event) => events.push(event));
    await settle();
    await client.from('todos').create({ title: 'on the shared line' });
    await until(() => events, 1);
    const streams = fetch.calls.filter((call) => call.path.startsWith('/realtime'));
    // The first subscription opened it; the second reopened it for both tables (one connection at a time).
    expect(streams.map((call) => call.path)).toEqual(['/realtime', '/realtime']);
    stopTodos();
    stopNews();
    client.close();
  });

  it('refreshes an expired token through the shared refresh and resumes without losing an event', async () => {
    const session = await sessionOf(live.client().auth.signIn({ email, password: PASSWORD }));
    const claims = JSON.parse(Buffer.from(session.accessToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    const shortLived: Session = { ...session, accessToken: signJwt({ ...claims, iat: now, exp: now + 2 }), expiresAt: Date.now() + 3_600_000 };
    const storage = memoryStorage();
    storage.setItem('realtime.test', JSON.stringify(shortLived));
    const client = live.client({ storage, storageKey: 'realtime.test', autoRefresh: false });
    const writer = live.client();
    await writer.auth.signIn({ email, password: PASSWORD });
    const events: RealtimeEvent[] = [];
    const stop = client.from('todos').subscribe({ filter: { title: { like: 'refresh *' } } }, (event) => events.push(event));
    await settle();
    await writer.from('todos').create({ title: 'refresh 1' });
    await until(() => events, 1);
    // The stream ends at the token's exp; these land while the client refreshes and reconnects.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    await writer.from('todos').create({ title: 'refresh 2' });
    await writer.from('todos').create({ title: 'refresh 3' });
    await until(() => events, 3, 8_000);
    await settle();
    expect(events.map((event) => event.record?.title)).toEqual(['refresh 1', 'refresh 2', 'refresh 3']);
    expect(events.some((event) => event.type === 'error')).toBe(false);
    stop();
    client.close();
    writer.close();
  });

  it('streams only the rows a where expression matches, ANDed with filter, and refuses a bad one', async () => {
    const client = live.client();
    await client.auth.signIn({ email, password: PASSWORD });
    const odd = 'where a&b=c #1 100% + é';
    const matched: RealtimeEvent[] = [];
    const anded: RealtimeEvent[] = [];
    const statuses: string[] = [];
    const stopMatched = client.from('todos').subscribe({ where: `title = '${odd}' or (title like 'where *' and done = true)`, select: ['title'] }, (event) => matched.push(event), (status) => statuses.push(status));
    const stopAnded = client.from('todos').subscribe({ where: "title like 'where *'", filter: { done: false }, select: ['title'] }, (event) => anded.push(event), (status) => statuses.push(status));
    await until(() => statuses, 2);
    await client.from('todos').create({ title: odd });
    await client.from('todos').create({ title: 'where plain' });
    await client.from('todos').create({ title: 'where done', done: true });
    await client.from('todos').create({ title: 'elsewhere', done: true });
    await until(() => matched, 2);
    await until(() => anded, 2);
    await settle();
    expect(matched.map((event) => event.record)).toEqual([{ title: odd }, { title: 'where done' }]);
    expect(anded.map((event) => event.record)).toEqual([{ title: odd }, { title: 'where plain' }]);
    stopMatched();
    stopAnded();
    const refused: RealtimeEvent[] = [];
    client.from('todos').subscribe({ where: 'title =' }, (event) => refused.push(event));
    const [ended] = await until(() => refused, 1);
    expect(ended).toMatchObject({ type: 'error', error: { status: 400, code: 'VALIDATION_ERROR', details: { parameter: 'filter' } } });
    client.close();
  });

  it('ends with an error event when the policy refuses', async () => {
    const anon = live.client();
    const events: RealtimeEvent[] = [];
    anon.from('todos').subscribe({}, (event) => events.push(event));
    const [ended] = await until(() => events, 1);
    expect(ended).toMatchObject({ type: 'error', error: { status: 403, code: 'FORBIDDEN' } });
    anon.close();
  });
});
