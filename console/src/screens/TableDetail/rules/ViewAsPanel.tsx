import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MAX_LIMIT, TIMESTAMP_COLUMNS, type TableInfo } from '@basalt/contract';
import { isApiError } from '@basalt/client';
import { ListState } from '../../../components/ListState';
import { Empty } from '../../../components/States';
import { AS_ANON as ANON } from '@basalt/contract';
import { client } from '../../../api';

/** `as`: a user's id, or anon. */
type Caller = string;
import { keys, useUsers } from '../../../queries';
import { formatCell, recordId } from '../../Records/values';
import { RuleCheckForm, useRuleCheck } from './RuleCheckForm';

/** Rows listed of a caller's view: enough to recognise it; the total says how many there are. */
const VIEW_ROWS = 10;
/** Columns shown of each row besides the id: the row is picked here, read in full in the grid above. */
const VIEW_COLUMNS = 3;

/**
 * The table as one caller sees it through the API (a user, or anon), whatever the policy: the rows they may read
 * (`GET /admin/tables/:name/records?as=`), and whether they may read, create, update or delete a given row and why
 * (`POST /admin/tables/:name/rules/check`). Nothing is asked until a caller is chosen.
 */
export function ViewAsPanel({ table }: { table: TableInfo }) {
  const callerId = useId();
  const [as, setAs] = useState<Caller | ''>('');
  const check = useRuleCheck(table, as === '' ? ANON : as);
  const users = useUsers(0, MAX_LIMIT);
  const view = useQuery({
    queryKey: [...keys.records(table.name), 'as', as],
    queryFn: () => client.admin.records(table.name, { as, limit: VIEW_ROWS }),
    enabled: as !== '',
  });
  const shown = table.columns.filter((column) => column.name !== 'id' && !(TIMESTAMP_COLUMNS as readonly string[]).includes(column.name)).slice(0, VIEW_COLUMNS);
  const nameOf = (caller: Caller) => (caller === ANON ? 'anon' : (users.data?.data.find((user) => user.id === caller)?.email ?? caller));
  const callerName = nameOf(as);

  return (
    <section className="card" aria-labelledby="view-as-title">
      <h2 id="view-as-title">View as</h2>
      <p className="field-hint">What one caller gets from the API under this table&rsquo;s policy, without signing in as them.</p>
      <div className="field">
        <label htmlFor={callerId}>Caller</label>
        <select
          id={callerId}
          value={as}
          onChange={(event) => {
            setAs(event.target.value);
            check.clear();
          }}
        >
          <option value="">Choose a user or anon…</option>
          <option value={ANON}>anon (no account)</option>
          {users.data?.data.map((user) => (
            <option key={user.id} value={user.id}>
              {user.email} ({user.role})
            </option>
          ))}
        </select>
        {users.data && users.data.total > users.data.data.length && (
          <p className="field-hint">The first {users.data.data.length} of {users.data.total} accounts are listed.</p>
        )}
      </div>
      {as !== '' && (
        <>
          <ListState
            query={view}
            pendingLabel={`Loading what ${callerName} sees…`}
            isEmpty={(page) => page.data.length === 0}
            empty={<Empty title={`${callerName} sees no rows of ${table.name}`} />}
            // The API's 403 is the answer here, not a failure: this caller may not list the table at all.
            explainError={(error) =>
              isApiError(error) && error.status === 403 ? (
                <p className="notice notice-warning" role="status">
                  {callerName} may not read {table.name}: {error.message}
                </p>
              ) : undefined
            }
          >
            {(page) => (
              <div className="table-scroll">
                <table className="data-table compact" aria-label={`Rows ${callerName} sees`}>
                  <caption className="view-as-caption">
                    {callerName} sees {page.total ?? `at least ${page.data.length}`} of {table.rowCount.exact ? '' : '≈'}
                    {table.rowCount.value} rows
                    {page.data.length < (page.total ?? 0) ? `; the first ${page.data.length}:` : ':'}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">id</th>
                      {shown.map((column) => (
                        <th key={column.name} scope="col">
                          {column.name}
                        </th>
                      ))}
                      <th scope="col">
                        <span className="visually-hidden">Check</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((row) => {
                      const id = String(recordId(row));
                      return (
                        <tr key={id}>
                          <td>
                            <code>{id}</code>
                          </td>
                          {shown.map((column) => {
                            const cell = formatCell(row[column.name]);
                            return (
                              <td key={column.name} className={cell.isNull ? 'muted' : undefined}>
                                {cell.text}
                              </td>
                            );
                          })}
                          <td className="row-actions">
                            {check.operation !== 'create' && (
                              <button type="button" className="button button-small" aria-label={`Check ${check.operation} of row ${id}`} onClick={() => check.run(id)}>
                                Check {check.operation}
                              </button>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </ListState>
          <RuleCheckForm check={check} nameOf={nameOf} />
        </>
      )}
    </section>
  );
}
