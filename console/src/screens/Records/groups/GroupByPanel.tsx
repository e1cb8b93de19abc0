import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DEFAULT_LIMIT, type TableInfo } from '@basalt/contract';
import { Field } from '../../../components/Field';
import { ErrorState, Loading } from '../../../components/States';
import type { Filter, UntypedRow } from '@basalt/client';
import { client } from '../../../api';
import { keys } from '../../../queries';
import { useCursorPages } from '../paging';
import { formatCell } from '../values';
import { groupCounts } from './groupQuery';

interface GroupByPanelProps {
  table: TableInfo;
  /** The grid's filter: groups count the rows it matches. */
  filter: Filter<UntypedRow>;
  onPick: (column: string, value: unknown) => void;
  onClose: () => void;
}

/**
 * The rows the grid's filters match, grouped by one column and counted, the largest groups first, paged by cursor.
 * Picking a group filters the grid to its rows. (JSON columns are not offered: the grid cannot filter by one's value.)
 */
export function GroupByPanel({ table, filter, onPick, onClose }: GroupByPanelProps) {
  const groupable = table.columns.filter((column) => column.type !== 'json');
  const [column, setColumn] = useState('');
  const paging = useCursorPages();
  // A cursor is bound to the filters: new filters start at the first page (state derived during render).
  const filterKey = JSON.stringify(filter);
  const [pagedFilters, setPagedFilters] = useState(filterKey);
  if (pagedFilters !== filterKey) {
    setPagedFilters(filterKey);
    paging.reset();
  }
  const chosen = groupable.some((candidate) => candidate.name === column) ? column : '';
  const counts = groupCounts(chosen);
  const groups = useQuery({
    queryKey: [...keys.records(table.name), 'groups', chosen, filterKey, paging.after],
    queryFn: () => client.admin.from(table.name).aggregate(counts.aggregates, { filter, order: counts.order, limit: DEFAULT_LIMIT, after: paging.after }),
    enabled: chosen !== '',
    placeholderData: keepPreviousData,
  });
  const countKey = counts.countKey;

  return (
    <section className="card form records-groups" aria-labelledby="groups-title">
      <h3 id="groups-title">Group {table.name}</h3>
      <Field label="Group by" hint="Counts the records the filters match, per value of the column.">
        {(control) => (
          <select
            {...control}
            value={chosen}
            onChange={(event) => {
              setColumn(event.target.value);
              paging.reset();
            }}
          >
            <option value="">Choose a column</option>
            {groupable.map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                {candidate.name}
              </option>
            ))}
          </select>
        )}
      </Field>

      {chosen !== '' && groups.isPending && <Loading label="Counting…" />}
      {groups.isError && <ErrorState error={groups.error} onRetry={() => void groups.refetch()} />}
      {chosen !== '' && groups.data && (
        <>
          <table className="data-table groups" aria-label={`Counts of ${table.name} by ${chosen}`} aria-busy={groups.isFetching}>
            <thead>
              <tr>
                <th scope="col">{chosen}</th>
                <th scope="col" className="numeric">
                  Records
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.data.data.map((group, index) => {
                const cell = formatCell(group[chosen]);
                return (
                  <tr key={`${paging.page}-${index}`}>
                    <td>
                      {cell.text === '' ? (
                        // The grid's filters take no empty value: this group is counted but cannot be opened.
                        <span className="field-hint">(empty text)</span>
                      ) : (
                        <button type="button" className={`link-button${cell.isNull ? ' cell-null' : ''}`} onClick={() => onPick(chosen, group[chosen])} title={`Show only the records whose ${chosen} is ${cell.text}`}>
                          {cell.text}
                        </button>
                      )}
                    </td>
                    <td className="numeric">{String((group as Record<string, unknown>)[countKey] ?? '')}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {groups.data.data.length === 0 && <p className="field-hint">No records match the filters.</p>}
          <div className="actions">
            <button type="button" className="button button-small" disabled={paging.page === 0} onClick={paging.previous}>
              Previous groups
            </button>
            <button type="button" className="button button-small" disabled={!groups.data.next} onClick={() => groups.data.next && paging.next(groups.data.next)}>
              Next groups
            </button>
          </div>
        </>
      )}
      <div className="actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
