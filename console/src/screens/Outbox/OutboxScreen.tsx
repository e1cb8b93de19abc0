import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { OUTBOX_STATUSES, type OutboxStatus } from '@basalt/contract';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { OffsetPager } from '../../components/OffsetPager';
import { Empty } from '../../components/States';
import { client } from '../../api';
import { describeError } from '../../errors';
import { keys, useAdminSettings, useOutbox } from '../../queries';
import { OutboxRows } from './OutboxRows';
import './outbox.css';

const PAGE_SIZE = 50;
const COLUMNS: readonly HeadColumn[] = [
  { label: 'Status' },
  { label: 'Kind' },
  { label: 'To' },
  { label: 'Attempts', numeric: true },
  { label: 'Last error' },
  { label: 'Created' },
  ACTIONS_COLUMN,
];

/** Every mail Basalt sends goes through the outbox; without SMTP the owner passes on links and codes from here. */
export function OutboxScreen() {
  const [status, setStatus] = useState<OutboxStatus | undefined>(undefined);
  const [offset, setOffset] = useState(0);
  const mails = useOutbox({ ...(status ? { status } : {}), offset, limit: PAGE_SIZE });
  const settings = useAdminSettings();
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: (id: string) => client.admin.retryMail(id),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.allOutbox }),
  });
  const unsentHere = settings.data && !settings.data.smtp.configured;

  return (
    <section className="page">
      <div className="page-header">
        <h1>Outbox</h1>
        <div className="toolbar-actions">
          {mails.data && <span className="muted">{mails.data.total} mails</span>}
          <label className="inline-field">
            Status
            <select
              value={status ?? ''}
              onChange={(event) => {
                setStatus(OUTBOX_STATUSES.find((value) => value === event.target.value));
                setOffset(0);
              }}
            >
              <option value="">all</option>
              {OUTBOX_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {unsentHere ? (
        <p className="notice notice-warning">
          No SMTP server is configured (<code>SMTP_URL</code>), so no mail leaves: each one waits here as <strong>unsent</strong>. Copy its link
          or code and pass it on yourself.
        </p>
      ) : (
        <p className="muted">Mails are sent in the background and retried for 24 hours; a sent mail’s link and code are no longer kept.</p>
      )}
      {retry.isError && (
        <p className="form-error" role="alert">
          {describeError(retry.error)}
        </p>
      )}
      <ListState
        query={mails}
        pendingLabel="Loading the outbox…"
        isEmpty={(page) => page.total === 0}
        empty={
          <Empty title={status ? `No ${status} mail` : 'No mail yet'}>
            <p>
              Verification, recovery, sign-in, invitation and test mails are listed here, newest first. Without <code>SMTP_URL</code> they are
              not sent: they wait here, and you copy a mail’s link or code from this screen.
            </p>
          </Empty>
        }
      >
        {(page) => (
          <>
            <div className="table-scroll card card-flush">
              <table className="data-table outbox-table" aria-label="Outbox">
                <DataTableHead columns={COLUMNS} />
                <tbody>
                  <OutboxRows mails={page.data} columns={COLUMNS.length} retrying={retry.isPending ? retry.variables : undefined} onRetry={(id) => retry.mutate(id)} />
                </tbody>
              </table>
            </div>
            <OffsetPager offset={offset} pageSize={PAGE_SIZE} shown={page.data.length} total={page.total} onOffset={setOffset} />
          </>
        )}
      </ListState>
    </section>
  );
}
