import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { ColumnInfo, TableInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';
import { client } from '../../api';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { useFieldErrors } from '../../components/useFieldErrors';
import { splitError, type FieldErrors } from '../../errors';
import { useUsers } from '../../queries';
import { fromInputText, isRequired, recordId, toInputText, writableColumns } from './values';
import { ReferencePicker } from './references/ReferencePicker';

interface FieldState {
  text: string;
  isNull: boolean;
  /** Only touched fields are sent: an insert leaves the rest to their defaults, an update leaves them unchanged. */
  dirty: boolean;
}

interface RecordFormProps {
  table: TableInfo;
  /** The row being edited; undefined for a new one. */
  row: UntypedRow | undefined;
  onDone: (saved: UntypedRow) => void;
  onCancel: () => void;
}

function initialState(columns: ColumnInfo[], row: UntypedRow | undefined): Record<string, FieldState> {
  return Object.fromEntries(
    columns.map((column) => {
      const value = row?.[column.name];
      return [column.name, { text: toInputText(value, column), isNull: row !== undefined && value === null, dirty: false }];
    }),
  );
}

/**
 * What an upload found of a bucket's file: its bytes' type, size and hash, which the bytes in storage must keep
 * matching. The owner may still rename a file or give it to another user (`name`, `user_id`).
 */
const UPLOAD_FACTS = ['type', 'size', 'sha256'];

export function RecordForm({ table, row, onDone, onCancel }: RecordFormProps) {
  const isBucket = table.kind === 'files';
  const columns = writableColumns(table.columns);
  const [fields, setFields] = useState(() => initialState(columns, row));
  const [checked, setChecked] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (values: UntypedRow) => {
      const records = client.admin.from(table.name);
      return row ? records.upsert(recordId(row), values) : records.create(values);
    },
    onSuccess: onDone,
  });
  const server = splitError(save.error, columns.map((column) => column.name));
  const shown = useFieldErrors();
  const errors = shown.visible({ ...server.fields, ...checked });

  const set = (name: string, patch: Partial<FieldState>) => {
    setFields((current) => ({ ...current, [name]: { ...current[name]!, ...patch, dirty: true } }));
    shown.markEdited(name);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const values: UntypedRow = {};
    const problems: FieldErrors = {};
    for (const column of columns) {
      const state = fields[column.name];
      if (!state?.dirty) continue;
      // The id of an existing row is its address, not a value to change.
      if (row && column.name === 'id') continue;
      if (state.isNull) {
        values[column.name] = null;
        continue;
      }
      const parsed = fromInputText(state.text, column);
      if (parsed.ok) values[column.name] = parsed.value;
      else problems[column.name] = parsed.problem;
    }
    setChecked(problems);
    shown.reset();
    if (Object.keys(problems).length > 0) return;
    if (row && Object.keys(values).length === 0) {
      onCancel();
      return;
    }
    save.mutate(values);
  };

  const title = row ? `Edit record ${String(row.id)}` : `New record in ${table.name}`;
  return (
    <form className="card form record-form" onSubmit={onSubmit} noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="record-fields">
        {columns.map((column, index) => (
          <RecordField
            key={column.name}
            column={column}
            isOwnerColumn={column.name === table.ownerColumn}
            state={fields[column.name]!}
            error={errors[column.name]}
            readOnly={(row !== undefined && column.name === 'id') || (isBucket && UPLOAD_FACTS.includes(column.name))}
            autoFocus={index === (row ? 1 : 0)}
            onChange={(patch) => set(column.name, patch)}
          />
        ))}
      </div>
      <FormError message={server.form} />
      <FormActions pending={save.isPending} submitLabel={row ? 'Save changes' : 'Create record'} pendingLabel="Saving…" onCancel={onCancel} />
    </form>
  );
}

interface RecordFieldProps {
  column: ColumnInfo;
  isOwnerColumn: boolean;
  state: FieldState;
  error: string | undefined;
  readOnly: boolean;
  autoFocus: boolean;
  onChange: (patch: Partial<FieldState>) => void;
}

function hintOf(column: ColumnInfo, isOwnerColumn: boolean, readOnly: boolean): string {
  const parts: string[] = [column.type];
  if (column.name === 'id') parts.push(readOnly ? 'the record’s address, not editable' : 'leave empty for a generated id');
  else if (readOnly) parts.push('set by the upload');
  else if (isRequired(column)) parts.push('required');
  else if (column.default !== null && column.default !== undefined) parts.push(`default ${JSON.stringify(column.default)}`);
  if (isOwnerColumn) parts.push('the id of a user');
  if (column.references) parts.push(`a record of ${column.references.table}`);
  if (column.type === 'timestamp') parts.push('ISO 8601 or epoch ms');
  return parts.join(' · ');
}

function RecordField({ column, isOwnerColumn, state, error, readOnly, autoFocus, onChange }: RecordFieldProps) {
  // Typing into a null field means "this value instead": no need to untick "null" first.
  const edit = (text: string) => onChange({ text, isNull: false });
  const value = state.isNull ? '' : state.text;
  const placeholder = state.isNull ? 'null' : undefined;
  return (
    <Field label={column.name} error={error} hint={hintOf(column, isOwnerColumn, readOnly)} className={column.type === 'json' ? 'field-wide' : undefined}>
      {(control) => (
        <div className="input-with-null">
          {column.type === 'boolean' ? (
            <select {...control} value={value} autoFocus={autoFocus} onChange={(event) => edit(event.target.value)}>
              <option value="">{state.isNull ? 'null' : state.dirty ? '—' : 'not set'}</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : column.type === 'json' ? (
            <textarea
              {...control}
              rows={3}
              value={value}
              placeholder={placeholder}
              spellCheck={false}
              autoFocus={autoFocus}
              onChange={(event) => edit(event.target.value)}
            />
          ) : column.references && !readOnly ? (
            <ReferencePicker column={{ ...column, references: column.references }} value={value} control={control} placeholder={placeholder} autoFocus={autoFocus} onChange={edit} />
          ) : (
            <input
              {...control}
              value={value}
              placeholder={placeholder}
              readOnly={readOnly}
              autoFocus={autoFocus}
              spellCheck={false}
              list={isOwnerColumn ? 'console-users' : undefined}
              inputMode={column.type === 'integer' ? 'numeric' : column.type === 'real' ? 'decimal' : undefined}
              onChange={(event) => edit(event.target.value)}
            />
          )}
          {column.nullable && !readOnly && (
            <label className="check check-null">
              <input type="checkbox" checked={state.isNull} onChange={(event) => onChange({ isNull: event.target.checked })} />
              null
            </label>
          )}
          {isOwnerColumn && <UserOptions />}
        </div>
      )}
    </Field>
  );
}

/** Suggestions for the owner column: the accounts, by email, so the owner need not copy ids around. */
function UserOptions() {
  const users = useUsers(0, 100);
  return (
    <datalist id="console-users">
      {users.data?.data.map((user) => (
        <option key={user.id} value={user.id} label={user.email} />
      ))}
    </datalist>
  );
}
