import { INTEGER_RANGES, MAX_LIST_VALUES, MAX_TIMESTAMP_MILLIS, MIN_TIMESTAMP_MILLIS } from '@basalt/contract';
import { FINITE_REAL, integerText, listOf, TIMESTAMP_TEXT } from './patterns.js';

/**
 * Column values as bodies and filters carry them, as shared component schemas: every timestamp column's filters
 * refer to one `TimestampText`, so the long patterns are in the document once.
 */

type Schema = Record<string, unknown>;

export const NO_NUL = '^[^\\u0000]*$';

const TIMESTAMP_RULE = 'a real calendar day of the years 0000-9999 (with a time of day: hours, minutes, optional seconds with up to 9 decimals, an optional offset; none means UTC)';
const BOUNDARY_NOTE = 'A time on 0000-01-01 with an offset east of UTC, or on 9999-12-31 west of it, may leave that range: the pattern admits neither (the service takes those that stay inside).';

const epochMillis = (description: string): Schema => ({ type: 'integer', minimum: MIN_TIMESTAMP_MILLIS, maximum: MAX_TIMESTAMP_MILLIS, description });

/** The integer types' value and list schemas, by Postgres type (`IntegerText.int4`). */
function integerSchemas(): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const [pgType, [min, max]] of Object.entries(INTEGER_RANGES)) {
    const item = integerText(min, max);
    const range = `from ${min} to ${max}`;
    schemas[`IntegerText.${pgType}`] = { type: 'string', pattern: `^${item}$`, description: `A whole number ${range} (${pgType})` };
    schemas[`IntegerList.${pgType}`] = { type: 'string', pattern: listOf(item, MAX_LIST_VALUES), description: `1 to ${MAX_LIST_VALUES} whole numbers ${range}, comma-separated (each may be in double quotes)` };
  }
  return schemas;
}

export const VALUE_SCHEMAS: Record<string, Schema> = {
  /** A timestamp in a body: ISO 8601 or epoch milliseconds, as text or as a number. */
  Timestamp: {
    anyOf: [
      { type: 'string', pattern: `^${TIMESTAMP_TEXT}$`, description: `ISO 8601 (${TIMESTAMP_RULE}), or epoch milliseconds as text. ${BOUNDARY_NOTE}` },
      epochMillis('Epoch milliseconds within the years 0000-9999'),
    ],
  },
  TimestampText: { type: 'string', pattern: `^${TIMESTAMP_TEXT}$`, description: `ISO 8601 (${TIMESTAMP_RULE}), or epoch milliseconds. ${BOUNDARY_NOTE}` },
  TimestampList: { type: 'string', pattern: listOf(TIMESTAMP_TEXT, MAX_LIST_VALUES), description: `1 to ${MAX_LIST_VALUES} timestamps as \`TimestampText\`, comma-separated (each may be in double quotes)` },
  /** An API key's expiry: read as a body's timestamp is (contract's parseTimestamp), or null. */
  Expiry: {
    anyOf: [{ $ref: '#/components/schemas/Timestamp' }, { type: 'null' }],
    description: 'A time in the future (ISO 8601, or epoch milliseconds as a number or as text, as `Timestamp`); null or absent: never',
  },
  RealText: { type: 'string', pattern: `^${FINITE_REAL}$`, description: 'A finite decimal (`1.5`, `-2`, `1e3`); the pattern admits up to 308 digits before the point, or 8 with an exponent up to 299' },
  RealList: { type: 'string', pattern: listOf(FINITE_REAL, MAX_LIST_VALUES), description: `1 to ${MAX_LIST_VALUES} decimals as \`RealText\`, comma-separated (each may be in double quotes)` },
  ...integerSchemas(),
  /** A json column's value in a body (null is the column's business: see the body's schema). */
  Json: {
    anyOf: [
      { type: 'boolean' },
      { type: 'number' },
      { type: 'string', pattern: NO_NUL },
      { type: 'array', items: { $ref: '#/components/schemas/JsonValue' } },
      { type: 'object', propertyNames: { type: 'string', pattern: NO_NUL }, additionalProperties: { $ref: '#/components/schemas/JsonValue' } },
    ],
    description: 'Any JSON value without a NUL character in a string or a key (the whole body nests at most 64 levels)',
  },
  JsonValue: { anyOf: [{ $ref: '#/components/schemas/Json' }, { type: 'null' }] },
};
