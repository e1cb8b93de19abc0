import type { ColumnType } from './schema.js';

/**
 * Value-text rules shared by the server (filters, bodies, defaults, path ids) and the console (its forms): one
 * function decides whether a value fits a column, so the two can never disagree.
 */

export const INTEGER_TEXT = /^-?[0-9]+$/;
export const REAL_TEXT = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
export const EPOCH_MILLIS_TEXT = /^-?[0-9]{1,16}$/;
// No flags (T and Z spelled in both cases): the OpenAPI document uses its source as a JSON Schema pattern.
export const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The range of each Postgres integer type; other integer-like types are held to int8's. */
export const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-9223372036854775808n, 9223372036854775807n],
};

/** Years a timestamp may have: what Postgres stores and strict RFC 3339 readers accept back (no `+275760-...`). */
export const MIN_YEAR = 0;
export const MAX_YEAR = 9999;
/** The same range in epoch milliseconds: 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z. */
export const MIN_TIMESTAMP_MILLIS = new Date(0).setUTCFullYear(MIN_YEAR, 0, 1);
export const MAX_TIMESTAMP_MILLIS = new Date(0).setUTCFullYear(MAX_YEAR + 1, 0, 1) - 1;

/** A value ready to store, or why it does not fit the column. */
export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

/** What coercion needs to know of a column. */
export interface ValueColumn {
  type: ColumnType;
  /** The Postgres type (`int2`, `int8`, `varchar`...): integer ranges; unset means the type's usual one. */
  pgType?: string;
  /** varchar(n) / char(n) length. */
  maxLength?: number | null;
}

const ok = (value: unknown): Coerced => ({ ok: true, value });
const fail = (problem: string): Coerced => ({ ok: false, problem });

function coerceInteger(column: ValueColumn, raw: unknown): Coerced {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw)) return fail('must be a whole number');
    text = String(raw);
  } else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) {
    text = raw;
  } else {
    return fail('must be a whole number');
  }
  const [min, max] = INTEGER_RANGES[column.pgType ?? 'int4'] ?? INTEGER_RANGES.int8!;
  const value = BigInt(text);
  if (value < min || value > max) return fail(`must be between ${min} and ${max}`);
  // int8 beyond 2^53 stays text so no digit is lost; everything else is a number.
  return ok(Number.isSafeInteger(Number(text)) ? Number(text) : text);
}

function coerceReal(raw: unknown): Coerced {
  if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : fail('must be a finite number');
  if (typeof raw === 'string' && REAL_TEXT.test(raw)) {
    const value = Number(raw);
    if (Number.isFinite(value)) return ok(value);
  }
  return fail('must be a finite number');
}

function coerceBoolean(raw: unknown): Coerced {
  if (raw === true || raw === 'true') return ok(true);
  if (raw === false || raw === 'false') return ok(false);
  return fail('must be true or false');
}

function daysInMonth(year: number, month: number): number {
  // Not Date.UTC(year, ...): it reads the years 0-99 as 1900-1999, and 1900 has no February 29 where the year 0000 has.
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/**
 * ISO 8601 date or date-time (no offset means UTC), or epoch milliseconds, in the years 0000-9999; `infinity`,
 * impossible dates and years outside that range are undefined.
 */
export function parseTimestamp(raw: unknown): Date | undefined {
  let date: Date;
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw)) return undefined;
    date = new Date(raw);
  } else if (typeof raw === 'string' && EPOCH_MILLIS_TEXT.test(raw)) {
    date = new Date(Number(raw));
  } else if (typeof raw === 'string') {
    const match = ISO_8601.exec(raw);
    if (!match) return undefined;
    const [, year, month, day, hour, minute, second, offset] = match;
    if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth(Number(year), Number(month))) {
      return undefined;
    }
    if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return undefined;
    const normalized = raw.replace(' ', 'T');
    date = new Date(hour !== undefined && offset === undefined ? `${normalized}Z` : normalized);
  } else {
    return undefined;
  }
  if (Number.isNaN(date.getTime())) return undefined;
  const year = date.getUTCFullYear();
  return year < MIN_YEAR || year > MAX_YEAR ? undefined : date;
}

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, child]) => key.includes('\u0000') || containsNul(child));
}

/** Text: a string, no NUL character, at most n characters for varchar(n). */
export function coerceText(column: ValueColumn, raw: unknown): Coerced {
  if (typeof raw !== 'string') return fail('must be a string');
  if (raw.includes('\u0000')) return fail('must not contain a NUL character');
  const max = column.maxLength ?? null;
  if (max !== null && [...raw].length > max) return fail(`must be at most ${max} characters`);
  return ok(raw);
}

/**
 * Coerces a value from a query string, a JSON body or a form to the column's type. `0x10`, `Infinity`, `NaN`, `1e309`,
 * the empty string for numbers, `infinity` and years outside 0000-9999 for timestamps all fail. Timestamps become
 * Dates; json becomes its JSON text (node-postgres would turn a top-level array into a Postgres array).
 */
export function coerceColumnValue(column: ValueColumn, raw: unknown): Coerced {
  switch (column.type) {
    case 'integer':
      return coerceInteger(column, raw);
    case 'real':
      return coerceReal(raw);
    case 'boolean':
      return coerceBoolean(raw);
    case 'timestamp': {
      const date = parseTimestamp(raw);
      return date ? ok(date) : fail(`must be an ISO 8601 date or date-time in the years 0000-9999, or epoch milliseconds`);
    }
    case 'json':
      if (containsNul(raw)) return fail('must not contain a NUL character');
      return ok(JSON.stringify(raw));
    case 'text':
      return coerceText(column, raw);
  }
}
