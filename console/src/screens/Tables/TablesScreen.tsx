import { useState } from 'react';
import { TablePolicy } from '../../components/PolicyBadge';
import { RowCountText } from '../../components/RowCount';
import { Empty, ErrorState, Loading } from '../../components/States';
import { useTables } from '../../queries';
import { Link, tablePath } from '../../router';
import { CreateTableForm } from './CreateTableForm';

export function TablesScreen() {
  const tables = useTables();
  const [creating, setCreating] = useState(false);

  return (
    <section className="page">
      <div className="page-header">
        <h1>Tables</h1>
        {!creating && (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            New table
          </button>
        )}
      </div>
      {creating && <CreateTableForm onCancel={() => setCreating(false)} />}
      {tables.isPending ? (
        <Loading label="Loading tables…" />
      ) : tables.isError ? (
        <ErrorState error={tables.error} onRetry={() => void tables.refetch()} />
      ) : tables.data.length === 0 ? (
        !creating && (
          <Empty title="No tables yet">
            <p>Each table you create gets a REST API at /api/&lt;table&gt; guarded by its policy.</p>
            <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
              Create your first table
            </button>
          </Empty>
        )
      ) : (
        <div className="table-scroll card card-flush">
          <table className="data-table" aria-label="Tables">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Policy</th>
                <th scope="col" className="numeric">
                  Columns
                </th>
                <th scope="col" className="numeric">
                  Rows
                </th>
              </tr>
            </thead>
            <tbody>
              {tables.data.map((table) => (
                <tr key={table.name}>
                  <th scope="row">
                    <Link to={tablePath(table.name)}>{table.name}</Link>
                  </th>
                  <td>
                    <TablePolicy table={table} />
                  </td>
                  <td className="numeric">{table.columns.length}</td>
                  <td className="numeric">
                    <RowCountText count={table.rowCount} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
