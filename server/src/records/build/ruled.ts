import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import { SqlParameters } from '../query/build.js';
import { scopeSql } from '../query/expression.js';
import { cached, COMMITTED_VERSION, type Built } from './shared.js';

/**
 * The writes of a `rules` table (API.md, "Access rules"), each still one statement:
 * - a create (one record or many) is checked on the rows as stored: the insert is a CTE, and the statement calls
 *   `_basalt_refuse` with the first refused record's position, which aborts it (SQLSTATE BR403): nothing written;
 * - an update (build/writes.ts, scoped by the read and the `update` rules) checks `updateCheck` on the row after
 *   the same way; a delete is scoped by the read and the `delete` rules.
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
