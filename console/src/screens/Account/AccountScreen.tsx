import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SessionInfo } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useSessions } from '../../queries';
import { IdentitiesSection } from './IdentitiesSection';
import { PasswordForm } from './PasswordForm';
import { TwoStepSection } from './TwoStepSection';
import './account.css';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const COLUMNS: readonly HeadColumn[] = [{ label: 'Device' }, { label: 'Signed in' }, { label: 'Last used' }, ACTIONS_COLUMN];

/**
 * The owner's own account: where they are signed in (one session per device), two-step sign-in, the identity
 * providers linked to it, and the password.
 */
export function AccountScreen() {
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const [ending, setEnding] = useState<SessionInfo | null>(null);
  const end = useMutation({
    mutationFn: (id: string) => client.auth.signOutSession(id),
    onSuccess: () => {
      setEnding(null);
      void queryClient.invalidateQueries({ queryKey: keys.sessions });
    },
  });

  return (
    <section className="page">
      <div className="page-header">
        <h1>Account</h1>
      </div>
      <section className="card card-flush" aria-labelledby="sessions-title">
        <div className="card-header">
          <h2 id="sessions-title">Signed-in devices</h2>
        </div>
        <ListState query={sessions} pendingLabel="Loading sessions…" isEmpty={(devices) => devices.length === 0} empty={<Empty title="No sessions" />}>
          {(devices) => (
            <div className="table-scroll">
              <table className="data-table" aria-label="Sessions">
                <DataTableHead columns={COLUMNS} />
                <tbody>
                  {devices.map((session) => (
                    <tr key={session.id}>
                      <th scope="row" className="cell-text" title={session.userAgent ?? ''}>
                        {session.userAgent ?? 'unknown device'}
                        {session.current && <span className="tag">this browser</span>}
                      </th>
                      <td>{dateTime.format(new Date(session.createdAt))}</td>
                      <td>{dateTime.format(new Date(session.lastUsedAt))}</td>
                      <td className="row-actions">
                        {!session.current && (
                          <button type="button" className="button button-small button-danger-quiet" onClick={() => {
                              end.reset();
                              setEnding(session);
                            }}>
                            Sign out<span className="visually-hidden"> device {session.id}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </ListState>
      </section>
      <TwoStepSection />
      <IdentitiesSection />
      <PasswordForm onChanged={() => void queryClient.invalidateQueries({ queryKey: keys.sessions })} />
      <ConfirmDialog
        open={ending !== null}
        title="Sign out this device?"
        confirmLabel="Sign out device"
        busy={end.isPending}
        error={end.isError ? describeError(end.error) : undefined}
        onCancel={() => setEnding(null)}
        onConfirm={() => ending && end.mutate(ending.id)}
      >
        <p>
          <code>{ending?.userAgent ?? 'This device'}</code> can no longer refresh its session; it is signed out within the hour its
          last token lives.
        </p>
      </ConfirmDialog>
    </section>
  );
}
