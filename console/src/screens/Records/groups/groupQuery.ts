import type { FilterDraft } from '../filters';

/** The key of the rows' count in each group: `count`, unless the grouped column is itself named so. */
export function countKeyFor(column: string): string {
  return column === 'count' ? 'records' : 'count';
}

/**
 * A column's groups with their rows counted, largest first (`select=<col>,count()&order=count.desc`), as the client's
 * aggregate takes them.
 */
export function groupCounts(column: string) {
  const countKey = countKeyFor(column);
  return { aggregates: { groupBy: [column], count: countKey === 'count' ? (true as const) : countKey }, order: `${countKey}.desc` as const, countKey };
}

/** The grid's filter that shows one group's rows: equality with its value, `is null` for the group of nulls. */
export function filterOfGroup(value: unknown): FilterDraft {
  if (value === null || value === undefined) return { op: 'null', value: '' };
  return { op: 'eq', value: typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value) };
}
