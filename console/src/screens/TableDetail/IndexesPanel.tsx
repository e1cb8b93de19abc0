import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { IndexInfo, TableInfo } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { describeError, splitError } from '../../errors';
import { useTableChanged } from './ColumnsPanel';

type Kind = 'btree' | 'search';

const COLUMNS: readonly HeadColumn[] = [{ label: 'Name' }, { label: 'Columns' }, { label: 'Kind' }, ACTIONS_COLUMN];

/** Indexes of the primary key and of unique columns belong to the table's constraints: the server refuses to drop them. */
function isConstraintIndex(table: TableInfo, index: IndexInfo): boolean {
  if (!index.unique || index.columns.length !== 1) return false;
  const column = table.columns.find((candidate) => candidate.name === index.columns[0]);
  return Boolean(column && (column.primaryKey || column.unique));
}

/** The form's own check, before a round trip: at least one column; a search index takes exactly one text column. */
export function indexProblem(table: TableInfo, columns: readonly string[], kind: Kind): string | undefined {
  if (columns.length === 0) return 'Choose at least one column.';
  if (kind === 'search') {
    const column = table.columns.find((candidate) => candidate.name === columns[0]);
    if (columns.length !== 1 || column?.type !== 'text') return 'A full-text search index takes exactly one text column.';
  }
  return undefined;
}

export function IndexesPanel({ table }: { table: TableInfo }) {
  const tableChanged = useTableChanged();
  const [chosen, setChosen] = useState<string[]>([]);
  const [kind, setKind] = useState<Kind>('btree');
  const [problem, setProblem] = useState<string | undefined>();
  const [dropping, setDropping] = useState<IndexInfo | null>(null);
  const create = useMutation({
    mutationFn: () => client.admin.indexes.create(table.name, { columns: chosen, kind }),
    onSuccess: (updated) => {
      tableChanged(updated);
      setChosen([]);
    },
  });
  const drop = useMutation({
    mutationFn: (index: string) => client.admin.indexes.drop(table.name, index),
    onSuccess: (updated) => {
      tableChanged(updated);
      setDropping(null);
    },
  });
  const serverError = splitError(create.error, ['columns', 'kind']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = indexProblem(table, chosen, kind);
    setProblem(found);
    if (!found) create.mutate();
  };
  // A check or a server answer is about the choice it was made on: a new choice clears it.
  const changed = () => {
    setProblem(undefined);
    create.reset();
  };
  const toggle = (name: string) => {
    changed();
    setChosen((current) => (current.includes(name) ? current.filter((entry) => entry !== name) : [...current, name]));
  };

  return (
    <section className="card" aria-labelledby="indexes-title">
      <h2 id="indexes-title">Indexes</h2>
      <div className="table-scroll">
        <table className="data-table compact" aria-label={`Indexes of ${table.name}`}>
          <DataTableHead columns={COLUMNS} />
          <tbody>
            {table.indexes.map((index) => (
              <tr key={index.name}>
                <td>
                  <code>{index.name}</code>
                </td>
                <td>{index.columns.join(', ') || '(expression)'}</td>
                <td>
                  {index.kind === 'search' ? 'full-text search' : index.kind}
                  {index.unique ? ', unique' : ''}
                </td>
                <td className="row-actions">
                  {!isConstraintIndex(table, index) && (
                    <button type="button" className="button button-small button-danger-quiet" aria-label={`Drop index ${index.name}`} onClick={() => {
                        drop.reset();
                        setDropping(index);
                      }}>
                      Drop
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="index-form" onSubmit={submit} aria-label="New index">
        <fieldset className="field" disabled={create.isPending}>
          <legend>New index on</legend>
          <div className="index-columns">
            {table.columns.map((column) => (
              <label key={column.name} className="checkbox">
                <input type="checkbox" checked={chosen.includes(column.name)} onChange={() => toggle(column.name)} /> {column.name}
              </label>
            ))}
          </div>
        </fieldset>
        <label className="field">
          <span>Kind</span>
          <select value={kind} disabled={create.isPending} onChange={(event) => {
              changed();
              setKind(event.target.value as Kind);
            }}>
            <option value="btree">btree (ranges, order, equality)</option>
            <option value="search">full-text search (one text column)</option>
          </select>
        </label>
        {(problem ?? serverError.fields.columns ?? serverError.fields.kind) && (
          <p className="field-error" role="alert">
            {problem ?? serverError.fields.columns ?? serverError.fields.kind}
          </p>
        )}
        <FormError message={serverError.form} />
        <FormActions pending={create.isPending} submitLabel="Create index" pendingLabel="Building the index…" />
      </form>
      <ConfirmDialog
        open={dropping !== null}
        title={`Drop index ${dropping?.name ?? ''}?`}
        confirmLabel="Drop index"
        busy={drop.isPending}
        error={drop.isError ? describeError(drop.error) : undefined}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && drop.mutate(dropping.name)}
      >
        <p>Queries that used it get slower on a big table; the rows are not touched.</p>
      </ConfirmDialog>
    </section>
  );
}
