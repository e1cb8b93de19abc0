import { parseSession, serializeSession, type Session } from './session.js';

/**
 * Where the session is kept. The Web Storage shape, but each method may also return a promise, so React Native's
 * AsyncStorage, an IndexedDB wrapper or a server-side cookie jar fit without a shim.
 */
export interface StorageAdapter {
  getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** Tokens in this object only: they are gone when the page or process ends. */
export function memoryStorage(): StorageAdapter {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/**
 * The browser's localStorage when it exists and works. Merely touching `localStorage` throws in sandboxed iframes and
 * with storage blocked, and some private modes throw on the first write: those fall back to memory.
 */
export function browserLocalStorage(): Storage | undefined {
  try {
    const storage = (globalThis as { localStorage?: Storage }).localStorage;
    if (!storage) return undefined;
    const probe = '__basalt_probe__';
    storage.setItem(probe, probe);
    storage.removeItem(probe);
    return storage;
  } catch {
    return undefined;
  }
}

/** `undefined`: localStorage where usable, else memory. `false`: memory. An adapter: that adapter. */
export function resolveStorage(option: StorageAdapter | false | undefined, local = browserLocalStorage()): StorageAdapter {
  if (option === false) return memoryStorage();
  if (option) return option;
  return local ?? memoryStorage();
}

/**
 * The session under one key of an adapter: this client's copy of its session (the server's `SessionStore` is the
 * record of every session, hence another name). Writes are chained so an async adapter never applies a sign-out
 * before the refresh that preceded it; reads wait for pending writes, so a read never sees an older value than was
 * written.
 */
export class SessionStorage {
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    readonly adapter: StorageAdapter,
    readonly key: string,
  ) {}

  async load(): Promise<Session | null> {
    await this.pending;
    try {
      return parseSession(await this.adapter.getItem(this.key));
    } catch {
      // An adapter that cannot read (quota, permissions) must not take the whole client down with it.
      return null;
    }
  }

  /**
   * Writes the session, or removes it for `null`. Never rejects: a failing adapter (quota, a closed database) keeps
   * the session in memory for this page instead of failing the sign-in or refresh that produced it.
   */
  save(session: Session | null): Promise<void> {
    const write = this.pending
      .then(() => (session ? this.adapter.setItem(this.key, serializeSession(session)) : this.adapter.removeItem(this.key)))
      .then(
        () => undefined,
        () => undefined,
      );
    this.pending = write;
    return write;
  }
}
