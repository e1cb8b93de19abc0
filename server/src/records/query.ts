import { DEFAULT_LIMIT, ID_COLUMN, MAX_LIMIT } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../db/schema.js';
import { invalidParameter } from '../errors.js';
import { coerceFilterValue } from './values.js';

export interface OrderTerm {
  column: ColumnSchema;
  direction: 'asc' | 'desc';
}

export interface Filter {
  column: ColumnSchema;
  value: unknown;
}

export interface ListQuery {
  limit: number;
  offset: number;
  order: OrderTerm[];
  filters: Filter[];
}

export type QueryParams = Record<string, unknown>;

const WHOLE_NUMBER = /^[0-9]+$/;
const RESERVED_PARAMETERS = new Set(['limit', 'offset', 'order']);

function single(params: QueryParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} is given more than once`);
  return value;
}

function wholeNumber(params: QueryParams, name: string, fallback: number): number {
  const value = single(params, name);
  if (value === undefined) return fallback;
  if (!WHOLE_NUMBER.test(value)) throw invalidParameter(name, `${name} must be a whole number >= 0`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw invalidParameter(name, `${name} is too large`);
  return parsed;
}

function parseOrder(table: TableSchema, value: string | undefined): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (value !== undefined) {
    for (const part of value.split(',')) {
      const dot = part.lastIndexOf('.');
      const name = part.slice(0, dot);
      const direction = part.slice(dot + 1);
      const column = table.columns.get(name);
      if (dot <= 0 || (direction !== 'asc' && direction !== 'desc')) {
        throw invalidParameter('order', `order must be <column>.asc or <column>.desc, comma-separated; got "${part}"`);
      }
      if (!column) throw invalidParameter('order', `order names an unknown column "${name}"`);
      terms.push({ column, direction });
    }
  }
  // id is always the last tie-breaker, so pages are stable.
  const id = table.columns.get(ID_COLUMN)!;
  if (!terms.some((term) => term.column === id)) terms.push({ column: id, direction: 'asc' });
  return terms;
}

/** `limit` (default 20, clamped to 100) and `offset` of a listing: whole numbers, each given at most once. */
export function parsePaging(params: QueryParams): { limit: number; offset: number } {
  return { limit: Math.min(wholeNumber(params, 'limit', DEFAULT_LIMIT), MAX_LIMIT), offset: wholeNumber(params, 'offset', 0) };
}

/**
 * `GET /api/:table` query: limit (default 20, clamped to 100), offset, order and equality filters, each filter value
 * coerced to its column's type. Any parameter given twice is 400 naming it.
 */
export function parseListQuery(table: TableSchema, params: QueryParams): ListQuery {
  const { limit, offset } = parsePaging(params);
  const order = parseOrder(table, single(params, 'order'));
  const filters: Filter[] = [];
  for (const name of Object.keys(params)) {
    if (RESERVED_PARAMETERS.has(name)) continue;
    const column = table.columns.get(name);
    if (!column) throw invalidParameter(name, `${name} is not a column of ${table.name}`);
    const raw = single(params, name)!;
    const coerced = coerceFilterValue(column, raw);
    if (!coerced.ok) throw invalidParameter(name, `${name} ${coerced.problem}`);
    filters.push({ column, value: coerced.value });
  }
  return { limit, offset, order, filters };
}
