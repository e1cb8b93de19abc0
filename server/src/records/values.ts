import { randomUUID } from 'node:crypto';
import type { ColumnSchema } from '../db/schema.js';

/** A value ready to bind, or why it cannot be coerced to the column's type. */
export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const INTEGER_TEXT = /^-?[0-9]+$/;
const REAL_TEXT = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const EPOCH_MILLIS_TEXT = /^-?[0-9]{1,16}$/;
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

const INTEGER_RANGES: Record<string, [bigint, bigint]> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-9223372036854775808n, 9223372036854775807n],
};

const ok = (value: unknown): Coerced => ({ ok: true, value });
const fail = (problem: string): Coerced => ({ ok: false, problem });

function coerceInteger(column: ColumnSchema, raw: unknown): Coerced {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw)) return fail('must be a whole number');
    text = String(raw);
  } else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) {
    text = raw;
  } else {
    return fail('must be a whole number');
  }
  // numeric columns report as integer only if someone maps them so; every integer type has a range here.
  const [min, max] = INTEGER_RANGES[column.pgType] ?? INTEGER_RANGES.int8!;
  const value = BigInt(text);
  if (value < min || value > max) return fail(`must be between ${min} and ${max}`);
  // int8 beyond 2^53 is bound as text so no digit is lost; everything else as a number.
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
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** ISO 8601 date or date-time (no offset means UTC), or epoch milliseconds; `infinity` and impossible dates fail. */
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
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, child]) => key.includes('\u0000') || containsNul(child));
}

function coerceText(column: ColumnSchema, raw: unknown): Coerced {
  if (typeof raw !== 'string') return fail('must be a string');
  if (raw.includes('\u0000')) return fail('must not contain a NUL character');
  if (column.maxLength !== null && [...raw].length > column.maxLength) return fail(`must be at most ${column.maxLength} characters`);
  return ok(raw);
}

/**
 * Coerces a value from a query string or a JSON body to the column's type. Nothing reaches the database uncoerced:
 * `0x10`, `Infinity`, `NaN`, `1e309`, the empty string for numbers, and `infinity` for timestamps all fail here.
 */
export function coerceValue(column: ColumnSchema, raw: unknown): Coerced {
  switch (column.type) {
    case 'integer':
      return coerceInteger(column, raw);
    case 'real':
      return coerceReal(raw);
    case 'boolean':
      return coerceBoolean(raw);
    case 'timestamp': {
      const date = parseTimestamp(raw);
      return date ? ok(date) : fail('must be an ISO 8601 date or date-time, or epoch milliseconds');
    }
    case 'json':
      if (containsNul(raw)) return fail('must not contain a NUL character');
      // Bound as JSON text: node-postgres would turn a top-level array into a Postgres array.
      return ok(JSON.stringify(raw));
    case 'text':
      return coerceText(column, raw);
  }
}

/** Coerces a filter value from the query string: json columns and other text-like ones compare as text. */
export function coerceFilterValue(column: ColumnSchema, raw: string): Coerced {
  if (column.type === 'json') return coerceText(column, raw);
  return coerceValue(column, raw);
}

/** A new record id when the body has none: a uuid for uuid columns, else a random URL-safe string. */
export function generateId(column: ColumnSchema, randomId: () => string): string {
  return column.pgType === 'uuid' ? randomUUID() : randomId();
}

/** Column types whose equality filter compares the column's text form (uuid, enums, json, ...). */
export function comparesAsText(column: ColumnSchema): boolean {
  return column.type === 'json' || (column.type === 'text' && column.pgType !== 'text' && column.pgType !== 'varchar' && column.pgType !== 'bpchar');
}
