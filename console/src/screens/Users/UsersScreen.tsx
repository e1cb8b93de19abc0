import { useState } from 'react';
import { Empty, ErrorState, Loading } from '../../components/States';
import { useUsers } from '../../queries';
import { useUserActions } from './UserActions';

const PAGE_SIZE = 50;
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function UsersScreen() {
  const [offset, setOffset] = useState(0);
  const users = useUsers(offset, PAGE_SIZE);
  const actions = useUserActions();

  return (
    <section className="page">
      <div className="page-header">
        <h1>Users</h1>
        {users.data && <span className="muted">{users.data.total} accounts</span>}
      </div>
      <p className="muted">Accounts sign up through the API (<code>POST /auth/signup</code>); the first one is the project owner.</p>
      {actions.panels}
      {users.isPending ? (
        <Loading label="Loading users…" />
      ) : users.isError ? (
        <ErrorState error={users.error} onRetry={() => void users.refetch()} />
      ) : users.data.total === 0 ? (
        <Empty title="No users yet" />
      ) : (
        <>
          <div className="table-scroll card card-flush">
            <table className="data-table" aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                  <th scope="col">Id</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.data.data.map((user) => (
                  <tr key={user.id}>
                    <th scope="row">{user.email}</th>
                    <td>
                      <span className={`badge badge-role-${user.role}`}>{user.role}</span>
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
                ))}
              </tbody>
            </table>
          </div>
          {users.data.total > PAGE_SIZE && (
            <div className="pager">
              <span className="pager-status">
                {offset + 1}–{offset + users.data.data.length} of {users.data.total}
              </span>
              <div className="pager-buttons">
                <button type="button" className="button button-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                  Previous
                </button>
                <button
                  type="button"
                  className="button button-small"
                  disabled={offset + PAGE_SIZE >= users.data.total}
                  onClick={() => setOffset(offset + PAGE_SIZE)}
                >
                  Next
                </button>
              </div>
            </div>
          )}
        </>
      )}
    </section>
  );
}
