import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import { isApiError } from '@basalt/client';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ListState } from '../../components/ListState';
import { TablePolicy } from '../../components/PolicyBadge';
import { RowCountText } from '../../components/RowCount';
import { describeError } from '../../errors';
import { keys, useTable } from '../../queries';
import { Link, navigate } from '../../router';
import { FilesPanel } from '../Files/FilesPanel';
import { RecordsPanel } from '../Records/RecordsPanel';
import { ColumnsPanel } from './ColumnsPanel';
import { IndexesPanel } from './IndexesPanel';
import { PolicyControl } from './PolicyControl';
import { ReferencedByPanel } from './ReferencedByPanel';
import { ViewAsPanel } from './rules/ViewAsPanel';
import './table-detail.css';

/**
 * A table: its files when it is a bucket, its records (filtered to one when `recordId` is given, as a reference cell's link does), its policy and who
 * sees what under it, indexes, columns.
 */
export function TableDetailScreen({ name, recordId }: { name: string; recordId?: string | null }) {
  const table = useTable(name);
  return (
    <ListState
      query={table}
      pendingLabel={`Loading ${name}…`}
      explainError={(error) =>
        isApiError(error) && (error.code === 'NOT_FOUND' || error.status === 400) ? (
          <section className="page">
            <h1>No table {name}</h1>
            <p>
              {describeError(error)} <Link to="">Back to the tables</Link>.
            </p>
          </section>
        ) : undefined
      }
    >
      {(info) => <TablePage info={info} recordId={recordId} />}
    </ListState>
  );
}

function TablePage({ info, recordId }: { info: TableInfo; recordId: string | null | undefined }) {
  return (
    <section className="page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="">Tables</Link> <span aria-hidden="true">/</span>
      </nav>
      <div className="page-header">
        <h1>{info.name}</h1>
        <div className="page-meta">
          {info.kind === 'files' && <span className="badge badge-bucket">bucket</span>}
          <TablePolicy table={info} />
          <span className="muted">
            <RowCountText count={info.rowCount} /> rows
          </span>
          <DropTableButton name={info.name} />
        </div>
      </div>
      {info.kind === 'files' && <FilesPanel table={info} />}
      <RecordsPanel table={info} recordId={recordId ?? undefined} />
      <div className="detail-grid">
        <PolicyControl table={info} />
        <ViewAsPanel table={info} />
        <IndexesPanel table={info} />
        <ColumnsPanel table={info} />
        <ReferencedByPanel table={info} />
      </div>
    </section>
  );
}

function DropTableButton({ name }: { name: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const drop = useMutation({
    mutationFn: () => client.admin.tables.drop(name),
    onSuccess: () => {
      setOpen(false);
      queryClient.removeQueries({ queryKey: keys.table(name) });
      queryClient.removeQueries({ queryKey: keys.records(name) });
      void queryClient.invalidateQueries({ queryKey: keys.tables, exact: true });
      void queryClient.invalidateQueries({ queryKey: keys.types });
      navigate('');
    },
  });
  return (
    <>
      <button
        type="button"
        className="button button-small button-danger-quiet"
        onClick={() => {
          setTyped('');
          drop.reset();
          setOpen(true);
        }}
      >
        Drop table
      </button>
      <ConfirmDialog
        open={open}
        title={`Drop table ${name}?`}
        confirmLabel="Drop table"
        busy={drop.isPending}
        confirmDisabled={typed !== name}
        error={drop.isError ? describeError(drop.error) : undefined}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          // Typing the name is the guard against dropping the wrong table from a muscle-memory click.
          if (typed === name) drop.mutate();
        }}
      >
        <p>
          The table, every row in it and its API at <code>/api/{name}</code> are deleted. This cannot be undone.
        </p>
        <label className="field">
          <span>
            Type <strong>{name}</strong> to confirm
          </span>
          <input value={typed} onChange={(event) => setTyped(event.target.value)} spellCheck={false} autoCapitalize="off" />
        </label>
      </ConfirmDialog>
    </>
  );
}
