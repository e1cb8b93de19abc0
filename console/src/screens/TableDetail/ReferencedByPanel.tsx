import type { TableInfo } from '@basalt/contract';
import { useTables } from '../../queries';
import { Link, tablePath } from '../../router';
import { referencesTo } from '../Records/references/labels';

/** What points at this table: every reference column of every table, with what a delete here does to its rows. */
export function ReferencedByPanel({ table }: { table: TableInfo }) {
  const tables = useTables();
  const referencing = referencesTo(tables.data ?? [], table.name);
  return (
    <section className="card" aria-labelledby="referenced-by-title">
      <h2 id="referenced-by-title">Referenced by</h2>
      {referencing.length === 0 ? (
        <p className="muted">No column of any table references {table.name}.</p>
      ) : (
        <ul className="plain-list" aria-label={`References to ${table.name}`}>
          {referencing.map(({ table: from, column, onDelete }) => (
            <li key={`${from}.${column}`}>
              <Link to={tablePath(from)}>
                <code>
                  {from}.{column}
                </code>
              </Link>{' '}
              <span className="muted">on delete {onDelete}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
