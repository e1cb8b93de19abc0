/** The part of the Web Locks API (`navigator.locks`) this library uses; tests pass their own. */
export interface LockManagerLike {
  request(
    name: string,
    options: { signal?: AbortSignal; steal?: boolean },
    callback: (lock: unknown) => Promise<unknown>,
  ): Promise<unknown>;
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
 * every tab behind such a lock), so after the timeout the lock is stolen and the work runs anyway. Work whose lock was
 * stolen from it keeps running to the end: its result is still the caller's result, and `exclusive()` tells it that
 * another refresh may have raced it. Without a lock manager, or if it refuses the request, the work runs unlocked.
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

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await locks.request(name, { signal: controller.signal }, () => {
      clearTimeout(timer);
      return run('held');
    });
  } catch {
    clearTimeout(timer);
    if (result) {
      // Granted, then stolen by another tab: our work goes on, but no longer alone.
      state = 'lost';
    } else if (controller.signal.aborted) {
      try {
        await locks.request(name, { steal: true }, () => run('stolen'));
      } catch {
        if (!result) return work(context);
        state = 'lost';
      }
    } else {
      return work(context);
    }
  }
  // `result` is set whenever a callback ran; the fallback covers a lock manager that resolved without calling it.
  return result ?? work(context);
}
