import { describe, expect, it } from 'vitest';
import { MAX_YIELD_MS, Pace } from './pace.js';

describe('Pace', () => {
  it('never waits while the process is not busy', () => {
    const pace = new Pace(() => false, () => 0);
    expect(pace.wait()).toBe(0);
  });

  it('gives way for MAX_YIELD_MS while busy, then catches up until drained, then gives way again', () => {
    let now = 1_000;
    let busy = true;
    const pace = new Pace(() => busy, () => now);
    expect(pace.wait()).toBe(MAX_YIELD_MS);
    now += 4_000;
    expect(pace.wait()).toBe(MAX_YIELD_MS - 4_000);
    now += MAX_YIELD_MS - 4_000;
    expect(pace.wait()).toBe(0);
    now += 30_000;
    // Catching up lasts until the log is read to its end and then nothing is due, however long.
    expect(pace.wait()).toBe(0);
    pace.drained();
    expect(pace.wait()).toBe(0);
    pace.enqueued(5, false);
    pace.drained();
    expect(pace.wait()).toBe(0);
    pace.enqueued(0, true);
    pace.drained();
    expect(pace.wait()).toBe(0);
    pace.enqueued(0, false);
    pace.drained();
    expect(pace.wait()).toBe(MAX_YIELD_MS);
    // Not busy: at once, and a later busy spell starts its own yield.
    busy = false;
    now += 1;
    expect(pace.wait()).toBe(0);
    busy = true;
    now += 5;
    expect(pace.wait()).toBe(MAX_YIELD_MS);
  });

  it('ignores drained() outside a catch-up', () => {
    let now = 0;
    const pace = new Pace(() => true, () => now);
    pace.wait();
    now += 2_000;
    pace.drained();
    expect(pace.wait()).toBe(MAX_YIELD_MS - 2_000);
  });
});
