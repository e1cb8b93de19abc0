// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type BasaltClient, type StorageAdapter } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/**
 * Where the session lives, against the server, in a browser-like environment (happy-dom provides `window`,
 * `document` and `localStorage`, as a page has).
 */
let live: Live;
let email: string;
const clients: BasaltClient[] = [];

beforeAll(async () => {
  live = await startLive();
  email = uniqueEmail('owner');
  await live.client().auth.signUp({ email, password: PASSWORD });
});
afterAll(async () => {
  clients.forEach((client) => client.close());
  await live.stop();
});

function open(options: Parameters<typeof createClient>[2] = {}): BasaltClient {
  const client = createClient(live.server.url, live.server.anonKey, options);
  clients.push(client);
  return client;
}

/** Like React Native's AsyncStorage: every method returns a promise, and answers a little later. */
function asyncStorage(): StorageAdapter & { items: Map<string, string> } {
  const items = new Map<string, string>();
  const later = <T>(value: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(value()), 2));
  return {
    items,
    getItem: (key) => later(() => items.get(key) ?? null),
    setItem: (key, value) => later(() => void items.set(key, value)),
    removeItem: (key) => later(() => void items.delete(key)),
  };
}

describe('token storage', () => {
  it('keeps the session in localStorage by default, under a key derived from the URL, and restores it', async () => {
    localStorage.clear();
    const first = open();
    expect(first.storageKey).toBe(`basalt.auth.${new URL(live.server.url).host}`);
    const session = await first.auth.signIn({ email, password: PASSWORD });
    const stored = JSON.parse(localStorage.getItem(first.storageKey) ?? 'null') as { refreshToken?: string };
    expect(stored.refreshToken).toBe(session.refreshToken);
    // A page reload: a new client finds the session and uses it.
    const second = open();
    expect((await second.auth.getSession())?.accessToken).toBe(session.accessToken);
    await expect(second.auth.me()).resolves.toMatchObject({ email });
    await second.auth.signOut();
    expect(localStorage.getItem(first.storageKey)).toBeNull();
  });

  it('keeps two projects on one origin apart with their own storage keys', async () => {
    localStorage.clear();
    const a = open({ storageKey: 'project-a' });
    const b = open({ storageKey: 'project-b' });
    await a.auth.signIn({ email, password: PASSWORD });
    expect(localStorage.getItem('project-a')).not.toBeNull();
    expect(localStorage.getItem('project-b')).toBeNull();
    expect(await b.auth.getSession()).toBeNull();
    await a.auth.signOut();
  });

  it('works with a custom async adapter, and a new client restores the session from it', async () => {
    localStorage.clear();
    const storage = asyncStorage();
    const first = open({ storage, storageKey: 'rn' });
    const session = await first.auth.signIn({ email, password: PASSWORD });
    expect(JSON.parse(storage.items.get('rn') ?? 'null')).toMatchObject({ refreshToken: session.refreshToken });
    expect(localStorage.length).toBe(0);
    const restored = open({ storage, storageKey: 'rn' });
    await expect(restored.auth.me()).resolves.toMatchObject({ email });
    await restored.auth.signOut();
    expect(storage.items.has('rn')).toBe(false);
  });

  it('with storage: false keeps tokens in memory only: nothing is written, a new client starts signed out', async () => {
    localStorage.clear();
    const client = open({ storage: false });
    await client.auth.signIn({ email, password: PASSWORD });
    await expect(client.auth.me()).resolves.toMatchObject({ email });
    expect(localStorage.length).toBe(0);
    expect(await open({ storage: false }).auth.getSession()).toBeNull();
  });
});
