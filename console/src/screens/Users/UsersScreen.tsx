import { useState } from 'react';
import { ACTIONS_COLUMN, DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { useUsers } from '../../queries';
import { useUserActions } from './UserActions';

const PAGE_SIZE = 50;
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const COLUMNS: readonly HeadColumn[] = [{ label: 'Email' }, { label: 'Role' }, { label: 'Created' }, { label: 'Id' }, ACTIONS_COLUMN];

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
      <ListState query={users} pendingLabel="Loading users…" isEmpty={(page) => page.total === 0} empty={<Empty title="No users yet" />}>
        {(page) => (
          <>
            <div className="table-scroll card card-flush">
              <table className="data-table" aria-label="Users">
                <DataTableHead columns={COLUMNS} />
                <tbody>
                  {page.data.map((user) => (
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
            {page.total > PAGE_SIZE && (
              <div className="pager">
                <span className="pager-status">
                  {offset + 1}–{offset + page.data.length} of {page.total}
                </span>
                <div className="pager-buttons">
                  <button type="button" className="button button-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                    Previous
                  </button>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={offset + PAGE_SIZE >= page.total}
                    onClick={() => setOffset(offset + PAGE_SIZE)}
                  >
                    Next
                  </button>
                </div>
              </div>
            )}
          </>
        )}
      </ListState>
    </section>
  );
}
