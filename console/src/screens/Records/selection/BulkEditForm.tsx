import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { UntypedRow } from '@basalt/client';
import type { TableInfo } from '@basalt/contract';
import { client } from '../../../api';
import { Field } from '../../../components/Field';
import { FormActions } from '../../../components/FormActions';
import { FormError } from '../../../components/States';
import { describeError, fieldOfError } from '../../../errors';
import { fromInputText, recordId, writableColumns } from '../values';

interface BulkEditFormProps {
  table: TableInfo;
  rows: readonly UntypedRow[];
  onDone: (changed: number) => void;
  onCancel: () => void;
}

/**
 * One column set to one value on every chosen row, in one statement: `PATCH ...records?id[in]=...` with
 * `{ column: value }` (the client quotes ids holding a comma or a quote).
 */
export function BulkEditForm({ table, rows, onDone, onCancel }: BulkEditFormProps) {
  // The id is each row's address, never a value to give them all.
  const columns = writableColumns(table.columns).filter((column) => column.name !== 'id');
  const [name, setName] = useState(columns[0]?.name ?? '');
  const [text, setText] = useState('');
  const [isNull, setIsNull] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const column = columns.find((candidate) => candidate.name === name);
  const save = useMutation({
    mutationFn: (values: UntypedRow) => client.admin.from(table.name).updateWhere({ filter: { id: { in: rows.map(recordId) } } }, values),
    onSuccess: (changed) => onDone(changed.length),
  });
  const serverField = fieldOfError(save.error);
  const valueError = problem ?? (save.isError && serverField === name ? describeError(save.error) : undefined);
  const formError = save.isError && serverField !== name ? describeError(save.error) : undefined;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!column) return;
    if (isNull) {
      setProblem(undefined);
      save.mutate({ [column.name]: null });
      return;
    }
    const parsed = fromInputText(text, column);
    setProblem(parsed.ok ? undefined : parsed.problem);
    if (parsed.ok) save.mutate({ [column.name]: parsed.value });
  };
  const count = `${rows.length} ${rows.length === 1 ? 'record' : 'records'}`;

  return (
    <form className="card form record-form" onSubmit={onSubmit} noValidate aria-label={`Edit ${count}`}>
      <h3>Edit {count}</h3>
      <div className="record-fields">
        <Field label="Column">
          {(control) => (
            <select
              {...control}
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                setText('');
                setIsNull(false);
                setProblem(undefined);
                save.reset();
              }}
            >
              {columns.map((candidate) => (
                <option key={candidate.name} value={candidate.name}>
                  {candidate.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="New value" error={valueError} hint={column ? `${column.type}, set on ${count}` : undefined}>
          {(control) => (
            <div className="input-with-null">
              {column?.type === 'boolean' ? (
                <select {...control} value={isNull ? '' : text} onChange={(event) => { setText(event.target.value); setIsNull(false); }}>
                  <option value="">{isNull ? 'null' : '—'}</option>
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              ) : (
                <input {...control} value={isNull ? '' : text} placeholder={isNull ? 'null' : undefined} spellCheck={false} onChange={(event) => { setText(event.target.value); setIsNull(false); }} />
              )}
              {column?.nullable && (
                <label className="check check-null">
                  <input type="checkbox" checked={isNull} onChange={(event) => setIsNull(event.target.checked)} />
                  null
                </label>
              )}
            </div>
          )}
        </Field>
      </div>
      <FormError message={formError} />
      <FormActions pending={save.isPending} submitLabel={`Set on ${count}`} pendingLabel="Saving…" onCancel={onCancel} />
    </form>
  );
}
