import { afterEach, describe, expect, it } from 'vitest';
import { FakeLockManager } from '../../test/support/fakeLocks.js';
import { FakeServer, fakeAccessToken } from '../../test/support/fakeServer.js';
import { createClient, type BasaltClient, type ClientOptions } from '../client.js';
import type { AuthChangeEvent } from './session.js';
import { memoryStorage, type StorageAdapter } from './storage.js';

/**
 * Tabs of one origin, simulated in one process: clients that share a storage adapter (localStorage), a lock manager
 * (navigator.locks) and a BroadcastChannel name. The real-browser version of these tests is client/browser.
 */
const clients: BasaltClient[] = [];
afterEach(() => clients.splice(0).forEach((client) => client.close()));

let keyCounter = 0;

function tabs(count: number, server: FakeServer, options: ClientOptions = {}) {
  const storageKey = `tabs.${++keyCounter}.${Date.now()}`;
  const storage = memoryStorage();
  const locks = new FakeLockManager();
  const open = () => {
    const client = createClient('http://api.test', 'anon', { fetch: server.fetch, storage, storageKey, locks, multiTab: true, ...options });
    clients.push(client);
    const events: AuthChangeEvent[] = [];
    client.auth.onChange((event) => events.push(event));
    return { client, events };
  };
  return { storage, storageKey, locks, open, tabs: Array.from({ length: count }, open) };
}

function plantExpired(storage: StorageAdapter, key: string, server: FakeServer): void {
  const { refreshToken } = server.issue();
  void storage.setItem(key, JSON.stringify({ user: { id: 'u1', email: 'a@x.test', role: 'member' }, accessToken: fakeAccessToken('u1', -5), refreshToken }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('refresh across tabs', () => {
  it('five tabs with an expired token make one refresh between them and end with the same tokens', async () => {
    const server = new FakeServer({ latencyMs: 20 });
    const setup = tabs(0, server);
    plantExpired(setup.storage, setup.storageKey, server);
    const five = Array.from({ length: 5 }, setup.open);
    await Promise.all(five.flatMap(({ client }) => Array.from({ length: 4 }, () => client.from('todos').list())));
    expect(server.refreshCount).toBe(1);
    const stored = JSON.parse(String(await setup.storage.getItem(setup.storageKey))) as { refreshToken: string };
    for (const { client, events } of five) {
      expect((await client.auth.getSession())?.refreshToken).toBe(stored.refreshToken);
      expect(events).not.toContain('signed_out');
    }
    expect(server.refreshTokens.has(stored.refreshToken)).toBe(true);
  });

  it('waits for the new tokens when another tab spent the token but this tab’s copy of storage lags behind', async () => {
    // Chrome gives each renderer its own copy of localStorage and syncs the copies asynchronously: a tab granted the
    // lock right after another tab refreshed can still read the spent token.
    const server = new FakeServer({ latencyMs: 10 });
    const storageKey = `laggy.${Date.now()}`;
    const copies: Map<string, string>[] = [];
    const laggyStorage = (): StorageAdapter => {
      const own = new Map<string, string>();
      copies.push(own);
      return {
        getItem: (key) => own.get(key) ?? null,
        setItem: (key, value) => {
          own.set(key, value);
          for (const copy of copies) if (copy !== own) setTimeout(() => copy.set(key, value), 150);
        },
        removeItem: (key) => {
          own.delete(key);
          for (const copy of copies) if (copy !== own) setTimeout(() => copy.delete(key), 150);
        },
      };
    };
    const { refreshToken } = server.issue();
    const planted = JSON.stringify({ user: { id: 'u1', email: 'a@x.test', role: 'member' }, accessToken: fakeAccessToken('u1', -5), refreshToken });
    const locks = new FakeLockManager();
    const five = Array.from({ length: 5 }, () => {
      const storage = laggyStorage();
      void storage.setItem(storageKey, planted);
      const client = createClient('http://api.test', 'anon', { fetch: server.fetch, storage, storageKey, locks, multiTab: true, autoRefresh: false });
      clients.push(client);
      return client;
    });
    await sleep(200); // the planted copies have settled
    await Promise.all(five.map((client) => client.from('todos').list()));
    expect(server.refreshCount).toBe(1);
    const sessions = await Promise.all(five.map((client) => client.auth.getSession()));
    expect(new Set(sessions.map((session) => session?.refreshToken)).size).toBe(1);
  });

  it('steals the lock from a frozen tab after the timeout instead of hanging', async () => {
    const server = new FakeServer();
    const setup = tabs(0, server, { lockTimeoutMs: 100 });
    plantExpired(setup.storage, setup.storageKey, server);
    const releaseFrozen = setup.locks.hold(`basalt.auth:${setup.storageKey}`);
    const tab = setup.open();
    const started = Date.now();
    await tab.client.from('todos').list();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(setup.locks.steals).toBe(1);
    expect(server.refreshCount).toBe(1);
    releaseFrozen();
  });

  it('without Web Locks, the tab that loses the refresh race adopts the winner’s tokens instead of signing out', async () => {
    const server = new FakeServer({ latencyMs: 10 });
    const setup = tabs(0, server, { locks: false });
    plantExpired(setup.storage, setup.storageKey, server);
    const [a, b] = [setup.open(), setup.open()];
    await Promise.all([a.client.from('todos').list(), b.client.from('todos').list()]);
    // Both sent the same refresh token; the server accepted one and refused the other.
    expect(server.refreshCount).toBe(2);
    const sessionA = await a.client.auth.getSession();
    const sessionB = await b.client.auth.getSession();
    expect(sessionA).not.toBeNull();
    expect(sessionA?.refreshToken).toBe(sessionB?.refreshToken);
    expect([...a.events, ...b.events]).not.toContain('signed_out');
  });

  it('a sign-in or sign-out in one tab reaches the others', async () => {
    const server = new FakeServer();
    const { tabs: [a, b] } = tabs(2, server);
    const session = await a!.client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await sleep(30);
    expect(b!.events).toEqual(['signed_in']);
    expect((await b!.client.auth.getSession())?.accessToken).toBe(session.accessToken);
    await b!.client.auth.signOut();
    await sleep(30);
    expect(a!.events).toEqual(['signed_in', 'signed_out']);
    expect(await a!.client.auth.getSession()).toBeNull();
  });

  it('with storage: false, tabs keep separate sessions, but a sign-out ends the same user’s session everywhere', async () => {
    const server = new FakeServer();
    const storageKey = `mem.${Date.now()}`;
    const open = () => {
      const client = createClient('http://api.test', 'anon', { fetch: server.fetch, storage: false, storageKey, multiTab: true });
      clients.push(client);
      return client;
    };
    const [a, b] = [open(), open()];
    await a.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await sleep(30);
    expect(await b.auth.getSession()).toBeNull();
    await b.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await a.auth.signOut();
    await sleep(30);
    expect(await b.auth.getSession()).toBeNull();
  });
});
