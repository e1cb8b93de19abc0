import { describe, expect, it } from 'vitest';
import { coerceColumnValue, MAX_TIMESTAMP_MILLIS, MIN_TIMESTAMP_MILLIS, parseTimestamp } from './values.js';
import { columnNameProblem, columnTypeProblem, defaultPolicyFor, effectivePolicyOf, isReservedTable, ownerColumnOf, tableNameProblem } from './names.js';

/** The rules server and console share: each decided here once. */

describe('timestamps', () => {
  it('cover the years 0000-9999 in epoch milliseconds too', () => {
    expect(new Date(MIN_TIMESTAMP_MILLIS).toISOString()).toBe('0000-01-01T00:00:00.000Z');
    expect(new Date(MAX_TIMESTAMP_MILLIS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseTimestamp(MIN_TIMESTAMP_MILLIS - 1)).toBeUndefined();
    expect(parseTimestamp(MAX_TIMESTAMP_MILLIS + 1)).toBeUndefined();
  });

  it.each(['2030-01-02', '2030-01-02T03:04:05Z', '2030-01-02 03:04:05.123456+02:00', '0000-01-01', '9999-12-31T23:59:59.999Z', 0, '1700000000000', '0000-02-29', '0004-02-29', '0400-02-29'])('accepts %j', (raw) => {
    expect(parseTimestamp(raw)).toBeInstanceOf(Date);
  });

  it.each(['infinity', '2023-02-29', '0001-02-29', '0100-02-29', '2030-13-01', '10000-01-01', '-8639999999999999', -8639999999999999, 8639999999999999, '+275760-09-12T23:59:59.999Z', '1e3', 1.5, ''])(
    'refuses %j (impossible, or outside the years 0000-9999 that Postgres and RFC 3339 readers share)',
    (raw) => {
      expect(parseTimestamp(raw)).toBeUndefined();
      expect(coerceColumnValue({ type: 'timestamp' }, raw)).toMatchObject({ ok: false });
    },
  );
});

describe('coerceColumnValue', () => {
  it.each([
    [{ type: 'integer' }, '2147483647', 2147483647],
    [{ type: 'integer', pgType: 'int8' }, '9223372036854775807', '9223372036854775807'],
    [{ type: 'real' }, '-.5', -0.5],
    [{ type: 'boolean' }, 'false', false],
    [{ type: 'json' }, [1, { a: 'b' }], '[1,{"a":"b"}]'],
    [{ type: 'text', maxLength: 3 }, 'abc', 'abc'],
  ] as const)('%o takes %j as %j', (column, raw, value) => {
    expect(coerceColumnValue(column, raw)).toEqual({ ok: true, value });
  });

  it.each([
    [{ type: 'integer' }, '2147483648'],
    [{ type: 'integer', pgType: 'int2' }, 40000],
    [{ type: 'integer' }, '0x10'],
    [{ type: 'real' }, 'Infinity'],
    [{ type: 'real' }, ''],
    [{ type: 'boolean' }, 'yes'],
    [{ type: 'text', maxLength: 3 }, 'abcd'],
    [{ type: 'text' }, 'nul\u0000'],
    [{ type: 'text' }, 5],
    [{ type: 'json' }, { k: 'nul\u0000' }],
  ] as const)('%o refuses %j', (column, raw) => {
    expect(coerceColumnValue(column, raw)).toMatchObject({ ok: false, problem: expect.any(String) });
  });
});

describe('names and policies', () => {
  it.each([
    ['notes', false],
    ['x'.repeat(63), false],
    ['x'.repeat(64), true],
    ['Notes', true],
    ['_notes', true],
    ['users', true],
    ['sessions', true],
    ['pg_notes', true],
    ['', true],
  ])('table name %j refused: %s', (name, refused) => {
    expect(tableNameProblem(name) !== undefined).toBe(refused);
  });

  it.each([
    ['title', false],
    ['Title', false],
    ['x'.repeat(63), false],
    ['x'.repeat(64), true],
    ['9lives', true],
    ['pg_title', true],
    ['id', true],
    ['createdAt', true],
    ['updatedAt', true],
  ])('column name %j refused: %s', (name, refused) => {
    expect(columnNameProblem(name) !== undefined).toBe(refused);
  });

  it('keeps owner columns text, finds them, and picks policies from them', () => {
    expect(columnTypeProblem('user_id', 'integer')).toBeDefined();
    expect(columnTypeProblem('user_id', 'text')).toBeUndefined();
    expect(ownerColumnOf(['title', 'userId', 'user_id'])).toBe('user_id');
    expect(defaultPolicyFor(ownerColumnOf(['title']))).toBe('private');
    expect(defaultPolicyFor('userId')).toBe('owner-scoped');
    expect(effectivePolicyOf('owner-scoped', null)).toBe('private');
    expect(effectivePolicyOf('public-read', null)).toBe('public-read');
    expect([isReservedTable('_policies'), isReservedTable('users'), isReservedTable('notes')]).toEqual([true, true, false]);
  });
});
