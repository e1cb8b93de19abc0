import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FILE_COLUMNS, MANAGED_COLUMNS, type ColumnDefinition, type ColumnInfo, type TableInfo } from '@basalt/contract';
import { isApiError } from '@basalt/client';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { useFieldErrors } from '../../components/useFieldErrors';
import { describeError, splitError, type FieldErrors } from '../../errors';
import { ColumnFields } from '../Tables/ColumnFields';
import { checkColumn, newColumnDraft, referenceChoices, type ColumnDraft } from '../Tables/validation';
import { keys, useTables } from '../../queries';
import { Link, tablePath } from '../../router';

const COLUMNS: readonly HeadColumn[] = [{ label: 'Name' }, { label: 'Type' }, { label: 'Constraints' }, { label: 'Default' }, ACTIONS_COLUMN];

function formatDefault(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** After a column changes, everything derived from the table's shape is stale: its rows, the list, the types. */
export function useTableChanged() {
  const queryClient = useQueryClient();
  return (table: TableInfo) => {
    queryClient.setQueryData(keys.table(table.name), table);
    void queryClient.invalidateQueries({ queryKey: keys.tables, exact: true });
    void queryClient.invalidateQueries({ queryKey: keys.records(table.name) });
    void queryClient.invalidateQueries({ queryKey: keys.types });
  };
}

export function ColumnsPanel({ table }: { table: TableInfo }) {
  const [dropping, setDropping] = useState<ColumnInfo | null>(null);
  const tableChanged = useTableChanged();
  const drop = useMutation({
    mutationFn: (column: string) => client.admin.columns.drop(table.name, column),
    onSuccess: (updated) => {
      tableChanged(updated);
      setDropping(null);
    },
  });

  return (
    <section className="card" aria-labelledby="columns-title">
      <h2 id="columns-title">Columns</h2>
      <div className="table-scroll">
        <table className="data-table compact" aria-label={`Columns of ${table.name}`}>
          <DataTableHead columns={COLUMNS} />
          <tbody>
            {table.columns.map((column) => {
              const managed = (MANAGED_COLUMNS as readonly string[]).includes(column.name);
              const fileColumn = table.kind === 'files' && (FILE_COLUMNS as readonly string[]).includes(column.name);
              return (
                <tr key={column.name}>
                  <th scope="row">
                    <code>{column.name}</code>
                    {column.name === table.ownerColumn && <span className="tag">owner</span>}
                  </th>
                  <td>{column.type}</td>
                  <td className="muted">
                    {[column.primaryKey && 'primary key', !column.nullable && !column.primaryKey && 'not null', column.unique && !column.primaryKey && 'unique']
                      .filter(Boolean)
                      .join(', ')}
                    {column.references && (
                      <span className="reference-target">
                        {' '}
                        → <Link to={tablePath(column.references.table)}>{column.references.table}</Link>, on delete {column.references.onDelete}
                      </span>
                    )}
                  </td>
                  <td>
                    <code className="muted">{formatDefault(column.default)}</code>
                  </td>
                  <td className="row-actions">
                    {managed ? (
                      <span className="muted" title="Managed by the server on every table">
                        managed
                      </span>
                    ) : fileColumn ? (
                      <span className="muted" title="Set by uploads: every bucket has it">
                        file
                      </span>
                    ) : (
                      <button type="button" className="button button-small button-danger-quiet" onClick={() => {
                          drop.reset();
                          setDropping(column);
                        }}>
                        Drop<span className="visually-hidden"> column {column.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <AddColumnForm table={table} onAdded={tableChanged} />
      <ConfirmDialog
        open={dropping !== null}
        title={`Drop column ${dropping?.name ?? ''}?`}
        confirmLabel="Drop column"
        busy={drop.isPending}
        error={drop.isError ? describeError(drop.error) : undefined}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && drop.mutate(dropping.name)}
      >
        <p>
          The values of <code>{dropping?.name}</code> in every row of {table.name} are deleted. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function AddColumnForm({ table, onAdded }: { table: TableInfo; onAdded: (table: TableInfo) => void }) {
  const [draft, setDraft] = useState<ColumnDraft>(() => newColumnDraft());
  const [checked, setChecked] = useState<FieldErrors>({});
  const tables = useTables();
  const add = useMutation({
    mutationFn: (column: ColumnDefinition) => client.admin.columns.add(table.name, column),
    onSuccess: (updated) => {
      onAdded(updated);
      setDraft(newColumnDraft());
    },
  });
  // A 409 names `<table>.<column>`: here that is always the name just typed.
  const server = splitError(
    add.error,
    ['name', 'type', 'default', 'nullable', 'unique', 'references'],
    isApiError(add.error) && add.error.code === 'CONFLICT' ? { [draft.name.trim()]: 'name' } : { 'references.table': 'references', 'references.onDelete': 'references' },
  );
  const shown = useFieldErrors();
  const errors = shown.visible({ ...server.fields, ...checked });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const result = checkColumn(draft, new Set(table.columns.map((column) => column.name)));
    setChecked(result.errors);
    shown.reset();
    if (result.definition) add.mutate(result.definition);
  };

  return (
    <form className="add-column" onSubmit={onSubmit} noValidate aria-labelledby="add-column-title">
      <h3 id="add-column-title">Add a column</h3>
      <ColumnFields
        draft={draft}
        errors={errors}
        references={referenceChoices(tables.data ?? [])}
        onChange={(next) => {
          // Only the input that changed loses its message.
          for (const field of ['name', 'type', 'default', 'references'] as const) {
            const before = field === 'default' ? draft.defaultText : field === 'references' ? draft.referencesTable + draft.onDelete : draft[field];
            const after = field === 'default' ? next.defaultText : field === 'references' ? next.referencesTable + next.onDelete : next[field];
            if (before !== after) shown.markEdited(field);
          }
          setDraft(next);
        }}
      />
      {!draft.nullable && draft.defaultText === '' && table.rowCount.value > 0 && (
        <p className="field-hint">A not-null column without a default cannot be added to a table that has rows.</p>
      )}
      <FormError message={server.form} />
      <FormActions pending={add.isPending} submitLabel="Add column" pendingLabel="Adding…" />
    </form>
  );
}
