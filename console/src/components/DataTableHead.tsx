import type { ReactNode } from 'react';
import type { OrderDirection } from '@basalt/contract';

export interface HeadColumn {
  label: string;
  /** Unique among the head's columns; the label when not given (a key in parentheses is no column name). */
  key?: string;
  /** Right-aligned with tabular figures, like the numbers under it. */
  numeric?: boolean;
  /** Read by screen readers only: a column of row actions needs a name but no visible one. */
  hidden?: boolean;
  className?: string;
  /** The column's type, in a quieter line under its name (the records grid). */
  type?: string;
  /** A header that orders the rows: the order by this column now (null: none), and what a click asks for. */
  sort?: { direction: OrderDirection | null; onSort: () => void };
}

/** The last column of a table whose rows have buttons: named for screen readers, blank on screen. */
export const ACTIONS_COLUMN: HeadColumn = { key: '(actions)', label: 'Actions', hidden: true };

/**
 * The head of every data table: one header cell per column, then any further rows the table needs there (the records
 * grid's filters). Screen readers hear each header as a column header, a sortable one with its current order.
 */
export function DataTableHead({ columns, children }: { columns: readonly HeadColumn[]; children?: ReactNode }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <HeaderCell key={column.key ?? column.label} column={column} />
        ))}
      </tr>
      {children}
    </thead>
  );
}

function HeaderCell({ column }: { column: HeadColumn }) {
  const className = [column.numeric && 'numeric', column.className].filter(Boolean).join(' ') || undefined;
  const label = column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label;
  const type = column.type !== undefined && <span className="column-type">{column.type}</span>;
  if (!column.sort) {
    return (
      <th scope="col" className={className}>
        {label}
        {type}
      </th>
    );
  }
  const { direction, onSort } = column.sort;
  return (
    <th scope="col" className={className} aria-sort={direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : 'none'}>
      <button type="button" className="sort-button" onClick={onSort} title={`Order by ${column.label}`}>
        {label}
        <span className="sort-mark" aria-hidden="true">
          {direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : ''}
        </span>
      </button>
      {type}
    </th>
  );
}
