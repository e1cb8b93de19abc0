import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Webhook, WebhookInput, WebhookWithSecret } from '@basalt/contract';
import { client } from '../../api';
import { FormError } from '../../components/States';
import { describeError } from '../../errors';
import { keys } from '../../queries';
import { Link, webhookPath } from '../../router';
import { WebhookForm } from './WebhookForm';
import { changeOf, draftOf, tablesText } from './webhookDraft';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

interface WebhookCardProps {
  webhook: Webhook;
  onSecret: (webhook: WebhookWithSecret) => void;
  onDelete: (webhook: Webhook) => void;
}

/** One webhook: what it sends where, and what the owner does with it; Edit turns the card into its form. */
export function WebhookCard({ webhook, onSecret, onDelete }: WebhookCardProps) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const saved = (next: Webhook) => {
    queryClient.setQueryData(keys.webhook(next.id), next);
    void queryClient.invalidateQueries({ queryKey: keys.webhooks });
  };
  const update = useMutation({
    mutationFn: (change: Partial<WebhookInput>) => client.admin.webhooks.update(webhook.id, change),
    onSuccess: (next) => {
      setEditing(false);
      saved(next);
    },
  });
  const toggle = useMutation({ mutationFn: () => client.admin.webhooks.update(webhook.id, { enabled: !webhook.enabled }), onSuccess: saved });
  const rotate = useMutation({
    mutationFn: () => client.admin.webhooks.rotateSecret(webhook.id),
    onSuccess: (next) => {
      saved(next);
      onSecret(next);
    },
  });
  const about = <span className="visually-hidden"> the webhook to {webhook.url}</span>;
  const failure = toggle.error ?? rotate.error;

  if (editing) {
    return (
      <li className="webhook-item">
        <WebhookForm
          title={`Edit the webhook to ${webhook.url}`}
          initial={draftOf(webhook)}
          submitLabel="Save"
          pendingLabel="Saving…"
          pending={update.isPending}
          error={update.error}
          onCancel={() => setEditing(false)}
          onSubmit={(input) => {
            const change = changeOf(webhook, input);
            if (Object.keys(change).length === 0) setEditing(false);
            else update.mutate(change);
          }}
        />
      </li>
    );
  }

  return (
    <li className="webhook-item">
      <article className="card webhook-card" aria-label={`Webhook to ${webhook.url}`}>
        <div className="webhook-card-head">
          <h2 className="webhook-url">{webhook.url}</h2>
          <span className={`badge ${webhook.enabled ? 'badge-enabled' : 'badge-disabled'}`}>{webhook.enabled ? 'enabled' : 'disabled'}</span>
        </div>
        <dl className="webhook-facts">
          <dt>Tables</dt>
          <dd>{tablesText(webhook.tables)}</dd>
          <dt>Events</dt>
          <dd>{webhook.events.join(', ')}</dd>
          {webhook.filter && (
            <>
              <dt>Filter</dt>
              <dd>
                <code>{webhook.filter}</code>
              </dd>
            </>
          )}
          {Object.keys(webhook.headers).length > 0 && (
            <>
              <dt>Headers</dt>
              <dd>{Object.keys(webhook.headers).join(', ')}</dd>
            </>
          )}
          {webhook.previousSecretUntil && (
            <>
              <dt>Previous secret</dt>
              <dd>signs too until {dateTime.format(new Date(webhook.previousSecretUntil))}</dd>
            </>
          )}
        </dl>
        <FormError message={failure ? describeError(failure) : undefined} />
        <div className="toolbar-actions">
          <Link to={webhookPath(webhook.id)} className="button button-small">
            Deliveries<span className="visually-hidden"> of the webhook to {webhook.url}</span>
          </Link>
          <button type="button" className="button button-small" onClick={() => {
              update.reset();
              setEditing(true);
            }}>
            Edit{about}
          </button>
          <button type="button" className="button button-small" disabled={toggle.isPending} onClick={() => toggle.mutate()}>
            {webhook.enabled ? 'Disable' : 'Enable'}
            {about}
          </button>
          <button type="button" className="button button-small" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
            {rotate.isPending ? 'Rotating…' : 'Rotate secret'}
            <span className="visually-hidden"> of the webhook to {webhook.url}</span>
          </button>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => onDelete(webhook)}>
            Delete{about}
          </button>
        </div>
      </article>
    </li>
  );
}
