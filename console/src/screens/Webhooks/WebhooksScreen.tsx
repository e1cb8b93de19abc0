import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Webhook, WebhookInput } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useWebhooks } from '../../queries';
import { SecretCallout, type ShownSecret } from './SecretCallout';
import { WebhookCard } from './WebhookCard';
import { WebhookForm } from './WebhookForm';
import { newWebhookDraft } from './webhookDraft';
import './webhooks.css';

/** The owner's webhooks: every committed change of chosen tables POSTed, signed, to a URL, retried for 24 hours. */
export function WebhooksScreen() {
  const queryClient = useQueryClient();
  const webhooks = useWebhooks();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const create = useMutation({
    mutationFn: (input: WebhookInput) => client.admin.webhooks.create(input),
    onSuccess: (webhook) => {
      setCreating(false);
      setSecret({ webhook, rotated: false });
      void queryClient.invalidateQueries({ queryKey: keys.webhooks });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => client.admin.webhooks.remove(id),
    onSuccess: ({ id }) => {
      setDeleting(null);
      if (secret?.webhook.id === id) setSecret(null);
      queryClient.removeQueries({ queryKey: keys.allDeliveries(id) });
      void queryClient.invalidateQueries({ queryKey: keys.webhooks });
    },
  });
  const startCreating = () => {
    create.reset();
    setCreating(true);
  };

  return (
    <section className="page">
      <div className="page-header">
        <h1>Webhooks</h1>
        {!creating && (
          <button type="button" className="button button-primary" onClick={startCreating}>
            New webhook
          </button>
        )}
      </div>
      <p className="muted">
        Every committed change of the tables a webhook follows (through the API, the console or psql) is POSTed to its URL, signed with its
        secret, and retried for 24 hours; each delivery is listed under the webhook&rsquo;s Deliveries.
      </p>
      {secret && <SecretCallout shown={secret} onDone={() => setSecret(null)} />}
      {creating && (
        <WebhookForm
          title="New webhook"
          initial={newWebhookDraft()}
          submitLabel="Create webhook"
          pendingLabel="Creating…"
          pending={create.isPending}
          error={create.error}
          onSubmit={(input) => create.mutate(input)}
          onCancel={() => setCreating(false)}
        />
      )}
      <ListState
        query={webhooks}
        pendingLabel="Loading webhooks…"
        isEmpty={(list) => list.length === 0}
        empty={
          !creating && (
            <Empty title="No webhooks yet">
              <p>A webhook sends another service each insert, update and delete of the tables you choose, as it happens.</p>
              <button type="button" className="button button-primary" onClick={startCreating}>
                Create your first webhook
              </button>
            </Empty>
          )
        }
      >
        {(list) => (
          <ul className="webhook-list" aria-label="Webhooks">
            {list.map((webhook) => (
              <WebhookCard
                key={webhook.id}
                webhook={webhook}
                onSecret={(next) => setSecret({ webhook: next, rotated: true })}
                onDelete={(chosen) => {
                  remove.reset();
                  setDeleting(chosen);
                }}
              />
            ))}
          </ul>
        )}
      </ListState>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the webhook to ${deleting?.url ?? ''}?`}
        confirmLabel="Delete webhook"
        busy={remove.isPending}
        error={remove.isError ? describeError(remove.error) : undefined}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      >
        <p>Changes stop going to this URL, and its deliveries not yet made are dropped with it. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
