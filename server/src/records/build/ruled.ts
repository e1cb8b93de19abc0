import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import { SqlParameters } from '../query/build.js';
import { rootColumnsOf, scopeSql } from '../query/expression.js';
import { cached, COMMITTED_VERSION, type Built } from './shared.js';
import { insertGuardValues, insertParts, insertStatement, presentColumns } from './writes.js';

/**
 * The writes of a `rules` table (API.md, "Access rules"), each still one statement:
 * - a create (one record or many) is checked on the rows as stored: the insert is a CTE, and the statement calls
 *   `_basalt_refuse` with the first refused record's position, which aborts it (SQLSTATE BR403): nothing written;
 * - an update (build/writes.ts, scoped by the read and the `update` rules) checks `updateCheck` on the row after
 *   the same way; a delete is scoped by the read and the `delete` rules.
 * Each answers, per row, whether the caller may read it afterwards (`__basalt_readable`): else the answer is `{ id }`.
 */

export const READABLE = '__basalt_readable';
/** The message `_basalt_refuse` raises for a reference the writer may not make: this, then the column's name. */
export const REFERENCE_REFUSED = 'reference:';
const OK = '__basalt_ok';
const POSITION = '__basalt_n';

/** The read rule's verdict on the row `row`, as SQL. */
export function readableSql(read: Scope | null | 'none', row: string, parameters: SqlParameters): string {
  if (read === 'none') return 'FALSE';
  return read ? `(${scopeSql(read, row, parameters)}) IS TRUE` : 'TRUE';
}

/** Whether two scopes are one condition (the same SQL and values): its verdict is then computed once. */
function sameScope(a: Scope | null | 'none', b: Scope | null): boolean {
  if (a === null || b === null || a === 'none') return a === b;
  const [left, right] = [new SqlParameters(), new SqlParameters()];
  return scopeSql(a, 'i', left) === scopeSql(b, 'i', right) && JSON.stringify(left.values) === JSON.stringify(right.values);
}

/**
 * A write (`base`, ending in `RETURNING *`) whose written rows must satisfy `check` (null: none), refused as a whole
 * at the first row that does not (its 1-based position in the write's order is the refusal's message).
 */
export function checkedWrite(table: TableSchema, base: Built, check: Scope | null, read: Scope | null | 'none'): Built {
  const parameters = new SqlParameters(base.values.length + 1);
  const allowed = check ? `(${scopeSql(check, 'i', parameters)}) IS TRUE` : 'TRUE';
  // A read rule that is the check itself (the usual `create` = `read`) is not evaluated twice.
  const readable = sameScope(read, check) ? OK : readableSql(read, 'c', parameters);
  const text =
    `WITH __basalt_w AS (${base.statement.text}), ` +
    `__basalt_c AS (SELECT i.*, ${allowed} AS ${OK}, row_number() OVER () AS ${POSITION} FROM __basalt_w i) ` +
    `SELECT c.*, ${readable} AS ${READABLE} FROM __basalt_c c ` +
    `WHERE (SELECT _basalt_refuse(f.${POSITION}::text) FROM __basalt_c f WHERE NOT f.${OK} ORDER BY f.${POSITION} LIMIT 1) IS NULL`;
  return { statement: cached(table, `checked|${base.statement.name}|${allowed}|${readable}`, () => text), values: [...base.values, ...parameters.values] };
}

/** Why a ruled write touched nothing: no such row, a row the caller cannot read (404), or one the rule refused (403). */
export function verdictStatement(table: TableSchema, id: unknown, read: Scope | null | 'none'): Built {
  const parameters = new SqlParameters(2);
  const readable = readableSql(read, quote(table.name), parameters);
  const statement = cached(table, `verdict|${readable}`, () => `SELECT ${readable} AS ${READABLE}, ${COMMITTED_VERSION} AS version FROM ${quote(table.name)} WHERE ${quote(ID_COLUMN)} = $1`);
  return { statement, values: [id, ...parameters.values] };
}

/** A reference the writer's policies limit (records/plan.ts, ReferenceCheck): only rows of `table` under `scope`. */
export interface ReferenceGuard {
  column: string;
  table: TableSchema;
  scope: Scope;
}

/**
 * One record's create under rules as one statement that refuses before anything is written, in this order: a
 * reference the writer may not make (400, `_basalt_refuse('reference:<column>')`), then the create rule on the row as
 * it will be stored (403, `_basalt_refuse('1')`) when the rule reads only columns the insert sets (the body's, the
 * server's id and timestamps, the caller as owner). A rule reading a column left to its default is checked on the
 * stored row instead (checkedWrite). The schema and account guards come first: a stale write refuses nothing.
 */
export function ruledCreate(table: TableSchema, values: Record<string, unknown>, writer: string | null, references: readonly ReferenceGuard[], check: Scope | null, read: Scope | null | 'none'): Built {
  const columns = presentColumns(table, values);
  const { names, selected, guards } = insertParts(table, columns, writer);
  if (names.length === 0) return checkedWrite(table, insertStatement(table, values, writer), check, read);
  const guardValues = insertGuardValues(table, writer);
  const parameters = new SqlParameters(columns.length + guardValues.length + 1);
  const refusals = references.map((reference) => {
    const id = reference.table.columns.get(ID_COLUMN)!;
    const scoped = scopeSql(reference.scope, '__basalt_r', parameters);
    const value = `i.${quote(reference.column)}`;
    return (
      `WHEN ${value} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${quote(reference.table.name)} __basalt_r ` +
      `WHERE __basalt_r.${quote(ID_COLUMN)} = ${value}::${id.sqlType} AND ${scoped}) ` +
      `THEN _basalt_refuse(${parameters.bind(`${REFERENCE_REFUSED}${reference.column}`)}::text)`
    );
  });
  const written = new Set([...columns.map((column) => column.name), ...(table.hasCreatedAt ? ['createdAt'] : []), ...(table.hasUpdatedAt ? ['updatedAt'] : [])]);
  const early = check === null || [...rootColumnsOf(check)].every((name) => written.has(name));
  if (check && early) refusals.push(`WHEN (${scopeSql(check, 'i', parameters)}) IS NOT TRUE THEN _basalt_refuse('1')`);
  const row = selected.map((value, index) => `${value} AS ${names[index]}`).join(', ');
  const where = `CASE WHEN NOT (${guards.join(' AND ')}) THEN FALSE ${refusals.join(' ')} ELSE TRUE END`;
  const insert = `INSERT INTO ${quote(table.name)} AS __basalt_t (${names.join(', ')}) SELECT i.* FROM (SELECT ${row}) i WHERE ${where}`;
  const base = [...columns.map((column) => values[column.name]), ...guardValues];
  if (!early) {
    const inner = { statement: cached(table, `create|${insert}`, () => `${insert} RETURNING *`), values: [...base, ...parameters.values] };
    return checkedWrite(table, inner, check, read);
  }
  // A row that passed a check equal to the read rule is readable; otherwise the read rule is asked of the stored row.
  const readable = sameScope(read, check) ? 'TRUE' : readableSql(read, '__basalt_t', parameters);
  const text = `${insert} RETURNING *, ${readable} AS ${READABLE}`;
  return { statement: cached(table, `create|${text}`, () => text), values: [...base, ...parameters.values] };
}
