import { isApiError, type Webhook } from '@basalt/client';
import { ListState } from '../../components/ListState';
import { describeError } from '../../errors';
import { useWebhook } from '../../queries';
import { Link } from '../../router';
import { DeliveriesPanel } from './DeliveriesPanel';
import { ReplayForm } from './ReplayForm';
import { tablesText } from './webhookDraft';
import './webhooks.css';

/** One webhook's deliveries, newest first, with a retry for each, and a replay of the changes since a time. */
export function WebhookScreen({ id }: { id: string }) {
  const webhook = useWebhook(id);
  return (
    <ListState
      query={webhook}
      pendingLabel="Loading the webhook…"
      explainError={(error) =>
        isApiError(error) && (error.code === 'NOT_FOUND' || error.status === 400) ? (
          <section className="page">
            <h1>No such webhook</h1>
            <p>
              {describeError(error)} <Link to="webhooks">Back to the webhooks</Link>.
            </p>
          </section>
        ) : undefined
      }
    >
      {(found) => <WebhookPage webhook={found} />}
    </ListState>
  );
}

function WebhookPage({ webhook }: { webhook: Webhook }) {
  return (
    <section className="page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="webhooks">Webhooks</Link> <span aria-hidden="true">/</span>
      </nav>
      <div className="page-header">
        <h1>Webhook</h1>
        <div className="page-meta">
          <span className={`badge ${webhook.enabled ? 'badge-enabled' : 'badge-disabled'}`}>{webhook.enabled ? 'enabled' : 'disabled'}</span>
        </div>
      </div>
      <p className="webhook-summary">
        To <code className="webhook-url">{webhook.url}</code>: {webhook.events.join(', ')} of {tablesText(webhook.tables)}
        {webhook.filter && (
          <>
            {' '}
            where <code>{webhook.filter}</code>
          </>
        )}
        .
      </p>
      {!webhook.enabled && (
        <p className="notice notice-warning">This webhook is disabled: changes made meanwhile are skipped, and its waiting deliveries wait.</p>
      )}
      <DeliveriesPanel webhookId={webhook.id} />
      <ReplayForm webhookId={webhook.id} />
    </section>
  );
}
