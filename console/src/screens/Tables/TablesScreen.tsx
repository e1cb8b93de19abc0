import { useState } from 'react';
import { TablePolicy } from '../../components/PolicyBadge';
import { RowCountText } from '../../components/RowCount';
import { DataTableHead, type HeadColumn } from '../../components/DataTableHead';
import { ListState } from '../../components/ListState';
import { Empty } from '../../components/States';
import { useTables } from '../../queries';
import { Link, tablePath } from '../../router';
import { CreateTableForm } from './CreateTableForm';
import './tables.css';

const COLUMNS: readonly HeadColumn[] = [{ label: 'Name' }, { label: 'Policy' }, { label: 'Columns', numeric: true }, { label: 'Rows', numeric: true }];

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
      <ListState
        query={tables}
        pendingLabel="Loading tables…"
        isEmpty={(list) => list.length === 0}
        empty={
          // The form being filled in is the way to a first table already.
          !creating && (
            <Empty title="No tables yet">
              <p>Each table you create gets a REST API at /api/&lt;table&gt; guarded by its policy.</p>
              <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
                Create your first table
              </button>
            </Empty>
          )
        }
      >
        {(list) => (
          <div className="table-scroll card card-flush">
            <table className="data-table" aria-label="Tables">
              <DataTableHead columns={COLUMNS} />
              <tbody>
                {list.map((table) => (
                  <tr key={table.name}>
                    <th scope="row">
                      <Link to={tablePath(table.name)}>{table.name}</Link>
                      {table.kind === 'files' && <span className="badge badge-bucket table-kind">bucket</span>}
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
      </ListState>
    </section>
  );
}
