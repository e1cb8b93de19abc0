import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OrderDirection, TableInfo } from '@basalt/contract';
import { DEFAULT_LIMIT } from '@basalt/contract';
import type { TableListQuery, UntypedRow } from '@basalt/client';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { describeError, fieldOfError } from '../../errors';
import { keys, useRecords } from '../../queries';
import { FilterInput } from './FilterInput';
import { columnOfParameter, toFilter, type FilterDraft } from './filters';
import { useCursorPages } from './paging';
import { Pager } from './Pager';
import { RecordForm } from './RecordForm';
import { formatCell, recordId as idOf } from './values';
import { ReferenceCell } from './references/ReferenceCell';
import { useReferenceLabels } from './references/useReferenceLabels';
import { useLiveRecords } from './useLiveRecords';
import './records.css';

type Order = { column: string; direction: OrderDirection } | null;
type Editing = { mode: 'create' } | { mode: 'edit'; row: UntypedRow } | null;

/** Header clicks cycle ascending, descending, unsorted (the server then orders by id). */
function nextOrder(order: Order, column: string): Order {
  if (order?.column !== column) return { column, direction: 'asc' };
  return order.direction === 'asc' ? { column, direction: 'desc' } : null;
}

export function RecordsPanel({ table, recordId }: { table: TableInfo; recordId?: string | undefined }) {
  const queryClient = useQueryClient();
  const [limit, setLimit] = useState(DEFAULT_LIMIT);
  const paging = useCursorPages();
  const [order, setOrder] = useState<Order>(null);
  // Opened from a reference cell's link: the grid starts on that one record.
  const [filters, setFilters] = useState<Record<string, FilterDraft>>(() => {
    const initial: Record<string, FilterDraft> = {};
    if (recordId) initial.id = { op: 'eq', value: recordId };
    return initial;
  });
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<UntypedRow | null>(null);
  const isBucket = table.kind === 'files';

  // Filters on columns that were dropped meanwhile would make every request a 400: only existing columns count.
  const columnNames = new Set(table.columns.map((column) => column.name));
  const activeFilters = toFilter(filters, table.columns);
  const query: TableListQuery = { limit, after: paging.after, filter: activeFilters };
  if (order && columnNames.has(order.column)) query.order = `${order.column}.${order.direction}`;
  const records = useRecords(table.name, query);
  const live = useLiveRecords(table.name);

  const refreshAfterWrite = () => {
    void queryClient.invalidateQueries({ queryKey: keys.records(table.name) });
    // The row count on this page and in the table list changed too.
    void queryClient.invalidateQueries({ queryKey: keys.tables });
  };
  const remove = useMutation({
    mutationFn: (row: UntypedRow) => client.admin.from(table.name).delete(idOf(row)),
    onSuccess: () => {
      setDeleting(null);
      // The last row of the last page is gone: show the page before instead of an empty one.
      if (records.data && records.data.data.length === 1 && paging.page > 0) paging.previous();
      refreshAfterWrite();
    },
  });

  const setFilter = (name: string, value: FilterDraft) => {
    const current = filters[name];
    if (current?.op === value.op && current.value === value.value) return;
    setFilters((all) => ({ ...all, [name]: value }));
    paging.reset();
  };

  const total = records.data?.total ?? 0;
  const rows = records.data?.data ?? [];
  const labels = useReferenceLabels(table, rows);
  const badParameter = records.isError ? columnOfParameter(fieldOfError(records.error)) : undefined;
  const hasFilters = Object.keys(activeFilters).length > 0;
  const head: HeadColumn[] = [
    ...table.columns.map((column) => ({
      key: column.name,
      label: column.name,
      type: column.type,
      sort: {
        direction: order?.column === column.name ? order.direction : null,
        onSort: () => {
          setOrder(nextOrder(order, column.name));
          paging.reset();
        },
      },
    })),
    // Sticky at the right edge of a wide grid (records.css).
    { ...ACTIONS_COLUMN, className: 'row-actions' },
  ];

  return (
    <section className="card card-flush records" aria-labelledby="records-title">
      <div className="card-header records-toolbar">
        <h2 id="records-title">Records</h2>
        {live.status === 'live' ? (
          <span className="live-badge" role="status" title="New, changed and deleted rows show up here as they happen">
            <span className="live-dot" aria-hidden="true" />
            Live
          </span>
        ) : live.status === 'connecting' ? (
          <span className="live-badge live-stopped" role="status" title="Rows written by others show up here once the live stream is open">
            Connecting…
          </span>
        ) : (
          <span className="live-badge live-stopped" role="status" title={live.reason}>
            Live updates stopped
          </span>
        )}
        <div className="toolbar-actions">
          {hasFilters && (
            <button type="button" className="button button-small button-quiet" onClick={() => {
                setFilters({});
                paging.reset();
              }}>
              Clear filters
            </button>
          )}
          {/* A bucket's rows are made by uploads (its files panel), never typed in. */}
          {!isBucket && (
            <button type="button" className="button button-primary button-small" onClick={() => setEditing({ mode: 'create' })} disabled={editing !== null}>
              New record
            </button>
          )}
        </div>
      </div>

      {editing && (
        <RecordForm
          // A new form per row, so one row's input never leaks into another's.
          key={editing.mode === 'edit' ? `edit-${String(editing.row.id)}` : 'create'}
          table={table}
          row={editing.mode === 'edit' ? editing.row : undefined}
          onCancel={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            refreshAfterWrite();
          }}
        />
      )}

      {/* The header and its filters stay on an error and when nothing matches: the filter at fault is fixed there. */}
      <ListState
        query={records}
        pendingLabel="Loading records…"
        errorPlacement="above"
        errorClassName="records-error"
        retry={!badParameter}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={hasFilters ? 'No records match these filters' : 'No records yet'}>
            {!hasFilters && (isBucket ? <p>Upload a file above: each file is a row.</p> : <p>Add one here, or through the API at /api/{table.name}.</p>)}
          </Empty>
        }
      >
        {(_page, empty) => (
          <div className="table-scroll">
            <table className="data-table grid" aria-label={`Records of ${table.name}`} aria-busy={records.isFetching}>
              <DataTableHead columns={head}>
                <tr className="filter-row">
                  {table.columns.map((column) => (
                    <td key={column.name}>
                      <FilterInput column={column} value={filters[column.name]} invalid={badParameter === column.name} onCommit={(value) => setFilter(column.name, value)} />
                    </td>
                  ))}
                  <td className="row-actions" />
                </tr>
              </DataTableHead>
              <tbody>
                {rows.map((row) => (
                  <tr key={String(row.id)}>
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
                      <button type="button" className="button button-small" onClick={() => setEditing({ mode: 'edit', row })} aria-label={`Edit record ${String(row.id)}`}>
                        Edit
                      </button>
                      <button
                        type="button"
                        className="button button-small button-danger-quiet"
                        onClick={() => {
                          remove.reset();
                          setDeleting(row);
                        }}
                        aria-label={`Delete record ${String(row.id)}`}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {empty}
          </div>
        )}
      </ListState>

      <Pager
        total={total}
        page={paging.page}
        limit={limit}
        shown={rows.length}
        hasNext={Boolean(records.data?.next)}
        fetching={records.isFetching && !records.isPending}
        onNext={() => records.data?.next && paging.next(records.data.next)}
        onPrevious={paging.previous}
        onLimit={(next) => {
          setLimit(next);
          paging.reset();
        }}
      />

      <ConfirmDialog
        open={deleting !== null}
        title="Delete this record?"
        confirmLabel="Delete record"
        busy={remove.isPending}
        error={remove.isError ? describeError(remove.error) : undefined}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          Record <code>{String(deleting?.id ?? '')}</code> is deleted from {table.name}
          {isBucket ? ', with its file' : ''}. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
