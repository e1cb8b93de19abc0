import type { ColumnInfo } from '@basalt/contract';
import { Link, recordPath } from '../../../router';
import { referenceLabel } from './labels';

/** A reference column's cell: the referenced row's label, linking to that row in its table. */
export function ReferenceCell({ column, value, labels }: { column: ColumnInfo & { references: NonNullable<ColumnInfo['references']> }; value: unknown; labels: ReadonlyMap<string, string> | undefined }) {
  if (value === null || value === undefined) return <td className="cell cell-null">null</td>;
  const id = typeof value === 'number' ? value : String(value);
  const label = referenceLabel(labels, value);
  return (
    <td className="cell cell-reference" title={`${column.references.table} ${String(id)}`}>
      <Link to={recordPath(column.references.table, id)} aria-label={`${label ?? String(id)} in ${column.references.table}`}>
        {label ?? String(id)}
      </Link>
    </td>
  );
}
