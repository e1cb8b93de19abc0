import pg from 'pg';

/**
 * Type parsers of the record API's pool: timestamps go from Postgres's text straight to the ISO 8601 string the API
 * answers with, instead of through a `Date` that `JSON.stringify` turns back into that same string. Parsing every
 * timestamp of a page into a `Date` was 2-4% of a list request's CPU (docs/performance.md).
 *
 * Only the record pool uses these (`pg.Pool({ types })`); Knex's pool keeps the global parsers and its `Date`s.
 */

// `2026-11-22 00:32:27.123456+00`: a four-digit year, no BC, an offset of whole hours. The output of a session whose
// TimeZone is UTC, as on the embedded Postgres and the official images; anything else takes the general path.
const UTC_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
// A timestamp without time zone, read as UTC like the global parser in db/knex.ts does.
const PLAIN_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?$/;

/** `Date.prototype.toISOString` keeps milliseconds and drops the rest: so does this. */
function iso(date: string, time: string, fraction: string | undefined): string {
  const milliseconds = fraction === undefined ? '000' : fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0');
  return `${date}T${time}.${milliseconds}Z`;
}

/**
 * What `JSON.stringify` makes of the global parser's value: an ISO string, or null for `infinity`. The global parser
 * is looked up when needed: db/knex.ts replaces the one of timestamps without time zone when it is loaded.
 */
function generally(oid: number): (text: string) => unknown {
  return (text) => {
    const value = (pg.types.getTypeParser(oid, 'text') as (text: string) => unknown)(text);
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? text : value.toISOString();
    return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  };
}

const timestamptzGenerally = generally(pg.types.builtins.TIMESTAMPTZ);
const timestampGenerally = generally(pg.types.builtins.TIMESTAMP);

export function isoFromTimestamptz(text: string): unknown {
  const match = UTC_TIMESTAMPTZ.exec(text);
  return match ? iso(match[1]!, match[2]!, match[3]) : timestamptzGenerally(text);
}

export function isoFromTimestamp(text: string): unknown {
  const match = PLAIN_TIMESTAMP.exec(text);
  return match ? iso(match[1]!, match[2]!, match[3]) : timestampGenerally(text);
}

/** The `types` option of the record pool: these two overrides, the global parsers for every other type. */
export const recordTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (oid === pg.types.builtins.TIMESTAMPTZ) return isoFromTimestamptz;
      if (oid === pg.types.builtins.TIMESTAMP) return isoFromTimestamp;
    }
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
