import { OPERATORS_BY_TYPE, type ColumnType, type Comparison, type CountMode, type IsValue } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../../db/schema.js';
import { invalidParameter } from '../../errors.js';
import { coerceFilterValue } from '../values.js';
import { planSelection, type RelationContext, type Selection } from '../embed/plan.js';
import { decodeCursor, type CursorKey } from './cursor.js';
import type { FilterParam, ListParams } from './parse.js';
import { planOrder, type OrderTerm } from './order.js';
import { FILTER, planFilter, type ExpressionFilter } from './filter.js';

/**
 * The query language's planner: parsed names bound to the table's columns, each operator checked against its column's
 * type, each value coerced. Timestamps compare at millisecond precision (what responses show): `t[eq]=X` is the range
 * [X, X+1ms), `t[gt]=X` starts at X+1ms, `t[lte]=X` ends before X+1ms.
 */


export type Condition =
  | { kind: 'compare'; column: ColumnSchema; op: Comparison; value: unknown }
  /** [from, to), or everything outside it when negated (NULL matches neither). */
  | { kind: 'range'; column: ColumnSchema; from: Date; to: Date; negate: boolean }
  | { kind: 'list'; column: ColumnSchema; values: unknown[]; negate: boolean }
  | { kind: 'pattern'; column: ColumnSchema; pattern: string; caseInsensitive: boolean }
  | { kind: 'search'; column: ColumnSchema; words: string }
  | { kind: 'is'; column: ColumnSchema; value: IsValue };

export type { OrderTerm };

export interface ListQuery {
  limit: number;
  offset: number;
  /** Ends with the `id` tie-breaker, in the direction of the last key before it. */
  order: OrderTerm[];
  conditions: Condition[];
  /** The columns each record carries (null: every column) and the related rows embedded in it. */
  select: Selection;
  /** The order keys (as text) of the row the page starts after: the decoded `after` cursor. */
  position: Array<string | null> | null;
  count: CountMode;
  /** What a cursor of this query is bound to: its table, order and filters. */
  binding: string;
  /** `filter=`, folded for the caller, or null. */
  filter: ExpressionFilter | null;
}

const RANGE_TYPES: readonly ColumnType[] = ['integer', 'real', 'timestamp', 'text'];

function coerce(filter: FilterParam, column: ColumnSchema, raw: string): unknown {
  const coerced = coerceFilterValue(column, raw);
  if (!coerced.ok) throw invalidParameter(filter.key, `${filter.key} ${coerced.problem}`);
  return coerced.value;
}

const plusMillisecond = (date: Date) => new Date(date.getTime() + 1);

/** `*` matches any run of characters; `%`, `_` and `\` match themselves. */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`).replace(/\*/g, '%');
}

function timestampCondition(column: ColumnSchema, op: Comparison, at: Date): Condition {
  const next = plusMillisecond(at);
  switch (op) {
    case 'eq':
    case 'neq':
      return { kind: 'range', column, from: at, to: next, negate: op === 'neq' };
    case 'gt':
      return { kind: 'compare', column, op: 'gte', value: next };
    case 'lte':
      return { kind: 'compare', column, op: 'lt', value: next };
    default:
      return { kind: 'compare', column, op, value: at };
  }
}

function planCondition(table: TableSchema, filter: FilterParam): Condition {
  const column = table.columns.get(filter.column);
  if (!column) throw invalidParameter(filter.key, `${filter.column} is not a column of ${table.name}`);
  if (!OPERATORS_BY_TYPE[column.type].includes(filter.op)) {
    throw invalidParameter(filter.key, `${filter.key}: ${filter.op} does not apply to ${column.type} column ${column.name}`);
  }
  switch (filter.op) {
    case 'is':
      if ((filter.value === 'true' || filter.value === 'false') && column.type !== 'boolean') {
        throw invalidParameter(filter.key, `${filter.key}: is ${filter.value} applies to boolean columns only`);
      }
      return { kind: 'is', column, value: filter.value };
    case 'in':
    case 'nin':
      return { kind: 'list', column, values: filter.values.map((raw) => coerce(filter, column, raw)), negate: filter.op === 'nin' };
    case 'like':
    case 'ilike':
      return { kind: 'pattern', column, pattern: likePattern(coerce(filter, column, filter.value) as string), caseInsensitive: filter.op === 'ilike' };
    case 'search':
      return { kind: 'search', column, words: coerce(filter, column, filter.value) as string };
    default: {
      const value = coerce(filter, column, filter.value);
      if (column.type === 'timestamp') return timestampCondition(column, filter.op, value as Date);
      if (filter.op !== 'eq' && filter.op !== 'neq' && !RANGE_TYPES.includes(column.type)) {
        throw invalidParameter(filter.key, `${filter.key}: ${filter.op} does not apply to ${column.type} columns`);
      }
      return { kind: 'compare', column, op: filter.op, value };
    }
  }
}

/** What a cursor is bound to: the table, the order and the filters as sent (`filter=` too). */
function bindingOf(table: TableSchema, order: OrderTerm[], params: ListParams): string {
  const conditions = params.filters.map((each) => [each.key, 'values' in each ? each.values : each.value]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  if (params.filter !== null) conditions.push([FILTER, params.filter]);
  if (params.viewAs !== undefined) conditions.push(['as', params.viewAs]);
  return JSON.stringify([table.name, order.map((term) => `${term.column.name}.${term.direction}`), conditions]);
}

/** Filters alone (a stream's, which has no paging or order): names bound to columns, values coerced. */
export function planConditions(table: TableSchema, filters: readonly FilterParam[]): Condition[] {
  return filters.map((filter) => planCondition(table, filter));
}

/** Order, select and filter names must be columns (else 400 naming the parameter); every value is coerced. */
export function planListQuery(table: TableSchema, params: ListParams, cursorKey: CursorKey, relations?: RelationContext): ListQuery {
  const order = planOrder(table, params.order);
  const select = planSelection(table, params.select, params.embedOptions, relations);
  const conditions = planConditions(table, params.filters);
  const filter = params.filter === null ? null : planFilter(table, params.filter, relations);
  const binding = bindingOf(table, order, params);
  return {
    limit: params.limit,
    offset: params.offset ?? 0,
    order,
    conditions,
    select,
    position: params.after === null ? null : decodeCursor(cursorKey, binding, params.after, order.length),
    count: params.count,
    binding,
    filter,
  };
}
