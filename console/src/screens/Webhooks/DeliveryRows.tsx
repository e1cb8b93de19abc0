import type { DeliveryStatus, WebhookDelivery } from '@basalt/contract';

const time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

const STATUS_MEANING: Record<DeliveryStatus, string> = {
  pending: 'Not tried yet, or being tried now',
  failed: 'Tried and refused: tried again at its next attempt',
  delivered: 'The receiver answered 2xx',
  dead: 'Given up after 24 hours of attempts: kept for a manual retry',
};

interface DeliveryRowsProps {
  deliveries: WebhookDelivery[];
  columns: number;
  /** The id of the delivery being retried now. */
  retrying: string | undefined;
  onRetry: (id: string) => void;
}

/** One row per delivery, and under it a row whose payload opens on demand. */
export function DeliveryRows({ deliveries, columns, retrying, onRetry }: DeliveryRowsProps) {
  return (
    <>
      {deliveries.map((delivery) => (
        <Delivery key={delivery.id} delivery={delivery} columns={columns} retrying={retrying === delivery.id} onRetry={() => onRetry(delivery.id)} />
      ))}
    </>
  );
}

/** The row a change was about (truncate: none). */
function rowIdOf(delivery: WebhookDelivery): string | undefined {
  const id = (delivery.payload.record ?? delivery.payload.old)?.id;
  return id === undefined || id === null ? undefined : String(id);
}

function Delivery({ delivery, columns, retrying, onRetry }: { delivery: WebhookDelivery; columns: number; retrying: boolean; onRetry: () => void }) {
  const rowId = rowIdOf(delivery);
  const change = `${delivery.type} of ${delivery.table}${rowId !== undefined ? ` ${rowId}` : ''}`;
  const none = <span className="muted">—</span>;
  return (
    <>
      <tr className="delivery">
        <td>
          <span className={`badge badge-${delivery.status}`} title={STATUS_MEANING[delivery.status]}>
            {delivery.status}
          </span>
        </td>
        <th scope="row" className="delivery-change">
          {delivery.type} <span className="muted">of</span> {delivery.table}
          {rowId !== undefined && (
            <>
              {' '}
              <code className="delivery-row-id">{rowId}</code>
            </>
          )}
        </th>
        <td className="numeric">{delivery.attempts}</td>
        <td className="numeric">{delivery.lastStatus ?? none}</td>
        <td className="delivery-error">{delivery.lastError ?? none}</td>
        <td className="numeric">{delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : none}</td>
        <td className="delivery-time">
          <time dateTime={delivery.changedAt} title={`Changed at ${delivery.changedAt}`}>
            {time.format(new Date(delivery.changedAt))}
          </time>
          {delivery.status === 'failed' && delivery.nextAttemptAt && <span className="muted"> next try {clock.format(new Date(delivery.nextAttemptAt))}</span>}
        </td>
        <td className="row-actions">
          {delivery.status !== 'pending' && (
            <button type="button" className="button button-small" disabled={retrying} onClick={onRetry}>
              {retrying ? 'Sending…' : delivery.status === 'delivered' ? 'Send again' : 'Retry'}
              <span className="visually-hidden"> the {change}</span>
            </button>
          )}
        </td>
      </tr>
      <tr className="delivery-payload">
        <td colSpan={columns}>
          <details>
            <summary>
              Payload<span className="visually-hidden"> of the {change}</span> <code className="muted">{delivery.id}</code>
            </summary>
            {/* Focusable: a long payload scrolls, by keyboard too. */}
            <pre className="delivery-json" tabIndex={0} role="region" aria-label={`Payload of the ${change}`}>
              {JSON.stringify(delivery.payload, null, 2)}
            </pre>
          </details>
        </td>
      </tr>
    </>
  );
}
