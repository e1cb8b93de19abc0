import { describe, expect, it } from 'vitest';
import { sessionFromAuthResult } from './session.js';
import { SessionStorage, memoryStorage, resolveStorage, type StorageAdapter } from './storage.js';

const session = sessionFromAuthResult({ user: { id: 'u1', email: 'a@x.test', role: 'owner' }, accessToken: 'a', refreshToken: 'r' });

/** An adapter like React Native's AsyncStorage: every call is async, and slower writes may finish later. */
function asyncStorage(delays: number[] = []): StorageAdapter & { items: Map<string, string>; log: string[] } {
  const items = new Map<string, string>();
  const log: string[] = [];
  let call = 0;
  const later = <T>(fn: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(fn()), delays[call++] ?? 1));
  return {
    items,
    log,
    getItem: (key) => later(() => items.get(key) ?? null),
    setItem: (key, value) => later(() => void (items.set(key, value), log.push('set'))),
    removeItem: (key) => later(() => void (items.delete(key), log.push('remove'))),
  };
}

describe('storage', () => {
  it('resolves false to memory and an adapter to itself; without localStorage the default is memory', () => {
    const adapter = memoryStorage();
    expect(resolveStorage(adapter)).toBe(adapter);
    const memory = resolveStorage(false);
    memory.setItem('k', 'v');
    expect(memory.getItem('k')).toBe('v');
    expect(typeof (globalThis as { localStorage?: unknown }).localStorage).toBe('undefined');
    expect(resolveStorage(undefined).getItem('anything')).toBeNull();
  });

  it('stores a session under its key in a sync adapter', async () => {
    const adapter = memoryStorage();
    const store = new SessionStorage(adapter, 'project-a');
    await store.save(session);
    expect(await new SessionStorage(adapter, 'project-a').load()).toEqual(session);
    expect(await new SessionStorage(adapter, 'project-b').load()).toBeNull();
    await store.save(null);
    expect(adapter.getItem('project-a')).toBeNull();
  });

  it('applies writes to an async adapter in order, even when an earlier write is slower', async () => {
    const adapter = asyncStorage([30, 1]);
    const store = new SessionStorage(adapter, 'k');
    const first = store.save(session);
    const second = store.save(null);
    // A read issued now sees the state after both writes, not an older one.
    expect(await store.load()).toBeNull();
    await Promise.all([first, second]);
    expect(adapter.log).toEqual(['set', 'remove']);
  });

  it('survives an adapter that throws: reads give no session, writes do not reject', async () => {
    const broken: StorageAdapter = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => Promise.reject(new Error('quota')),
      removeItem: () => undefined,
    };
    const store = new SessionStorage(broken, 'k');
    await expect(store.save(session)).resolves.toBeUndefined();
    await expect(store.load()).resolves.toBeNull();
  });
});
