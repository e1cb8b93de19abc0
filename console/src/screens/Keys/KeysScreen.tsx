import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { API_KEY_NAME_MAX_LENGTH, type ApiKeyAccess, type ApiKeyInfo, type CreatedApiKey } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty, FormError } from '../../components/States';
import { describeError, splitError } from '../../errors';
import { keys, useApiKeys } from '../../queries';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const when = (iso: string | null, none: string) => (iso ? dateTime.format(new Date(iso)) : none);
const COLUMNS: readonly HeadColumn[] = [{ label: 'Name' }, { label: 'Access' }, { label: 'Created' }, { label: 'Expires' }, { label: 'Last used' }, ACTIONS_COLUMN];

/** The owner's own API keys: for scripts and servers that act as the owner on /api (never on /admin). */
export function KeysScreen() {
  const queryClient = useQueryClient();
  const list = useApiKeys();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyInfo | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => client.auth.keys.revoke(id),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: keys.apiKeys });
    },
  });

  return (
    <section className="page">
      <div className="page-header">
        <h1>API keys</h1>
      </div>
      <p className="muted">
        A key acts as you on <code>/api</code> under the same policies, for scripts and servers: send it as{' '}
        <code>Authorization: Bearer bsk_…</code>. A <strong>read</strong> key writes nothing. Keys never open <code>/admin</code>.
      </p>
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          void queryClient.invalidateQueries({ queryKey: keys.apiKeys });
        }}
      />
      <ListState query={list} pendingLabel="Loading keys…" isEmpty={(apiKeys) => apiKeys.length === 0} empty={<Empty title="No API keys yet" />}>
        {(apiKeys) => (
          <div className="table-scroll card card-flush">
            <table className="data-table" aria-label="API keys">
              <DataTableHead columns={COLUMNS} />
              <tbody>
                {apiKeys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row">{key.name}</th>
                    <td>
                      <span className="tag">{key.access}</span>
                    </td>
                    <td>{when(key.createdAt, '')}</td>
                    <td>{when(key.expiresAt, 'never')}</td>
                    <td>{when(key.lastUsedAt, 'not yet')}</td>
                    <td className="row-actions">
                      <button type="button" className="button button-small button-danger-quiet" onClick={() => {
                          revoke.reset();
                          setRevoking(key);
                        }}>
                        Revoke<span className="visually-hidden"> key {key.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the key ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke key"
        busy={revoke.isPending}
        error={revoke.isError ? describeError(revoke.error) : undefined}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
      >
        <p>Every request with this key is refused from now on, by every server process.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The key, shown this once. */
function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <div className="card callout" role="status" aria-label="New API key">
      <p>
        <strong>Copy the key {created.name} now:</strong> it is shown only this once.
      </p>
      <div className="copy-line">
        <code className="secret" data-testid="new-api-key">{created.key}</code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <button type="button" className="button button-small" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [access, setAccess] = useState<ApiKeyAccess>('read');
  const [expires, setExpires] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: () => client.auth.keys.create({ name: name.trim(), access, ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}) }),
    onSuccess: (key) => {
      setName('');
      setExpires('');
      onCreated(key);
    },
  });
  const server = splitError(create.error, ['name', 'access', 'expiresAt']);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const local = !trimmed ? 'Name the key after what will use it.' : trimmed.length > API_KEY_NAME_MAX_LENGTH ? `Use at most ${API_KEY_NAME_MAX_LENGTH} characters.` : undefined;
    setProblem(local);
    if (!local) create.mutate();
  };
  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div className="form-row">
        <Field label="Name" error={problem ?? server.fields.name}>
          {(control) => <input {...control} value={name} placeholder="e.g. nightly export" onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Access" error={server.fields.access}>
          {(control) => (
            <select {...control} value={access} onChange={(event) => setAccess(event.target.value as ApiKeyAccess)}>
              <option value="read">read</option>
              <option value="read-write">read-write</option>
            </select>
          )}
        </Field>
        <Field label="Expires" error={server.fields.expiresAt} hint="Optional: the end of this day.">
          {(control) => <input {...control} type="date" value={expires} onChange={(event) => setExpires(event.target.value)} />}
        </Field>
      </div>
      <FormError message={server.form} />
      <FormActions pending={create.isPending} submitLabel="Create key" pendingLabel="Creating…" />
    </form>
  );
}
