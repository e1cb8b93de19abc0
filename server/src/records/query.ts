import { ID_COLUMN } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../db/schema.js';
import { invalidParameter } from '../errors.js';
import type { ListParams } from './parse.js';
import { coerceFilterValue } from './values.js';

/** The list query of the plan: the parsed parameters bound to the table's columns, values coerced. */

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

function planOrder(table: TableSchema, params: ListParams): OrderTerm[] {
  const terms = params.order.map(({ column: name, direction }): OrderTerm => {
    const column = table.columns.get(name);
    if (!column) throw invalidParameter('order', `order names an unknown column "${name}"`);
    return { column, direction };
  });
  // id is always the last tie-breaker, so pages are stable.
  const id = table.columns.get(ID_COLUMN)!;
  if (!terms.some((term) => term.column === id)) terms.push({ column: id, direction: 'asc' });
  return terms;
}

/** Order and filter columns must exist (else 400 naming the parameter); every filter value is coerced to its column. */
export function planListQuery(table: TableSchema, params: ListParams): ListQuery {
  const order = planOrder(table, params);
  const filters = params.filters.map(({ column: name, value }): Filter => {
    const column = table.columns.get(name);
    if (!column) throw invalidParameter(name, `${name} is not a column of ${table.name}`);
    const coerced = coerceFilterValue(column, value);
    if (!coerced.ok) throw invalidParameter(name, `${name} ${coerced.problem}`);
    return { column, value: coerced.value };
  });
  return { limit: params.limit, offset: params.offset, order, filters };
}
