import { useState } from 'react';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { MailNotice } from '../../components/MailNotice';
import { OffsetPager } from '../../components/OffsetPager';
import { Empty } from '../../components/States';
import { useUsers } from '../../queries';
import { InviteForm } from './InviteForm';
import { useUserActions } from './UserActions';
import { SignInMethods } from './SignInMethods';
import { verificationOf } from './verification';

const PAGE_SIZE = 50;
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const COLUMNS: readonly HeadColumn[] = [
  { label: 'Email' },
  { label: 'Role' },
  { label: 'Email verified', key: 'verified' },
  { label: 'Sign-in' },
  { label: 'Created' },
  { label: 'Id' },
  ACTIONS_COLUMN,
];

export function UsersScreen() {
  const [offset, setOffset] = useState(0);
  const users = useUsers(offset, PAGE_SIZE);
  const actions = useUserActions();
  const [inviting, setInviting] = useState(false);
  const [invited, setInvited] = useState<string | null>(null);

  return (
    <section className="page">
      <div className="page-header">
        <h1>Users</h1>
        <div className="toolbar-actions">
          {users.data && <span className="muted">{users.data.total} accounts</span>}
          {!inviting && (
            <button type="button" className="button button-primary" onClick={() => {
                setInvited(null);
                setInviting(true);
              }}>
              Invite
            </button>
          )}
        </div>
      </div>
      <p className="muted">
        Accounts sign up through the API (<code>POST /auth/signup</code>), or join by an invitation sent from here; the first one is the
        project owner.
      </p>
      {inviting && (
        <InviteForm
          onCancel={() => setInviting(false)}
          onInvited={(email) => {
            setInviting(false);
            setInvited(email);
          }}
        />
      )}
      {invited && <MailNotice onDismiss={() => setInvited(null)}>The invitation to {invited} is queued.</MailNotice>}
      {actions.panels}
      <ListState query={users} pendingLabel="Loading users…" isEmpty={(page) => page.total === 0} empty={<Empty title="No users yet" />}>
        {(page) => (
          <>
            <div className="table-scroll card card-flush">
              <table className="data-table" aria-label="Users">
                <DataTableHead columns={COLUMNS} />
                <tbody>
                  {page.data.map((user) => {
                    const verification = verificationOf(user);
                    return (
                      <tr key={user.id}>
                        <th scope="row">{user.email}</th>
                        <td>
                          <span className={`badge badge-role-${user.role}`}>{user.role}</span>
                        </td>
                        <td>
                          <span className={`badge badge-${verification === 'verified' ? 'verified' : 'unverified'}`}>{verification}</span>
                        </td>
                        <td>
                          <SignInMethods user={user} />
                        </td>
                        <td>
                          <time dateTime={user.createdAt} title={user.createdAt}>
                            {dateTime.format(new Date(user.createdAt))}
                          </time>
                        </td>
                        <td>
                          <code className="muted">{user.id}</code>
                        </td>
                        <td className="row-actions">{actions.buttons(user)}</td>
                      </tr>
                    );
                  })}
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
