/** The part of the Web Locks API (`navigator.locks`) this library uses; tests pass their own. */
export interface LockManagerLike {
  request(
    name: string,
    options: { signal?: AbortSignal; steal?: boolean; ifAvailable?: boolean },
    callback: (lock: unknown) => Promise<unknown>,
  ): Promise<unknown>;
  /** Which locks are held; used to find the mark a tab leaves on a refresh token it has spent. */
  query?(): Promise<{ held?: { name?: string }[] }>;
}

export interface LockContext {
  /**
   * True while this work holds the lock alone. False when there is no lock manager, when we took the lock by
   * stealing it, or when another tab stole it from us: then a second refresh may be racing this one.
   */
  exclusive(): boolean;
}

/** `navigator.locks` where it exists: browsers in secure contexts (https, localhost). */
export function webLocks(): LockManagerLike | undefined {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks && typeof nav.locks.request === 'function' ? nav.locks : undefined;
}

const settle = (promise: Promise<unknown>): Promise<void> =>
  promise.then(
    () => undefined,
    () => undefined,
  );

/**
 * Runs `work` while holding the lock `name`, shared by every tab of the origin.
 *
 * Waiting is bounded: a tab that holds the lock for longer than `timeoutMs` is frozen or hung (supabase-js#2013 hung
 * every tab behind such a lock), so after the timeout the lock is stolen and the work runs anyway. Only one waiting
 * tab steals (the one that gets the `:steal` lock); the others wait one more period for it, so a frozen tab costs
 * one extra refresh at most, not one per tab. Work whose lock was stolen keeps running to the end: its result is
 * still the caller's, and `exclusive()` tells it another refresh may have raced it. Without a lock manager, or if it
 * refuses the request, the work runs unlocked.
 */
export async function withLock<T>(
  locks: LockManagerLike | undefined,
  name: string,
  timeoutMs: number,
  work: (context: LockContext) => Promise<T>,
): Promise<T> {
  if (!locks) return work({ exclusive: () => false });
  let state: 'waiting' | 'held' | 'stolen' | 'lost' = 'waiting';
  const context: LockContext = { exclusive: () => state === 'held' };
  let result: Promise<T> | undefined;
  const run = (next: 'held' | 'stolen'): Promise<void> => {
    state = next;
    result = work(context);
    // The lock is held until the work settles, but the work's own outcome travels through `result`, not the lock.
    return settle(result);
  };

  /** Waits up to `timeoutMs` for the lock; false when the wait timed out. */
  const wait = async (): Promise<boolean> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await locks.request(name, { signal: controller.signal }, () => {
        clearTimeout(timer);
        return run('held');
      });
    } catch (error) {
      clearTimeout(timer);
      if (result) state = 'lost'; // granted, then stolen by another tab: our work goes on, no longer alone
      else if (!controller.signal.aborted) throw error;
      else return false;
    }
    return true;
  };

  const steal = async (): Promise<void> => {
    try {
      await locks.request(name, { steal: true }, () => run('stolen'));
    } catch (error) {
      if (!result) throw error;
      state = 'lost';
    }
  };

  try {
    if (!(await wait())) {
      const stole = await locks.request(`${name}:steal`, { ifAvailable: true }, async (lock) => {
        if (!lock) return false;
        await steal();
        return true;
      });
      // Another tab is stealing right now: it will release the lock when done. If it freezes too, steal anyway.
      if (!stole && !(await wait())) await steal();
    }
  } catch {
    if (!result) return work(context);
  }
  // `result` is set whenever a callback ran; the fallback covers a lock manager that resolved without calling it.
  return result ?? work(context);
}

/** A short, stable fingerprint of a token, so lock names never carry the token itself. */
function fingerprint(token: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(36) + (h1 >>> 0).toString(36);
}

const spentLockName = (name: string, token: string) => `${name}:spent:${fingerprint(token)}`;

/**
 * Leaves a mark, for `ms`, that `token` has just been spent by this tab. Needed because localStorage is not
 * consistent across tabs: Chrome gives each renderer process its own copy and syncs it asynchronously, so the next
 * tab granted the refresh lock can still read the old token from storage. The lock manager, though, is one shared
 * state: a tab that finds this mark knows to wait for the new tokens to arrive rather than spend the token again.
 * Resolves once the mark is held, so it is visible before the refresh lock is released.
 */
export function markSpent(locks: LockManagerLike | undefined, name: string, token: string, ms: number): Promise<void> {
  if (!locks?.query) return Promise.resolve();
  return new Promise<void>((resolve) => {
    locks
      .request(spentLockName(name, token), {}, () => {
        resolve();
        return new Promise<void>((release) => {
          const timer = setTimeout(release, ms);
          (timer as { unref?: () => void }).unref?.();
        });
      })
      .catch(() => resolve());
  });
}

/** Whether another tab has marked `token` as spent (see `markSpent`). */
export async function isMarkedSpent(locks: LockManagerLike | undefined, name: string, token: string): Promise<boolean> {
  if (!locks?.query) return false;
  try {
    const wanted = spentLockName(name, token);
    return ((await locks.query()).held ?? []).some((lock) => lock.name === wanted);
  } catch {
    return false;
  }
}
