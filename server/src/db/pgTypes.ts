import pg from 'pg';

/**
 * The type parsers of both pools (Knex's and the record API's), passed to each connection as its `types`: nothing is
 * changed globally, so importing this module has no side effect and both pools return the same shapes.
 *
 * - int8 (`count(*)`) and numeric: JSON numbers, as the API promises, not the driver's strings.
 * - timestamptz and timestamp: the ISO 8601 string the API answers with, straight from Postgres's text instead of
 *   through a `Date` that `JSON.stringify` turns back into that same string (parsing every timestamp of a page into
 *   a `Date` was 2-4% of a list request's CPU: docs/performance.md). A timestamp without time zone reads as UTC.
 * - date: the ISO date string as Postgres prints it.
 */

// `2026-11-22 00:32:27.123456+00`: a four-digit year, no BC, an offset of whole hours. The output of a session whose
// TimeZone is UTC, as on the embedded Postgres and the official images; anything else takes the general path.
const UTC_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
const PLAIN_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?$/;

/** `Date.prototype.toISOString` keeps milliseconds and drops the rest: so does this. */
function iso(date: string, time: string, fraction: string | undefined): string {
  const milliseconds = fraction === undefined ? '000' : fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0');
  return `${date}T${time}.${milliseconds}Z`;
}

/** What `JSON.stringify` made of a `Date` (or of the driver's `Infinity` for `infinity`): an ISO string, or null. */
function throughDate(value: unknown, text: string): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? text : value.toISOString();
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

const defaultTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => unknown;

export function isoFromTimestamptz(text: string): unknown {
  const match = UTC_TIMESTAMPTZ.exec(text);
  return match ? iso(match[1]!, match[2]!, match[3]) : throughDate(defaultTimestamptz(text), text);
}

export function isoFromTimestamp(text: string): unknown {
  const match = PLAIN_TIMESTAMP.exec(text);
  if (match) return iso(match[1]!, match[2]!, match[3]);
  return throughDate(new Date(`${text.replace(' ', 'T')}Z`), text);
}

const asNumber = (text: string) => Number(text);
const asText = (text: string) => text;

const TEXT_PARSERS = new Map<number, (text: string) => unknown>([
  [pg.types.builtins.INT8, asNumber],
  [pg.types.builtins.NUMERIC, asNumber],
  [pg.types.builtins.TIMESTAMPTZ, isoFromTimestamptz],
  [pg.types.builtins.TIMESTAMP, isoFromTimestamp],
  [pg.types.builtins.DATE, asText],
]);

/** The `types` option of every connection the service opens: these overrides, the driver's defaults otherwise. */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      const parser = TEXT_PARSERS.get(oid);
      if (parser) return parser;
    }
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
