import type { LockManagerLike } from '../../src/session/refreshLock.js';

interface Entry {
  callback: (lock: unknown) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const abortError = (message: string) => new DOMException(message, 'AbortError');

/**
 * The Web Locks semantics the client relies on, for Node (which has no navigator.locks): one exclusive holder per
 * name, a FIFO queue, `signal` aborts a waiting request, `ifAvailable` calls back with null rather than wait, `steal`
 * takes the lock at once and rejects the previous holder's request with an AbortError while its callback keeps running.
 */
export class FakeLockManager implements LockManagerLike {
  private readonly held = new Map<string, { entry: Entry; token: object }>();
  private readonly queues = new Map<string, Entry[]>();
  grants = 0;
  steals = 0;

  /** Holds `name` until the returned function is called: a frozen tab. */
  hold(name: string): () => void {
    let release!: () => void;
    void this.request(name, {}, () => new Promise<void>((resolve) => (release = resolve))).catch(() => undefined);
    return () => release();
  }

  async query(): Promise<{ held: { name: string }[] }> {
    return { held: [...this.held.keys()].map((name) => ({ name })) };
  }

  isHeld(name: string): boolean {
    return this.held.has(name);
  }

  request(name: string, options: { signal?: AbortSignal; steal?: boolean; ifAvailable?: boolean }, callback: Entry['callback']): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const entry: Entry = { callback, resolve, reject };
      if (options.ifAvailable && (this.held.has(name) || (this.queues.get(name)?.length ?? 0) > 0)) {
        // Not available: the callback runs at once with null, as the Web Locks API does.
        Promise.resolve()
          .then(() => callback(null))
          .then(resolve, reject);
        return;
      }
      if (options.steal) {
        const holder = this.held.get(name);
        if (holder) {
          this.held.delete(name);
          this.steals++;
          holder.entry.reject(abortError('The lock was stolen'));
        }
        this.grant(name, entry);
        return;
      }
      if (options.signal?.aborted) return reject(abortError('aborted'));
      const queue = this.queues.get(name) ?? [];
      this.queues.set(name, queue);
      queue.push(entry);
      options.signal?.addEventListener(
        'abort',
        () => {
          const index = queue.indexOf(entry);
          if (index >= 0) {
            queue.splice(index, 1);
            reject(abortError('aborted'));
          }
        },
        { once: true },
      );
      this.pump(name);
    });
  }

  private pump(name: string): void {
    if (this.held.has(name)) return;
    const next = this.queues.get(name)?.shift();
    if (next) this.grant(name, next);
  }

  private grant(name: string, entry: Entry): void {
    const token = {};
    this.held.set(name, { entry, token });
    this.grants++;
    const finish = () => {
      if (this.held.get(name)?.token === token) {
        this.held.delete(name);
        this.pump(name);
      }
    };
    Promise.resolve()
      .then(() => entry.callback({ name }))
      .then(
        (value) => {
          finish();
          entry.resolve(value);
        },
        (error: unknown) => {
          finish();
          entry.reject(error);
        },
      );
  }
}
