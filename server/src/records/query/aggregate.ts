import { AGGREGATE_COLUMN_TYPES, ID_COLUMN, type AggregateFunction } from '@basalt/contract';
import { isOrderable, type ColumnSchema, type TableSchema } from '../../db/schema.js';
import { invalidParameter } from '../../errors.js';
import type { RelationContext } from '../embed/plan.js';
import { decodeCursor, type CursorKey } from './cursor.js';
import { FILTER, planFilter, type ExpressionFilter } from './filter.js';
import type { ListParams } from './parse.js';
import { planConditions, type Condition, type OrderTerm } from './plan.js';

/**
 * Aggregates (API.md, "Query language, part 2"): a list whose select has `count()`, `sum(c)`, `avg(c)`, `min(c)` or
 * `max(c)`. Its plain columns group the rows (filters and `filter=` apply before grouping); each item's key is its
 * alias, a column's name, or the function's name. Groups are ordered by `order` (naming keys), then by the group
 * columns in select order, and paged by a cursor over those keys, bound to the select as well.
 */

export interface AggregateOutput {
  /** The JSON key: the alias, else the column's or the function's name. */
  key: string;
  /** A group column, or null for an aggregate. */
  group: ColumnSchema | null;
  fn: AggregateFunction | null;
  /** The aggregated column (null for `count()` and for groups). */
  column: ColumnSchema | null;
  /** The key as a column of the grouped rows: its SQL type and nullability, for the order and the cursor. */
  output: ColumnSchema;
}

export interface AggregateQuery {
  outputs: AggregateOutput[];
  conditions: Condition[];
  filter: ExpressionFilter | null;
  /** Over the outputs' keys: `order`, then every group column not in it. */
  order: OrderTerm[];
  limit: number;
  offset: number;
  position: Array<string | null> | null;
  binding: string;
}

const refused = (message: string) => invalidParameter('select', `select: ${message}`);

/** The SQL type an aggregate answers with (so cursors bind their values back to it). */
function outputType(fn: AggregateFunction, column: ColumnSchema | null): string {
  if (fn === 'count') return 'bigint';
  if (fn === 'sum') return 'numeric';
  if (fn === 'avg') return 'double precision';
  return column!.sqlType;
}

function output(table: TableSchema, item: NonNullable<ListParams['select']>[number]): AggregateOutput {
  if (item.kind === 'star') throw refused('* cannot be grouped: name the columns to group by');
  if (item.kind === 'embed') throw refused(`embeds cannot be aggregated ("${item.name}")`);
  if (item.kind === 'column') {
    const column = table.columns.get(item.name);
    if (!column) throw refused(`names an unknown column "${item.name}" of ${table.name}`);
    if (!isOrderable(column)) throw refused(`cannot group by "${item.name}": Postgres cannot compare values of its type, ${column.sqlType}`);
    const key = item.alias ?? item.name;
    return { key, group: column, fn: null, column: null, output: { ...column, name: key } };
  }
  const { fn } = item;
  let column: ColumnSchema | null = null;
  if (item.column !== null) {
    column = table.columns.get(item.column) ?? null;
    if (!column) throw refused(`${fn}() names an unknown column "${item.column}" of ${table.name}`);
    if (!AGGREGATE_COLUMN_TYPES[fn].includes(column.type)) {
      throw refused(`${fn}() takes ${AGGREGATE_COLUMN_TYPES[fn].join(', ')} columns; ${item.column} is ${column.type}`);
    }
  }
  const key = item.alias ?? fn;
  const base = table.columns.get(ID_COLUMN)!;
  const sqlType = outputType(fn, column);
  const type = fn === 'min' || fn === 'max' ? column!.type : ('real' as const);
  const described: ColumnSchema = { ...base, name: key, type, pgType: sqlType, sqlType, nullable: fn !== 'count', unique: false, primaryKey: false, references: null };
  return { key, group: null, fn, column, output: described };
}

/** The aggregate list: its outputs, groups' order and cursor; 400 naming `select`, `order` or `count` otherwise. */
export function planAggregate(table: TableSchema, params: ListParams, cursorKey: CursorKey, relations?: RelationContext): AggregateQuery {
  const outputs = params.select!.map((item) => output(table, item));
  const keys = new Map<string, AggregateOutput>();
  for (const each of outputs) {
    if (keys.has(each.key)) throw refused(`two items are named "${each.key}": give one an alias (alias:${each.fn ?? each.key}(...))`);
    keys.set(each.key, each);
  }
  const order: OrderTerm[] = params.order.map(({ column: name, direction }) => {
    const named = keys.get(name);
    if (!named) throw invalidParameter('order', `order names "${name}", which is not a key of this select (${[...keys.keys()].join(', ')})`);
    if (!isOrderable(named.output)) throw invalidParameter('order', `order cannot use "${name}": its values cannot be sorted`);
    return { column: named.output, direction };
  });
  for (const each of outputs) {
    if (each.group && !order.some((term) => term.column.name === each.key)) order.push({ column: each.output, direction: 'asc' });
  }
  const conditions = planConditions(table, params.filters);
  const filter = params.filter === null ? null : planFilter(table, params.filter, relations);
  const filters = params.filters.map((each) => [each.key, 'values' in each ? each.values : each.value]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  if (params.filter !== null) filters.push([FILTER, params.filter]);
  if (params.viewAs !== undefined) filters.push(['as', params.viewAs]);
  const binding = JSON.stringify([table.name, 'aggregate', params.select, order.map((term) => `${term.column.name}.${term.direction}`), filters]);
  return {
    outputs,
    conditions,
    filter,
    order,
    limit: params.limit,
    offset: params.offset ?? 0,
    position: params.after === null ? null : decodeCursor(cursorKey, binding, params.after, order.length),
    binding,
  };
}
