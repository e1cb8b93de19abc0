import { describe, expect, it } from 'vitest';
import { formatLsn, laterLsn, parseLsn } from './lsn.js';

describe('log positions', () => {
  it('reads and prints pg_lsn text, comparing numerically', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')).toBe(1n << 32n);
    expect(formatLsn(parseLsn('A/FF00')!)).toBe('A/FF00');
    expect(parseLsn('0/9')! < parseLsn('0/10')!).toBe(true);
    expect(laterLsn('0/9', '0/10')).toBe('0/10');
    expect(laterLsn('1/0', '0/FFFFFFFF')).toBe('1/0');
    expect(laterLsn(null, '0/1')).toBe('0/1');
    expect(laterLsn('0/1', 'junk')).toBe('0/1');
  });

  it('refuses anything else', () => {
    for (const text of ['', '0', '/0', '0/', '123456789/0', '0/123456789', '0/1 ', ' 0/1', "0/1'; select 1", 'g/0', '0x1/0', '-1/0', '0/1/2']) {
      expect(parseLsn(text), text).toBeNull();
    }
  });
});
