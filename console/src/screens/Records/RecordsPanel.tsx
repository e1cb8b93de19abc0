import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import { DEFAULT_LIMIT } from '@basalt/contract';
import type { TableListQuery, UntypedRow } from '@basalt/client';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { describeError, fieldOfError } from '../../errors';
import { keys, useRecords } from '../../queries';
import { ExportButton } from './csv/ExportButton';
import { ImportPanel } from './csv/ImportPanel';
import { columnOfParameter, toFilter, type FilterDraft } from './filters';
import { filterOfGroup } from './groups/groupQuery';
import { GroupByPanel } from './groups/GroupByPanel';
import { LiveBadge } from './LiveBadge';
import { useCursorPages } from './paging';
import { Pager } from './Pager';
import { RecordForm } from './RecordForm';
import { RecordsTable, type Order } from './RecordsTable';
import { BulkBar } from './selection/BulkBar';
import { useRowSelection } from './selection/useRowSelection';
import { recordId as idOf } from './values';
import { useReferenceLabels } from './references/useReferenceLabels';
import { useLiveRecords } from './useLiveRecords';
import './records.css';

type Editing = { mode: 'create' } | { mode: 'edit'; row: UntypedRow } | null;
/** The panel open above the grid, if any. */
type Tool = 'import' | 'groups' | null;

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
  const [tool, setTool] = useState<Tool>(null);
  const [notice, setNotice] = useState<string | undefined>();
  const isBucket = table.kind === 'files';

  // Filters on columns that were dropped meanwhile would make every request a 400: only existing columns count.
  const columnNames = new Set(table.columns.map((column) => column.name));
  const activeFilters = toFilter(filters, table.columns);
  const query: TableListQuery = { limit, after: paging.after, filter: activeFilters };
  const activeOrder = order && columnNames.has(order.column) ? order : null;
  if (activeOrder) query.order = `${activeOrder.column}.${activeOrder.direction}`;
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
  const selection = useRowSelection(rows, JSON.stringify(query));
  const labels = useReferenceLabels(table, rows);
  const badParameter = records.isError ? columnOfParameter(fieldOfError(records.error)) : undefined;
  const hasFilters = Object.keys(activeFilters).length > 0;
  const toggleTool = (next: Exclude<Tool, null>) => setTool((current) => (current === next ? null : next));

  return (
    <section className="card card-flush records" aria-labelledby="records-title">
      <div className="card-header records-toolbar">
        <h2 id="records-title">Records</h2>
        <LiveBadge live={live} />
        <div className="toolbar-actions">
          {hasFilters && (
            <button type="button" className="button button-small button-quiet" onClick={() => {
                setFilters({});
                paging.reset();
              }}>
              Clear filters
            </button>
          )}
          <button type="button" className="button button-small" aria-pressed={tool === 'groups'} onClick={() => toggleTool('groups')}>
            Group by
          </button>
          <ExportButton table={table.name} filter={activeFilters} order={query.order} hasFilters={hasFilters} />
          {/* A bucket's rows are made by uploads (its files panel), never typed in or imported. */}
          {!isBucket && (
            <button type="button" className="button button-small" aria-pressed={tool === 'import'} onClick={() => toggleTool('import')}>
              Import CSV
            </button>
          )}
          {!isBucket && (
            <button type="button" className="button button-primary button-small" onClick={() => setEditing({ mode: 'create' })} disabled={editing !== null}>
              New record
            </button>
          )}
        </div>
      </div>

      {tool === 'import' && <ImportPanel table={table} onImported={refreshAfterWrite} onClose={() => setTool(null)} />}
      {tool === 'groups' && (
        <GroupByPanel
          table={table}
          filter={activeFilters}
          onClose={() => setTool(null)}
          onPick={(column, value) => setFilter(column, filterOfGroup(value))}
        />
      )}

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

      {notice && (
        <p className="notice records-notice" role="status">
          {notice}
        </p>
      )}
      <BulkBar
        table={table}
        selection={selection}
        onChanged={(message) => {
          setNotice(message);
          refreshAfterWrite();
        }}
      />

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
            {!hasFilters && (isBucket ? <p>Upload a file above: each file is a row.</p> : <p>Add one here, import a CSV file, or write through the API at /api/{table.name}.</p>)}
          </Empty>
        }
      >
        {(_page, empty) => (
          <div className="table-scroll">
            <RecordsTable
              table={table}
              rows={rows}
              labels={labels}
              busy={records.isFetching}
              order={order}
              onSort={(column) => {
                setOrder(nextOrder(order, column));
                paging.reset();
              }}
              filters={filters}
              badParameter={badParameter}
              onFilter={setFilter}
              selection={selection}
              onEdit={(row) => setEditing({ mode: 'edit', row })}
              onDelete={(row) => {
                remove.reset();
                setDeleting(row);
              }}
            />
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
