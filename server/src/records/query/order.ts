import { ID_COLUMN } from '@basalt/contract';
import { isOrderable, type ColumnSchema, type TableSchema } from '../../db/schema.js';
import { invalidParameter } from '../../errors.js';
import type { OrderParam } from './parse.js';

/** The order of a list or of a to-many embed, bound to the table's columns. */

export interface OrderTerm {
  column: ColumnSchema;
  direction: 'asc' | 'desc';
}

/** Order terms bound to columns, ending with the id tie-breaker; `parameter` is what a 400 names. */
export function planOrder(table: TableSchema, order: OrderParam[], parameter = 'order'): OrderTerm[] {
  const terms = order.map(({ column: name, direction }): OrderTerm => {
    const column = table.columns.get(name);
    if (!column) throw invalidParameter(parameter, `${parameter} names an unknown column "${name}"`);
    if (!isOrderable(column)) throw invalidParameter(parameter, `${parameter} cannot use "${name}": Postgres cannot sort values of its type, ${column.sqlType}`);
    return { column, direction };
  });
  // id is always the last tie-breaker, in the direction of the last key, so one index on (key, id) serves a keyset.
  const id = table.columns.get(ID_COLUMN)!;
  const at = terms.findIndex((term) => term.column === id);
  if (at >= 0) return terms.slice(0, at + 1);
  terms.push({ column: id, direction: terms.at(-1)?.direction ?? 'asc' });
  return terms;
}

