import { useEffect, useRef } from 'react';
import type { OrderDirection, TableInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { FilterInput } from './FilterInput';
import type { FilterDraft } from './filters';
import { ReferenceCell } from './references/ReferenceCell';
import type { RowSelection } from './selection/useRowSelection';
import { formatCell } from './values';

export type Order = { column: string; direction: OrderDirection } | null;

interface RecordsTableProps {
  table: TableInfo;
  rows: readonly UntypedRow[];
  /** The labels of the rows reference cells point at, by column, then by id. */
  labels: ReadonlyMap<string, ReadonlyMap<string, string>>;
  busy: boolean;
  order: Order;
  onSort: (column: string) => void;
  filters: Record<string, FilterDraft>;
  /** The column of the filter the server refused. */
  badParameter: string | undefined;
  onFilter: (column: string, value: FilterDraft) => void;
  selection: RowSelection;
  onEdit: (row: UntypedRow) => void;
  onDelete: (row: UntypedRow) => void;
}

/** The select-all box of the page: checked, mixed (some rows) or empty. */
function PageCheckbox({ selection, disabled }: { selection: RowSelection; disabled: boolean }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = selection.page === 'some';
  }, [selection.page]);
  return <input ref={ref} type="checkbox" aria-label="Select all records on this page" checked={selection.page === 'all'} disabled={disabled} onChange={selection.togglePage} />;
}

/** The grid: a box per row to choose it, a sortable header, a filter per column, the cells and each row's actions. */
export function RecordsTable({ table, rows, labels, busy, order, onSort, filters, badParameter, onFilter, selection, onEdit, onDelete }: RecordsTableProps) {
  const head: HeadColumn[] = [
    { key: '(select)', label: 'Select', hidden: true, className: 'row-select' },
    ...table.columns.map((column) => ({
      key: column.name,
      label: column.name,
      type: column.type,
      sort: { direction: order?.column === column.name ? order.direction : null, onSort: () => onSort(column.name) },
    })),
    // Sticky at the right edge of a wide grid (records.css).
    { ...ACTIONS_COLUMN, className: 'row-actions' },
  ];
  return (
    <table className="data-table grid" aria-label={`Records of ${table.name}`} aria-busy={busy}>
      <DataTableHead columns={head}>
        <tr className="filter-row">
          <td className="row-select">
            <PageCheckbox selection={selection} disabled={rows.length === 0} />
          </td>
          {table.columns.map((column) => (
            <td key={column.name}>
              <FilterInput column={column} value={filters[column.name]} invalid={badParameter === column.name} onCommit={(value) => onFilter(column.name, value)} />
            </td>
          ))}
          <td className="row-actions" />
        </tr>
      </DataTableHead>
      <tbody>
        {rows.map((row) => (
          <tr key={String(row.id)} aria-selected={selection.isChosen(row)}>
            <td className="row-select">
              <input type="checkbox" aria-label={`Select record ${String(row.id)}`} checked={selection.isChosen(row)} onChange={(event) => selection.toggle(row, event.target.checked)} />
            </td>
            {table.columns.map((column) => {
              if (column.references) return <ReferenceCell key={column.name} column={{ ...column, references: column.references }} value={row[column.name]} labels={labels.get(column.name)} />;
              const cell = formatCell(row[column.name]);
              return (
                <td key={column.name} className={`cell cell-${column.type}${cell.isNull ? ' cell-null' : ''}`} title={cell.text}>
                  {cell.text}
                </td>
              );
            })}
            <td className="row-actions">
              <button type="button" className="button button-small" onClick={() => onEdit(row)} aria-label={`Edit record ${String(row.id)}`}>
                Edit
              </button>
              <button type="button" className="button button-small button-danger-quiet" onClick={() => onDelete(row)} aria-label={`Delete record ${String(row.id)}`}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
