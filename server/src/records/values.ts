import { randomUUID } from 'node:crypto';
import { coerceColumnValue, coerceText, type Coerced } from '@basalt/contract';
import type { ColumnSchema } from '../db/schema.js';

/** Coercion of record values: the rules are the contract's (shared with the console), applied to schema columns. */

export type { Coerced };
export { parseTimestamp } from '@basalt/contract';

/**
 * Coerces a value from a query string or a JSON body to the column's type. Nothing reaches the database uncoerced:
 * `0x10`, `Infinity`, `NaN`, `1e309`, the empty string for numbers, and `infinity` for timestamps all fail here.
 */
export function coerceValue(column: ColumnSchema, raw: unknown): Coerced {
  return coerceColumnValue(column, raw);
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
