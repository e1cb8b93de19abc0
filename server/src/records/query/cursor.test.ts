import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import { cursorKeyFrom, decodeCursor, encodeCursor } from './cursor.js';

const key = cursorKeyFrom('secret-one');
const binding = JSON.stringify(['items', ['createdAt.desc', 'id.desc'], []]);

function status(run: () => unknown): number | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError && (error.details as { parameter?: string }).parameter === 'after') return error.status;
    throw error;
  }
}

describe('cursors', () => {
  const values = ['2026-11-22 00:32:27.123456+00', 'abc'];
  const cursor = encodeCursor(key, binding, values);

  it('round-trips the order keys of the row, nulls included', () => {
    expect(decodeCursor(key, binding, cursor, 2)).toEqual(values);
    expect(decodeCursor(key, binding, encodeCursor(key, binding, [null, 'x']), 2)).toEqual([null, 'x']);
  });

  it('is URL-safe', () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it.each([
    ['another query', () => decodeCursor(key, JSON.stringify(['items', ['id.asc'], []]), cursor, 2)],
    ['another secret', () => decodeCursor(cursorKeyFrom('secret-two'), binding, cursor, 2)],
    ['another length', () => decodeCursor(key, binding, cursor, 3)],
    ['a changed payload', () => decodeCursor(key, binding, `${Buffer.from(JSON.stringify({ b: 'x', v: ['1', '2'] })).toString('base64url')}.${cursor.split('.')[1]}`, 2)],
    ['a changed signature', () => decodeCursor(key, binding, `${cursor.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`, 2)],
    ['no signature', () => decodeCursor(key, binding, cursor.split('.')[0]!, 2)],
    ['garbage', () => decodeCursor(key, binding, "'; DROP TABLE items; --", 2)],
    ['an empty string', () => decodeCursor(key, binding, '', 2)],
    ['three parts', () => decodeCursor(key, binding, `${cursor}.x`, 2)],
    // Spellings a lenient base64 decoder reads as the same bytes (issue 22, item 6).
    ['a NUL appended', () => decodeCursor(key, binding, `${cursor}\u0000`, 2)],
    ['a newline appended', () => decodeCursor(key, binding, `${cursor}\n`, 2)],
    ['an overlong slash appended', () => decodeCursor(key, binding, `${cursor}\u00c0\u00af`, 2)],
    ['a character appended to the signature', () => decodeCursor(key, binding, `${cursor}A`, 2)],
    ['padding on the signature', () => decodeCursor(key, binding, `${cursor}==`, 2)],
    ['the standard base64 alphabet', () => decodeCursor(key, binding, standardAlphabet(), 2)],
    ['the last character of the signature with stray bits', () => decodeCursor(key, binding, strayBits(cursor), 2)],
    ['a space inside the payload', () => decodeCursor(key, binding, ` ${cursor}`, 2)],
  ])('refuses %s with 400 naming after', (_name, run) => {
    expect(status(run)).toBe(400);
  });
});

/** A cursor of this binding spelled in the standard alphabet (`+` and `/` for `-` and `_`): one that has either. */
function standardAlphabet(): string {
  for (let n = 0; ; n++) {
    const cursor = encodeCursor(key, binding, [String(n), 'x']);
    if (/[-_]/.test(cursor)) return cursor.replace(/-/g, '+').replace(/_/g, '/');
  }
}

/** The signature's last character changed in the two bits the decoder ignores (16 bytes: 22 characters, 4 bits spare). */
function strayBits(cursor: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(cursor.at(-1)!);
  return `${cursor.slice(0, -1)}${alphabet[last ^ 1]}`;
}
