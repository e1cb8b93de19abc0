import { describe, expect, it } from 'vitest';
import { eventIdOf, isAfter, placeOf } from './log.js';

describe('places', () => {
  it('order by transaction, then statement, then row', () => {
    expect(isAfter({ xid: 2n, id: 1, n: 0 }, { xid: 1n, id: 9, n: 9 })).toBe(true);
    expect(isAfter({ xid: 1n, id: 2, n: 0 }, { xid: 1n, id: 1, n: 9 })).toBe(true);
    expect(isAfter({ xid: 1n, id: 1, n: 1 }, { xid: 1n, id: 1, n: 0 })).toBe(true);
    expect(isAfter({ xid: 1n, id: 1, n: 0 }, { xid: 1n, id: 1, n: 0 })).toBe(false);
  });
});

describe('event ids', () => {
  it('round-trip a place, large transaction ids included', () => {
    for (const place of [{ xid: 1n, id: 1, n: 0 }, { xid: 742n, id: 99_000, n: 999 }, { xid: 2n ** 40n + 7n, id: 2 ** 40, n: 3 }]) expect(placeOf(eventIdOf(place))).toEqual(place);
  });

  it('refuse anything that is not one of ours', () => {
    for (const text of ['', '1', '1.1', 'a.b.c.d', '../x', 'ZZ.1.1', '1..1', '.1.1', `${'z'.repeat(14)}.1.1`, '1.zzzzzzzzzzzz.1', '1.1.zzzzz']) expect(placeOf(text), text).toBeNull();
  });
});
