import type { ReactNode } from 'react';
import { useAdminSettings } from '../queries';
import { Link } from '../router';

/**
 * Says where a mail the owner just had sent went: on its way through SMTP, or, without SMTP_URL, into the outbox,
 * where its link and code wait to be copied.
 */
export function MailNotice({ children, onDismiss }: { children: ReactNode; onDismiss: () => void }) {
  const settings = useAdminSettings();
  const unsent = settings.data && !settings.data.smtp.configured;
  return (
    <div className="notice mail-notice" role="status">
      <p>
        {children}{' '}
        {unsent ? (
          <>
            No SMTP server is configured, so it waits in the <Link to="outbox">Outbox</Link>: copy its link or code from there.
          </>
        ) : (
          <>
            It leaves in the background; the <Link to="outbox">Outbox</Link> shows how it went.
          </>
        )}
      </p>
      <button type="button" className="button button-small" onClick={onDismiss}>
        Done
      </button>
    </div>
  );
}
