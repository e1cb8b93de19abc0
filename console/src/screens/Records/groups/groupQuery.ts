import type { Parameters } from '../query/parameters';
import type { FilterDraft } from '../filters';

/** The key of the rows' count in each group: `count`, unless the grouped column is itself named so. */
export function countKeyFor(column: string): string {
  return column === 'count' ? 'records' : 'count';
}

/**
 * One page of a column's groups with their rows counted, largest first (ties by the value, as the server orders
 * them): `select=<col>,count()&order=count.desc`, after the grid's filters.
 */
export function groupParameters(column: string, filters: Parameters, limit: number, after: string | null): Array<readonly [string, string]> {
  const countKey = countKeyFor(column);
  const count = countKey === 'count' ? 'count()' : `${countKey}:count()`;
  return [...filters, ['select', `${column},${count}`], ['order', `${countKey}.desc`], ['limit', String(limit)], ...(after === null ? [] : [['after', after] as const])];
}

/** The grid's filter that shows one group's rows: equality with its value, `is null` for the group of nulls. */
export function filterOfGroup(value: unknown): FilterDraft {
  if (value === null || value === undefined) return { op: 'null', value: '' };
  return { op: 'eq', value: typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value) };
}
