import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeliveryStatus } from '@basalt/contract';
import { client } from '../../api';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useDeliveries } from '../../queries';
import { DeliveryRows } from './DeliveryRows';

const PAGE_SIZE = 50;
/** The filter's order: what waits first, then what is settled. */
const STATUSES: readonly DeliveryStatus[] = ['pending', 'failed', 'delivered', 'dead'];
const COLUMNS: readonly HeadColumn[] = [
  { label: 'Status' },
  { label: 'Change' },
  { label: 'Attempts', numeric: true },
  { label: 'Last status', numeric: true },
  { label: 'Last error' },
  { label: 'Latency', numeric: true },
  { label: 'Time' },
  ACTIONS_COLUMN,
];

/** A webhook's deliveries, newest first, by status, a page at a time (the server's `next` cursor). */
export function DeliveriesPanel({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<DeliveryStatus | undefined>(undefined);
  // The cursors of the pages before this one: the last is this page's `before`.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const deliveries = useDeliveries(webhookId, { ...(status ? { status } : {}), limit: PAGE_SIZE, ...(before ? { before } : {}) });
  const older = (next: string | null) => {
    if (next) setCursors((current) => [...current, next]);
  };
  const retry = useMutation({
    mutationFn: (id: string) => client.admin.webhooks.retry(webhookId, id),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.allDeliveries(webhookId) }),
  });

  return (
    <section className="card card-flush" aria-labelledby="deliveries-title">
      <div className="card-header">
        <h2 id="deliveries-title">Deliveries</h2>
        <div className="toolbar-actions">
          <label className="inline-field">
            Status
            <select
              value={status ?? ''}
              onChange={(event) => {
                setStatus(STATUSES.find((value) => value === event.target.value));
                setCursors([]);
              }}
            >
              <option value="">all</option>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="button button-small" onClick={() => void deliveries.refetch()}>
            Refresh
          </button>
        </div>
      </div>
      {retry.isError && (
        <p className="form-error webhook-panel-message" role="alert">
          {describeError(retry.error)}
        </p>
      )}
      <ListState
        query={deliveries}
        pendingLabel="Loading deliveries…"
        isEmpty={(page) => page.data.length === 0 && cursors.length === 0}
        empty={
          <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
            <p>Each change of the webhook&rsquo;s tables is listed here once it is queued, with its attempts and the receiver&rsquo;s answer.</p>
          </Empty>
        }
      >
        {(page) => (
          <>
            <div className="table-scroll">
              <table className="data-table deliveries-table" aria-label="Deliveries">
                <DataTableHead columns={COLUMNS} />
                <tbody>
                  <DeliveryRows
                    deliveries={page.data}
                    columns={COLUMNS.length}
                    retrying={retry.isPending ? retry.variables : undefined}
                    onRetry={(id) => retry.mutate(id)}
                  />
                </tbody>
              </table>
            </div>
            {(cursors.length > 0 || page.next) && (
              <nav className="pager" aria-label="Pages of deliveries">
                <span className="pager-status">{cursors.length === 0 ? 'The newest' : `Page ${cursors.length + 1}`}</span>
                <div className="pager-buttons">
                  <button type="button" className="button button-small" disabled={cursors.length === 0} onClick={() => setCursors([])}>
                    Newest
                  </button>
                  <button type="button" className="button button-small" disabled={cursors.length === 0} onClick={() => setCursors((current) => current.slice(0, -1))}>
                    Newer
                  </button>
                  <button type="button" className="button button-small" disabled={!page.next} onClick={() => older(page.next)}>
                    Older
                  </button>
                </div>
              </nav>
            )}
          </>
        )}
      </ListState>
    </section>
  );
}
