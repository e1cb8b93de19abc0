import type { OutboxMail, OutboxStatus } from '@basalt/contract';
import { CopyButton } from '../../components/CopyButton';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const STATUS_MEANING: Record<OutboxStatus, string> = {
  queued: 'Waiting to be sent, or for its next attempt',
  sent: 'Accepted by the SMTP server',
  failed: 'Given up after 24 hours of attempts',
  unsent: 'Kept here: no SMTP server is configured',
};

interface OutboxRowsProps {
  mails: OutboxMail[];
  columns: number;
  /** The id of the mail being retried now. */
  retrying: string | undefined;
  onRetry: (id: string) => void;
}

/** One row per mail; an unsent mail's link and code in a row of their own under it, to copy and pass on. */
export function OutboxRows({ mails, columns, retrying, onRetry }: OutboxRowsProps) {
  return (
    <>
      {mails.map((mail) => (
        <MailRows key={mail.id} mail={mail} columns={columns} retrying={retrying === mail.id} onRetry={() => onRetry(mail.id)} />
      ))}
    </>
  );
}

interface MailRowsProps {
  mail: OutboxMail;
  columns: number;
  retrying: boolean;
  onRetry: () => void;
}

function MailRows({ mail, columns, retrying, onRetry }: MailRowsProps) {
  const proof = mail.link !== null || mail.code !== null;
  return (
    <>
      <tr className={proof ? 'outbox-mail outbox-mail-with-proof' : 'outbox-mail'}>
        <td>
          <span className={`badge badge-${mail.status}`} title={STATUS_MEANING[mail.status]}>
            {mail.status}
          </span>
        </td>
        <td>{mail.kind}</td>
        <th scope="row">{mail.to}</th>
        <td className="numeric">{mail.attempts}</td>
        <td className="outbox-error">{mail.lastError ?? <span className="muted">—</span>}</td>
        <td>
          <time dateTime={mail.createdAt} title={mail.createdAt}>
            {dateTime.format(new Date(mail.createdAt))}
          </time>
        </td>
        <td className="row-actions">
          {mail.status === 'queued' && (
            <button type="button" className="button button-small" disabled={retrying} onClick={onRetry}>
              {retrying ? 'Retrying…' : 'Retry'}
              <span className="visually-hidden"> the {mail.kind} mail to {mail.to}</span>
            </button>
          )}
        </td>
      </tr>
      {proof && (
        <tr className="outbox-proof">
          <td colSpan={columns}>
            <div className="outbox-proof-items" role="group" aria-label={`Link and code of the ${mail.kind} mail to ${mail.to}`}>
              {mail.link !== null && (
                <div className="copy-line">
                  <span className="outbox-proof-label">Link</span>
                  <code className="secret" data-testid="outbox-link">
                    {mail.link}
                  </code>
                  <CopyButton text={mail.link} label="Copy link" />
                </div>
              )}
              {mail.code !== null && (
                <div className="copy-line">
                  <span className="outbox-proof-label">Code</span>
                  <code className="secret" data-testid="outbox-code">
                    {mail.code}
                  </code>
                  <CopyButton text={mail.code} label="Copy code" />
                </div>
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
