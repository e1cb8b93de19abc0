import { useQueries } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';
import { client } from '../../../api';
import { useTables } from '../../../queries';
import { labelColumnOf, referencedIds } from './labels';

/**
 * The labels of the rows a page's reference cells point at: one request per reference column for the whole page
 * (`id[in]=...`), never one per row. Keyed by column, then by referenced id.
 */
export function useReferenceLabels(table: TableInfo, rows: readonly UntypedRow[]): ReadonlyMap<string, ReadonlyMap<string, string>> {
  const tables = useTables();
  const lookups = table.columns.flatMap((column) => {
    const target = column.references ? tables.data?.find((candidate) => candidate.name === column.references!.table) : undefined;
    const ids = target ? referencedIds(rows, column) : [];
    return target && ids.length > 0 ? [{ column: column.name, target, label: labelColumnOf(target), ids }] : [];
  });
  const results = useQueries({
    queries: lookups.map((lookup) => ({
      queryKey: ['reference-labels', lookup.target.name, lookup.label, lookup.ids] as const,
      queryFn: () => client.admin.records(lookup.target.name, { filter: { id: { in: lookup.ids } }, select: [...new Set(['id', lookup.label])], limit: 100, count: 'none' }),
      staleTime: 30_000,
    })),
  });
  const labels = new Map<string, Map<string, string>>();
  lookups.forEach((lookup, index) => {
    const found = new Map<string, string>();
    for (const row of results[index]?.data?.data ?? []) found.set(String(row.id), String(row[lookup.label] ?? row.id));
    labels.set(lookup.column, found);
  });
  return labels;
}
