import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoFromTimestamp, isoFromTimestamptz, pgTypes } from './pgTypes.js';

/** The parsers the service had before: the driver's for timestamptz, and a timestamp without time zone read as UTC. */
const formerParsers: Record<number, (text: string) => unknown> = {
  [pg.types.builtins.TIMESTAMPTZ]: pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (t: string) => unknown,
  [pg.types.builtins.TIMESTAMP]: (value) => {
    const date = new Date(`${value.replace(' ', 'T')}Z`);
    return Number.isNaN(date.getTime()) ? value : date;
  },
};

/** What the API answered before: the former parser's value through JSON.stringify. */
const throughDate = (oid: number, text: string) => JSON.parse(JSON.stringify({ v: formerParsers[oid]!(text) })).v as unknown;

describe('timestamps straight to ISO strings', () => {
  it('gives what a Date gave for every count of fraction digits', () => {
    for (let digits = 0; digits <= 6; digits++) {
      for (const fraction of ['', '0', '5', '09', '999', '1239', '99999', '999999', '000001', '290000', '293']) {
        const text = `2026-11-22 00:32:27${digits && fraction ? `.${fraction.slice(0, digits)}` : ''}`;
        expect(isoFromTimestamptz(`${text}+00`), text).toBe(throughDate(pg.types.builtins.TIMESTAMPTZ, `${text}+00`));
        expect(isoFromTimestamp(text), text).toBe(throughDate(pg.types.builtins.TIMESTAMP, text));
      }
    }
  });

  it.each([
    '2026-11-22 00:32:27.123+05:30',
    '2026-11-22 00:32:27-08',
    '0050-01-01 00:00:00+00',
    '2000-01-01 00:00:00+00 BC',
    '12345-01-01 00:00:00+00',
    'infinity',
    '-infinity',
  ])('takes the general path for %s and still answers like a Date did', (text) => {
    expect(isoFromTimestamptz(text)).toBe(throughDate(pg.types.builtins.TIMESTAMPTZ, text));
  });

  it('reads a timestamp without time zone as UTC', () => {
    expect(isoFromTimestamp('2026-11-22 00:32:27.5')).toBe('2026-11-22T00:32:27.500Z');
    expect(isoFromTimestamp('infinity')).toBe(throughDate(pg.types.builtins.TIMESTAMP, 'infinity'));
  });

  it('gives both pools numbers for int8 and numeric, ISO strings for timestamps, text for dates', () => {
    const parser = (oid: number, format?: 'text' | 'binary') => (pgTypes.getTypeParser as (oid: number, format?: string) => (text: string) => unknown)(oid, format);
    expect(parser(pg.types.builtins.TIMESTAMPTZ)).toBe(isoFromTimestamptz);
    expect(parser(pg.types.builtins.TIMESTAMP, 'text')).toBe(isoFromTimestamp);
    expect(parser(pg.types.builtins.INT8)('9007199254740991')).toBe(9007199254740991);
    expect(parser(pg.types.builtins.NUMERIC)('1.5')).toBe(1.5);
    expect(parser(pg.types.builtins.DATE)('2026-11-22')).toBe('2026-11-22');
    expect(parser(pg.types.builtins.INT4)).toBe(pg.types.getTypeParser(pg.types.builtins.INT4, 'text'));
    expect(parser(pg.types.builtins.TIMESTAMPTZ, 'binary')).toBe(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'binary'));
  });

  it('changes nothing globally: the driver keeps its own parsers for everyone else', async () => {
    await import('./knex.js');
    expect(pg.types.getTypeParser(pg.types.builtins.INT8, 'text')('12')).toBe('12');
    expect(pg.types.getTypeParser(pg.types.builtins.DATE, 'text')('2026-11-22')).toBeInstanceOf(Date);
  });
});
