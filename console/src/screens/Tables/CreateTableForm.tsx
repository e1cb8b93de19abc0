import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PRESET_POLICIES, POLICY_SUMMARIES, type CreateTableInput, type Policy } from '@basalt/contract';
import { client } from '../../api';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { useFieldErrors } from '../../components/useFieldErrors';
import { splitError, type FieldErrors } from '../../errors';
import { keys, useTables } from '../../queries';
import { navigate, tablePath } from '../../router';
import { ColumnFields } from './ColumnFields';
import { checkCreateTable, defaultPolicy, newColumnDraft, referenceChoices, type ColumnDraft, type ColumnField } from './validation';

function columnErrors(errors: FieldErrors, index: number): Partial<Record<ColumnField, string>> {
  const prefix = `columns.${index}.`;
  return Object.fromEntries(
    Object.entries(errors)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, message]) => [key.slice(prefix.length), message]),
  );
}

export function CreateTableForm({ onCancel }: { onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [drafts, setDrafts] = useState<ColumnDraft[]>(() => [newColumnDraft()]);
  const [policy, setPolicy] = useState<Policy | ''>('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const tables = useTables();
  const references = referenceChoices(tables.data ?? [], { name: name.trim() });
  const create = useMutation({
    mutationFn: (input: CreateTableInput) => client.admin.tables.create(input),
    onSuccess: (table) => {
      queryClient.setQueryData(keys.table(table.name), table);
      void queryClient.invalidateQueries({ queryKey: keys.tables });
      void queryClient.invalidateQueries({ queryKey: keys.types });
      navigate(tablePath(table.name));
    },
  });

  const fieldNames = ['name', 'policy', ...drafts.flatMap((_, i) => ['name', 'type', 'default', 'nullable', 'unique', 'references'].map((f) => `columns.${i}.${f}`))];
  // `columns.2.references.table` and `.onDelete` belong on the column's References field.
  const server = splitError(create.error, fieldNames, Object.fromEntries(drafts.flatMap((_, i) => ['table', 'onDelete'].map((f) => [`columns.${i}.references.${f}`, `columns.${i}.references`]))));
  const shown = useFieldErrors();
  const errors = shown.visible({ ...server.fields, ...checked });
  const automatic = defaultPolicy(drafts.map((draft) => draft.name.trim()));
  const shownPolicy = policy || automatic;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const result = checkCreateTable(name, drafts, policy);
    setChecked(result.errors);
    shown.reset();
    if (result.input) create.mutate(result.input);
  };

  const update = (index: number, draft: ColumnDraft) => {
    setDrafts((current) => current.map((d, i) => (i === index ? draft : d)));
    shown.markEdited(`columns.${index}`);
  };

  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="create-table-title">
      <h2 id="create-table-title">New table</h2>
      <p className="muted">
        Every table also gets <code>id</code> (text, primary key), <code>createdAt</code> and <code>updatedAt</code>. A text
        column named <code>user_id</code> or <code>userId</code> makes the table owner-scoped by default.
      </p>
      <Field label="Table name" error={errors.name}>
        {(control) => (
          <input {...control} value={name} spellCheck={false} autoCapitalize="off" placeholder="e.g. todos" onChange={(event) => {
              setName(event.target.value);
              shown.markEdited('name');
            }}
          />
        )}
      </Field>

      <h3>Columns</h3>
      {drafts.length === 0 && <p className="muted">No columns besides id, createdAt and updatedAt.</p>}
      {drafts.map((draft, index) => (
        <fieldset key={draft.key} className="column-row">
          <legend>Column {index + 1}</legend>
          <ColumnFields draft={draft} errors={columnErrors(errors, index)} onChange={(next) => update(index, next)} references={references} />
          <button
            type="button"
            className="button button-small button-quiet"
            onClick={() => setDrafts((current) => current.filter((d) => d.key !== draft.key))}
          >
            Remove column {index + 1}
          </button>
        </fieldset>
      ))}
      <button type="button" className="button button-small" onClick={() => setDrafts((current) => [...current, newColumnDraft()])}>
        Add a column
      </button>

      <Field label="Policy" error={errors.policy} hint={POLICY_SUMMARIES[shownPolicy]}>
        {(control) => (
          <select {...control} value={policy} onChange={(event) => {
              setPolicy(event.target.value as Policy | '');
              shown.markEdited('policy');
            }}>
            <option value="">Automatic ({automatic})</option>
            {PRESET_POLICIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        )}
      </Field>

      <FormError message={server.form} />
      <FormActions pending={create.isPending} submitLabel="Create table" pendingLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
