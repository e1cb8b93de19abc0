import { describe, expect, it } from 'vitest';
import { FakeLockManager } from '../../test/support/fakeLocks.js';
import { withLock, type LockContext } from './refreshLock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withLock', () => {
  it('serialises work on one name: the second starts only after the first ends', async () => {
    const locks = new FakeLockManager();
    const events: string[] = [];
    const work = (label: string) => async () => {
      events.push(`${label} start`);
      await sleep(20);
      events.push(`${label} end`);
      return label;
    };
    const results = await Promise.all([withLock(locks, 'x', 1000, work('a')), withLock(locks, 'x', 1000, work('b'))]);
    expect(results).toEqual(['a', 'b']);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('passes the work’s own error through and releases the lock', async () => {
    const locks = new FakeLockManager();
    await expect(withLock(locks, 'x', 1000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(locks.isHeld('x')).toBe(false);
    await expect(withLock(locks, 'x', 1000, async () => 'next')).resolves.toBe('next');
  });

  it('reports exclusive() while the lock is held normally', async () => {
    const locks = new FakeLockManager();
    let exclusive: boolean | undefined;
    await withLock(locks, 'x', 1000, async (context) => {
      exclusive = context.exclusive();
    });
    expect(exclusive).toBe(true);
  });

  it('steals the lock from a holder that never lets go, after the timeout, and runs the work', async () => {
    const locks = new FakeLockManager();
    const release = locks.hold('x');
    const started = Date.now();
    let context: LockContext | undefined;
    const result = await withLock(locks, 'x', 50, async (ctx) => {
      context = ctx;
      return 'ran';
    });
    expect(result).toBe('ran');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(locks.steals).toBe(1);
    // A stolen lock gives no exclusivity: the frozen holder may wake and race us.
    expect(context?.exclusive()).toBe(false);
    release();
  });

  it('lets only one of many waiters steal from a frozen holder; the others wait for it', async () => {
    const locks = new FakeLockManager();
    locks.hold('x');
    const exclusive: boolean[] = [];
    const work = async (context: LockContext) => {
      await sleep(20);
      exclusive.push(context.exclusive());
    };
    await Promise.all([withLock(locks, 'x', 50, work), withLock(locks, 'x', 50, work), withLock(locks, 'x', 50, work)]);
    expect(locks.steals).toBe(1);
    // The thief ran first and knows it stole; the others got the lock from it, in turn, alone.
    expect(exclusive).toEqual([false, true, true]);
  });

  it('lets work whose lock was stolen finish, with its result, knowing it lost exclusivity', async () => {
    const locks = new FakeLockManager();
    let firstContext: LockContext | undefined;
    const slow = withLock(locks, 'x', 1000, async (ctx) => {
      firstContext = ctx;
      await sleep(120);
      return 'slow result';
    });
    await sleep(10);
    const thief = await withLock(locks, 'x', 30, async () => 'thief');
    expect(thief).toBe('thief');
    await expect(slow).resolves.toBe('slow result');
    expect(firstContext?.exclusive()).toBe(false);
  });

  it('runs the work unlocked without a lock manager, or when the manager refuses', async () => {
    await expect(withLock(undefined, 'x', 10, async (ctx) => ctx.exclusive())).resolves.toBe(false);
    const refusing = { request: () => Promise.reject(new DOMException('insecure', 'SecurityError')) };
    await expect(withLock(refusing, 'x', 10, async () => 'ran anyway')).resolves.toBe('ran anyway');
  });
});
