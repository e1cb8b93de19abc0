import { describe, expect, it } from 'vitest';
import type { ColumnSchema } from '../db/schema.js';
import { coerceFilterValue, coerceValue, parseTimestamp } from './values.js';

function column(type: ColumnSchema['type'], pgType: string, extra: Partial<ColumnSchema> = {}): ColumnSchema {
  return { name: 'c', type, pgType, nullable: true, defaultExpression: null, hasDefault: false, generated: false, unique: false, primaryKey: false, maxLength: null, sqlType: pgType, orderable: true, readOnly: false, ...extra };
}

describe('coerceValue', () => {
  it.each([
    ['int4', 42, 42],
    ['int4', '42', 42],
    ['int4', '-7', -7],
    ['int4', 1e3, 1000],
    ['int2', '32767', 32767],
    ['int8', '9223372036854775807', '9223372036854775807'],
  ])('accepts %s %j as %j', (pgType, raw, expected) => {
    expect(coerceValue(column('integer', pgType), raw)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['int4', 1.5],
    ['int4', '1.5'],
    ['int4', '0x10'],
    ['int4', ''],
    ['int4', ' 1'],
    ['int4', '2147483648'],
    ['int2', 32768],
    ['int8', '9223372036854775808'],
    ['int4', Number.MAX_SAFE_INTEGER + 2],
    ['int4', null],
    ['int4', true],
  ])('refuses %s %j', (pgType, raw) => {
    expect(coerceValue(column('integer', pgType), raw).ok).toBe(false);
  });

  it('accepts finite reals only', () => {
    const real = column('real', 'float8');
    for (const [raw, value] of [[1.5, 1.5], ['-2', -2], ['1e3', 1000], ['.5', 0.5], ['2.', 2]] as const) {
      expect(coerceValue(real, raw)).toEqual({ ok: true, value });
    }
    for (const raw of ['Infinity', '-Infinity', 'NaN', '1e309', '', '0x10', '1,5', Infinity, NaN, '+1']) {
      expect(coerceValue(real, raw).ok, String(raw)).toBe(false);
    }
  });

  it('accepts only true and false for booleans', () => {
    const bool = column('boolean', 'bool');
    expect(coerceValue(bool, 'true')).toEqual({ ok: true, value: true });
    expect(coerceValue(bool, false)).toEqual({ ok: true, value: false });
    for (const raw of ['TRUE', '1', 1, 'yes', 't', '']) expect(coerceValue(bool, raw).ok).toBe(false);
  });

  it('checks text: strings only, no NUL, varchar length', () => {
    expect(coerceValue(column('text', 'text'), 'ok')).toEqual({ ok: true, value: 'ok' });
    expect(coerceValue(column('text', 'text'), '').ok).toBe(true);
    expect(coerceValue(column('text', 'text'), 'a\u0000b').ok).toBe(false);
    expect(coerceValue(column('text', 'text'), 5).ok).toBe(false);
    expect(coerceValue(column('text', 'varchar', { maxLength: 3 }), 'abcd').ok).toBe(false);
    expect(coerceValue(column('text', 'varchar', { maxLength: 3 }), 'abc').ok).toBe(true);
  });

  it('binds json as JSON text and refuses NUL anywhere in it', () => {
    expect(coerceValue(column('json', 'jsonb'), [1, 2])).toEqual({ ok: true, value: '[1,2]' });
    expect(coerceValue(column('json', 'jsonb'), { a: 'x\u0000' }).ok).toBe(false);
    expect(coerceValue(column('json', 'jsonb'), { 'k\u0000': 1 }).ok).toBe(false);
  });

  it('compares json filters as text', () => {
    expect(coerceFilterValue(column('json', 'jsonb'), '{"a":1}')).toEqual({ ok: true, value: '{"a":1}' });
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2024-01-02', '2024-01-02T00:00:00.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05.123456+02:00', '2024-01-02T01:04:05.123Z'],
    ['2024-01-02T03:04', '2024-01-02T03:04:00.000Z'],
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0', '1970-01-01T00:00:00.000Z'],
    [86_400_000, '1970-01-02T00:00:00.000Z'],
  ])('reads %j as %s', (raw, iso) => {
    expect(parseTimestamp(raw)?.toISOString()).toBe(iso);
  });

  it.each(['infinity', '-infinity', 'now', '2023-02-29', '2024-13-01', '2024-01-32', '2024-01-01T24:00:00Z', '1.5', 1.5, '', 'tomorrow', '99999999999999999'])(
    'refuses %j',
    (raw) => {
      expect(parseTimestamp(raw)).toBeUndefined();
    },
  );
});
