import { LIST_OPERATORS, MAX_LIST_VALUES, type OrderDirection } from '@basalt/contract';
import type { Filter, UntypedRow } from '@basalt/client';

/**
 * The grid's filter, order and chosen rows as the admin records route's query parameters (API.md, "Query language"),
 * for the requests the client library has no method for yet: CSV pages, aggregates and changes by filter. Every
 * condition is written with its operator (`limit[eq]=3`), so a column named like a reserved parameter stays a filter.
 */

export type Parameters = ReadonlyArray<readonly [string, string]>;

const listOperators: ReadonlySet<string> = new Set(LIST_OPERATORS);

function valueText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : String(value);
}

/** One value of an `in`/`nin` list: in double quotes when it holds a comma or a double quote, a quote inside doubled. */
export function listItemText(value: unknown): string {
  const text = valueText(value);
  return /[,"]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** An `in`/`nin` list's value: its items quoted as needed, joined by commas. */
export function listText(values: readonly unknown[]): string {
  if (values.length === 0 || values.length > MAX_LIST_VALUES) throw new RangeError(`A list takes 1 to ${MAX_LIST_VALUES} values`);
  return values.map(listItemText).join(',');
}

/** The parameters of the grid's filter (`toFilter`'s shape: `{ col: { op: value } }`, `{ col: { in: [...] } }`). */
export function filterParameters(filter: Filter<UntypedRow>): Array<[string, string]> {
  const params: Array<[string, string]> = [];
  for (const [column, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (condition === null) {
      params.push([`${column}[is]`, 'null']);
    } else if (typeof condition !== 'object' || condition instanceof Date) {
      params.push([`${column}[eq]`, valueText(condition)]);
    } else {
      for (const [op, value] of Object.entries(condition as Record<string, unknown>)) {
        if (value === undefined) continue;
        params.push([`${column}[${op}]`, listOperators.has(op) ? listText(value as unknown[]) : value === null ? 'null' : valueText(value)]);
      }
    }
  }
  return params;
}

/** `order=<column>.<direction>`, or nothing (the server's order by id). */
export function orderParameters(order: { column: string; direction: OrderDirection } | null | undefined): Array<[string, string]> {
  return order ? [['order', `${order.column}.${order.direction}`]] : [];
}

/** The chosen rows of a change or delete: `id[in]=a,b,c`. */
export function idParameters(ids: readonly unknown[]): Array<[string, string]> {
  return [['id[in]', listText(ids)]];
}

/** A query string (with its `?`), or nothing for no parameters. */
export function searchText(params: Parameters): string {
  const search = new URLSearchParams(params.map(([key, value]) => [key, value])).toString();
  return search ? `?${search}` : '';
}
