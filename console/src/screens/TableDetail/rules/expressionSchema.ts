import { expressionSchemaOf, type SchemaSourceTable } from '@basalt/contract';

/** The schema the rule editor checks against: the contract's, from what `GET /admin/tables` says. */
export { expressionSchemaOf };

/**
 * A described table as a schema source. The description does not say an integer column's size (int2, int4, int8),
 * so the browser takes the widest: it never refuses a number the server accepts, and the server's refusal of one out
 * of range shows on the rule's field like any other (checked on save).
 */
export function sourceOf(table: SchemaSourceTable): SchemaSourceTable {
  return { name: table.name, columns: table.columns.map((column) => (column.type === 'integer' && !column.pgType ? { ...column, pgType: 'int8' } : column)) };
}

/**
 * The table list with `table` as it is now: the table's own description may be fresher than the list (a column just
 * added on its page), and a table the list does not know yet must still resolve its own columns.
 */
export function withTable<T extends SchemaSourceTable>(tables: readonly T[], table: T): T[] {
  return tables.some((candidate) => candidate.name === table.name)
    ? tables.map((candidate) => (candidate.name === table.name ? table : candidate))
    : [...tables, table];
}
