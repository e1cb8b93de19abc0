import { describe, expect, it } from 'vitest';
import { randomId } from './ids.js';

describe('randomId', () => {
  it('gives URL-safe ids of the asked size, never the same twice, across many refills of its pool', () => {
    const ids = Array.from({ length: 20_000 }, () => randomId());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{22}$/.test(id))).toBe(true);
    expect(randomId(8)).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(randomId(48)).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(randomId(5000)).toHaveLength(6667);
  });

  it('draws every byte value about equally often (the pool hands out random bytes, not zeros)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 4_000; i++) for (const byte of Buffer.from(randomId(), 'base64url')) counts[byte]!++;
    // 64,000 bytes: 250 per value expected; a stuck or zeroed pool would pile them on a few values.
    expect(Math.max(...counts)).toBeLessThan(400);
    expect(Math.min(...counts)).toBeGreaterThan(130);
  });
});
