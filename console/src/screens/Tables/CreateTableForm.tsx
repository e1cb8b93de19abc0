import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PRESET_POLICIES, POLICY_SUMMARIES, type CreateTableInput, type Policy } from '@basalt/contract';
import { client } from '../../api';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { useFieldErrors } from '../../components/useFieldErrors';
import { fieldOfError, splitError, type FieldErrors } from '../../errors';
import { keys, useTables } from '../../queries';
import { navigate, tablePath } from '../../router';
import { BucketFields } from './BucketFields';
import { newBucketDraft, type BucketDraft } from './bucketRules';
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
  // A bucket (kind files) when set: its rows are files, the columns below are its metadata.
  const [bucket, setBucket] = useState<BucketDraft | null>(null);
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

  const refusedField = fieldOfError(create.error);
  const fieldNames = ['name', 'policy', 'maxFileSize', 'allowedTypes', ...drafts.flatMap((_, i) => ['name', 'type', 'default', 'nullable', 'unique', 'references'].map((f) => `columns.${i}.${f}`))];
  // `columns.2.references.table` and `.onDelete` belong on the column's References field.
  const server = splitError(create.error, fieldNames, Object.fromEntries([
    ...drafts.flatMap((_, i) => ['table', 'onDelete'].map((f) => [`columns.${i}.references.${f}`, `columns.${i}.references`])),
    // `allowedTypes.3`: one field holds them all.
    ...(refusedField?.startsWith('allowedTypes.') ? [[refusedField, 'allowedTypes']] : []),
  ]));
  const shown = useFieldErrors();
  const errors = shown.visible({ ...server.fields, ...checked });
  const automatic = defaultPolicy(drafts.map((draft) => draft.name.trim()), bucket !== null);
  const shownPolicy = policy || automatic;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const result = checkCreateTable(name, drafts, policy, bucket ?? undefined);
    setChecked(result.errors);
    shown.reset();
    if (result.input) create.mutate(result.input);
  };

  const update = (index: number, draft: ColumnDraft) => {
    setDrafts((current) => current.map((d, i) => (i === index ? draft : d)));
    shown.markEdited(`columns.${index}`);
  };

  const chooseKind = (files: boolean) => {
    if (files === (bucket !== null)) return;
    setBucket(files ? newBucketDraft() : null);
    // A bucket needs no column of its own: the untouched empty row the form starts with goes.
    if (files) setDrafts((current) => current.filter((draft) => draft.name.trim() !== '' || draft.defaultText !== '' || draft.referencesTable !== ''));
    shown.markEdited('columns');
  };

  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="create-table-title">
      <h2 id="create-table-title">New table</h2>
      <fieldset className="kind-options">
        <legend>Kind</legend>
        <label className="check">
          <input type="radio" name="table-kind" checked={bucket === null} onChange={() => chooseKind(false)} />
          Records
        </label>
        <label className="check">
          <input type="radio" name="table-kind" checked={bucket !== null} onChange={() => chooseKind(true)} />
          Files (bucket)
        </label>
      </fieldset>
      {bucket ? (
        <p className="muted">
          A bucket&rsquo;s rows are files, uploaded through <code>/files/&lt;name&gt;</code>. Every bucket gets <code>id</code>,{' '}
          <code>name</code>, <code>type</code>, <code>size</code>, <code>sha256</code>, <code>user_id</code> (the uploader, its
          owner column), <code>createdAt</code> and <code>updatedAt</code>, set by uploads; columns here are extra metadata.
        </p>
      ) : (
        <p className="muted">
          Every table also gets <code>id</code> (text, primary key), <code>createdAt</code> and <code>updatedAt</code>. A text
          column named <code>user_id</code> or <code>userId</code> makes the table owner-scoped by default.
        </p>
      )}
      <Field label="Table name" error={errors.name}>
        {(control) => (
          <input {...control} value={name} spellCheck={false} autoCapitalize="off" placeholder={bucket ? 'e.g. photos' : 'e.g. todos'} onChange={(event) => {
              setName(event.target.value);
              shown.markEdited('name');
            }}
          />
        )}
      </Field>

      {bucket && (
        <BucketFields
          draft={bucket}
          errors={errors}
          onChange={(patch, field) => {
            setBucket((current) => (current ? { ...current, ...patch } : current));
            shown.markEdited(field);
          }}
        />
      )}

      <h3>{bucket ? 'Metadata columns' : 'Columns'}</h3>
      {drafts.length === 0 && <p className="muted">{bucket ? 'None: a bucket needs none besides its file columns.' : 'No columns besides id, createdAt and updatedAt.'}</p>}
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
      <FormActions pending={create.isPending} submitLabel={bucket ? 'Create bucket' : 'Create table'} pendingLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
