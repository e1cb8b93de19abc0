import { useEffect, useRef } from 'react';
import type { WebhookWithSecret } from '@basalt/contract';
import { CopyButton } from '../../components/CopyButton';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export interface ShownSecret {
  webhook: WebhookWithSecret;
  /** Made by a rotation: the previous secret still signs for a while. */
  rotated: boolean;
}

/**
 * A webhook's secret, shown this once (after creating the webhook, or rotating its secret): the receiver checks every
 * delivery's signature with it. It takes the focus, so a keyboard or screen reader user lands on it.
 */
export function SecretCallout({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const { webhook, rotated } = shown;
  useEffect(() => ref.current?.focus(), [webhook.secret]);
  return (
    <div ref={ref} tabIndex={-1} className="card callout webhook-secret" role="status" aria-label="Webhook secret">
      <p>
        <strong>Copy the {rotated ? 'new ' : ''}secret now: it will not be shown again.</strong> The receiver at{' '}
        <code className="webhook-url">{webhook.url}</code> checks each delivery&rsquo;s signature with it.
      </p>
      <div className="copy-line">
        <code className="secret" data-testid="webhook-secret">
          {webhook.secret}
        </code>
        <CopyButton text={webhook.secret} label="Copy secret" />
      </div>
      {rotated && webhook.previousSecretUntil && (
        <p className="muted">
          Deliveries are signed with both secrets until {dateTime.format(new Date(webhook.previousSecretUntil))}: switch the receiver over
          before then.
        </p>
      )}
      <button type="button" className="button button-small" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
