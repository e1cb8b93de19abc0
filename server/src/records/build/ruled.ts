import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import { SqlParameters } from '../query/build.js';
import { scopeSql } from '../query/expression.js';
import { byId, cached, COMMITTED_VERSION, type Built } from './shared.js';
import { setList, presentColumns } from './writes.js';

/**
 * The writes of a `rules` table (API.md, "Access rules"), each still one statement:
 * - a create (one record or many) is checked on the rows as stored: the insert is a CTE, and the statement calls
 *   `_basalt_refuse` with the first refused record's position, which aborts it (SQLSTATE BR403): nothing written;
 * - an update targets a row the caller may read and the `update` rule allows, and checks `updateCheck` on the row
 *   after the same way;
 * - a delete targets a row the caller may read and the `delete` rule allows.
 * Each answers, per row, whether the caller may read it afterwards (`__basalt_readable`): else the answer is `{ id }`.
 */

export const READABLE = '__basalt_readable';
const OK = '__basalt_ok';
const POSITION = '__basalt_n';

/** The read rule's verdict on the row `row`, as SQL. */
function readableSql(read: Scope | null | 'none', row: string, parameters: SqlParameters): string {
  if (read === 'none') return 'FALSE';
  return read ? `(${scopeSql(read, row, parameters)}) IS TRUE` : 'TRUE';
}

/**
 * A write (`base`, ending in `RETURNING *`) whose written rows must satisfy `check` (null: none), refused as a whole
 * at the first row that does not (its 1-based position in the write's order is the refusal's message).
 */
export function checkedWrite(table: TableSchema, base: Built, check: Scope | null, read: Scope | null | 'none'): Built {
  const parameters = new SqlParameters(base.values.length + 1);
  const allowed = check ? `(${scopeSql(check, 'i', parameters)}) IS TRUE` : 'TRUE';
  const readable = readableSql(read, 'c', parameters);
  const text =
    `WITH __basalt_w AS (${base.statement.text}), ` +
    `__basalt_c AS (SELECT i.*, ${allowed} AS ${OK}, row_number() OVER () AS ${POSITION} FROM __basalt_w i) ` +
    `SELECT c.*, ${readable} AS ${READABLE} FROM __basalt_c c ` +
    `WHERE (SELECT _basalt_refuse(f.${POSITION}::text) FROM __basalt_c f WHERE NOT f.${OK} ORDER BY f.${POSITION} LIMIT 1) IS NULL`;
  return { statement: cached(table, `checked|${base.statement.name}|${allowed}|${readable}`, () => text), values: [...base.values, ...parameters.values] };
}

/** The update of one readable row the `update` rule allows (then checked by `checkedWrite` against `updateCheck`). */
export function ruledUpdateStatement(table: TableSchema, id: unknown, changes: Record<string, unknown>, scopes: Array<Scope | null>, writer: string | null): Built {
  const columns = presentColumns(table, changes).filter((column) => column.name !== ID_COLUMN);
  const condition = byId(table, scopes, writer, columns.length + 1, table.schemaVersion);
  const statement = cached(table, `ruled-update|${columns.map((column) => column.name).join(',')}|${condition.key}`, () => {
    const set = setList(table, columns, (_column, index) => `$${index + 1}`);
    return `UPDATE ${quote(table.name)} SET ${set} WHERE ${condition.sql} RETURNING *`;
  });
  return { statement, values: [...columns.map((column) => changes[column.name]), id, ...condition.values] };
}

/** The delete of one readable row the `delete` rule allows, answering whether it was readable (always: it was). */
export function ruledDeleteStatement(table: TableSchema, id: unknown, scopes: Array<Scope | null>, writer: string | null): Built {
  const condition = byId(table, scopes, writer, 1, table.schemaVersion);
  const statement = cached(table, `ruled-delete|${condition.key}`, () => `DELETE FROM ${quote(table.name)} WHERE ${condition.sql} RETURNING *`);
  return { statement, values: [id, ...condition.values] };
}

/** Why a ruled write touched nothing: no such row, a row the caller cannot read (404), or one the rule refused (403). */
export function verdictStatement(table: TableSchema, id: unknown, read: Scope | null | 'none'): Built {
  const parameters = new SqlParameters(2);
  const readable = readableSql(read, quote(table.name), parameters);
  const statement = cached(table, `verdict|${readable}`, () => `SELECT ${readable} AS ${READABLE}, ${COMMITTED_VERSION} AS version FROM ${quote(table.name)} WHERE ${quote(ID_COLUMN)} = $1`);
  return { statement, values: [id, ...parameters.values] };
}
