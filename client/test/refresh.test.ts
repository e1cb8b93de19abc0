import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage, type AuthChangeEvent, type Session } from '../src/index.js';
import { PASSWORD, countingFetch, expiredCopy, sessionOf, startLive, uniqueEmail, type Live } from './support/live.js';

let live: Live;
let email: string;
const KEY = 'refresh.test';

beforeAll(async () => {
  live = await startLive();
  email = uniqueEmail('owner');
  const owner = live.client();
  await owner.auth.signUp({ email, password: PASSWORD });
  await owner.admin.tables.create({ name: 'todos', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] });
});
afterAll(() => live.stop());

/** Signs in once, then stores that session with its access token replaced by an expired one. */
async function storedExpiredSession(options: { localClockAgrees: boolean }) {
  const session = await sessionOf(live.client().auth.signIn({ email, password: PASSWORD }));
  const storage = memoryStorage();
  const expired: Session = {
    ...session,
    accessToken: expiredCopy(session.accessToken),
    // localClockAgrees false: the client believes the token has an hour left (a clock running behind), so only
    // the server's 401 token_expired can tell it to refresh.
    expiresAt: options.localClockAgrees ? Date.now() - 3600_000 : Date.now() + 3600_000,
  };
  storage.setItem(KEY, JSON.stringify(expired));
  return { storage, original: session };
}

describe('refresh against the server', () => {
  it('20 concurrent calls with an expired access token cause exactly one refresh request', async () => {
    const { storage, original } = await storedExpiredSession({ localClockAgrees: true });
    const fetch = countingFetch();
    const client = live.client({ storage, storageKey: KEY, fetch });
    const results = await Promise.all(Array.from({ length: 20 }, () => client.from('todos').list()));
    expect(results.every((result) => result.total === 0)).toBe(true);
    expect(fetch.count('/auth/refresh')).toBe(1);
    const session = await client.auth.getSession();
    expect(session?.refreshToken).not.toBe(original.refreshToken);
    expect(JSON.parse(String(storage.getItem(KEY))).refreshToken).toBe(session?.refreshToken);
    await expect(client.auth.me()).resolves.toMatchObject({ email });
  });

  it('20 concurrent calls refused with 401 token_expired cause exactly one refresh and one retry each', async () => {
    const { storage } = await storedExpiredSession({ localClockAgrees: false });
    const fetch = countingFetch();
    const client = live.client({ storage, storageKey: KEY, fetch });
    await Promise.all(Array.from({ length: 20 }, () => client.from('todos').list()));
    expect(fetch.count('/auth/refresh')).toBe(1);
    expect(fetch.count('/api/todos')).toBe(40);
  });

  it('a refresh that loses (401) signs the client out cleanly and fires onChange', async () => {
    const { storage, original } = await storedExpiredSession({ localClockAgrees: true });
    // Another device spends the refresh token first.
    const stolen = await fetch(`${live.server.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: original.refreshToken }),
    });
    expect(stolen.status).toBe(200);
    const client = live.client({ storage, storageKey: KEY });
    const events: [AuthChangeEvent, Session | null][] = [];
    client.auth.onChange((event, session) => events.push([event, session]));
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => client.from('todos').list()));
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ name: 'ApiError', status: 401, code: 'UNAUTHORIZED' });
    }
    expect(events).toEqual([['signed_out', null]]);
    expect(storage.getItem(KEY)).toBeNull();
    expect(await client.auth.getSession()).toBeNull();
  });

  it('two clients racing with one refresh token: the server keeps one, the loser is signed out, the winner works', async () => {
    const session = await sessionOf(live.client().auth.signIn({ email, password: PASSWORD }));
    const stored = JSON.stringify({ ...session, accessToken: expiredCopy(session.accessToken), expiresAt: 0 });
    const [a, b] = [memoryStorage(), memoryStorage()];
    a.setItem(KEY, stored);
    b.setItem(KEY, stored);
    // Separate storage, no shared lock: nothing can coordinate them, so this is what the server's rule decides.
    const clientA = live.client({ storage: a, storageKey: KEY });
    const clientB = live.client({ storage: b, storageKey: KEY });
    const outcomes = await Promise.allSettled([clientA.from('todos').list(), clientB.from('todos').list()]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = outcomes[0]?.status === 'fulfilled' ? clientA : clientB;
    await expect(winner.auth.me()).resolves.toMatchObject({ email });
  });
});
