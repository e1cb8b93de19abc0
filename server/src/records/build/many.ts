import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { ColumnSchema, TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import type { ChangeWherePlan, UpsertOnPlan } from '../plan/index.js';
import { SqlParameters } from '../query/build.js';
import { scopeSql } from '../query/expression.js';
import { readConditions, where } from './reads.js';
import { READABLE, readableSql } from './ruled.js';
import { cached, COMMITTED_VERSION, INSERTED, PRESENT, VERSION, writerExists, type Built } from './shared.js';
import { insertManyParts, presentColumns, setList } from './writes.js';

/**
 * The statements of writes to many rows, each one statement:
 * - a change by filter counts the rows it may change and changes them only if they are at most `limit` (the count
 *   comes back either way, so a refusal says how many matched); under rules each changed row must pass `updateCheck`
 *   or the statement aborts naming the first refused row's id;
 * - an upsert on a key inserts every row, each one whose key is taken updating that row instead (where the caller may
 *   update it), and aborts naming the first element neither inserted nor updated, then the first a rule refused.
 */

export const MATCHED = '__basalt_matched';
/** `_basalt_refuse` messages of these statements: a changed row's id, an element's index (0-based). */
export const REFUSED_ID = 'id:';
export const REFUSED_KEY = 'key:';
export const REFUSED_CREATE = 'create:';
export const REFUSED_UPDATE = 'update:';

/** The conditions of a change by filter: its filters under every scope it must satisfy. */
function changeConditions(plan: ChangeWherePlan, parameters: SqlParameters): { sql: string[]; shape: string } {
  const [first = null, ...others] = plan.scopes;
  const built = readConditions(plan.table, plan.where, first, parameters);
  for (const scope of others) {
    if (!scope) continue;
    const sql = scopeSql(scope, quote(plan.table.name), parameters);
    built.sql.push(sql);
    built.shape += `|${sql}`;
  }
  return built;
}

/** `dryRun=true`: how many rows the change would change. */
export function countWhereStatement(plan: ChangeWherePlan): Built {
  const parameters = new SqlParameters();
  const conditions = changeConditions(plan, parameters);
  const statement = cached(plan.table, `count-where|${conditions.shape}`, () => `SELECT count(*) AS ${quote(MATCHED)}, ${COMMITTED_VERSION} AS ${quote(VERSION)} FROM ${quote(plan.table.name)}${where(conditions.sql)}`);
  return { statement, values: parameters.values };
}

export function changeWhereStatement(plan: ChangeWherePlan): Built {
  const { table } = plan;
  const name = quote(table.name);
  const parameters = new SqlParameters();
  const conditions = changeConditions(plan, parameters);
  const columns = plan.op === 'update' ? presentColumns(table, plan.changes).filter((column) => column.name !== ID_COLUMN) : [];
  const set = columns.map((column) => parameters.bind(plan.changes[column.name]));
  const guards = [`(SELECT n FROM __basalt_m) <= ${parameters.bind(plan.limit)}`, `${COMMITTED_VERSION} = ${parameters.bind(table.schemaVersion)}`];
  if (plan.writer !== null) guards.push(writerExists(Number(parameters.bind(plan.writer).slice(1))));
  const check = plan.ruled?.check ? `(${scopeSql(plan.ruled.check, 'f', parameters)}) IS NOT TRUE` : null;
  const readable = plan.ruled ? readableSql(plan.ruled.read, 'w', parameters) : null;
  const key = `${plan.op}-where|${conditions.shape}|${columns.map((column) => column.name).join(',')}|${plan.writer !== null}|${check}|${readable}`;
  const statement = cached(table, key, () => {
    const matching = where([...conditions.sql, ...guards]);
    const change =
      plan.op === 'update'
        ? `UPDATE ${name} SET ${setList(table, columns, (_column, index) => set[index]!)}${matching}`
        : `DELETE FROM ${name}${matching}`;
    const refusal = check
      ? ` WHERE (SELECT _basalt_refuse('${REFUSED_ID}' || f.${quote(ID_COLUMN)}::text) FROM __basalt_w f WHERE ${check} LIMIT 1) IS NULL`
      : '';
    return (
      `WITH __basalt_m AS (SELECT count(*) AS n FROM ${name}${where(conditions.sql)}), ` +
      `__basalt_w AS (${change} RETURNING ${name}.*, true AS ${quote(PRESENT)}) ` +
      `SELECT (SELECT n FROM __basalt_m) AS ${quote(MATCHED)}, ${COMMITTED_VERSION} AS ${quote(VERSION)}, w.*` +
      `${readable ? `, ${readable} AS ${quote(READABLE)}` : ''} FROM (SELECT 1) __basalt_one LEFT JOIN __basalt_w w ON true${refusal}`
    );
  });
  return { statement, values: parameters.values };
}

/**
 * The upsert: the bulk insert's rows, `ON CONFLICT (key) DO UPDATE` with the columns sent where the caller may update
 * the row. Elements with a key that came back neither inserted nor updated abort it (`key:<index>`); under rules then
 * the first row the create rule (inserted) or `updateCheck` (updated) refuses (`create:<index>`, `update:<index>`).
 */
export function upsertOnStatement(plan: UpsertOnPlan): Built {
  const { table, key } = plan;
  const name = quote(table.name);
  const insert = insertManyParts(table, plan.rows, plan.writer);
  const { parameters } = insert;
  const scopes = plan.scopes.flatMap((scope) => (scope ? [scopeSql(scope, name, parameters)] : []));
  const changed = plan.changed.map((column) => table.columns.get(column)!);
  const keys = insert.arrays.get(key.name);
  const rules = plan.rules;
  const create = rules?.create ? `(${scopeSql(rules.create, 'f', parameters)}) IS TRUE` : 'TRUE';
  const updateCheck = rules?.updateCheck ? `(${scopeSql(rules.updateCheck, 'f', parameters)}) IS TRUE` : 'TRUE';
  const readable = rules ? readableSql(rules.read, 'w', parameters) : null;
  const shape = `upsert-on|${key.name}|${insert.shape}|${plan.changed.join(',')}|${scopes.join('|')}|${create}|${updateCheck}|${readable}`;
  const statement = cached(table, shape, () => {
    const set = setList(table, changed as ColumnSchema[], (column) => `EXCLUDED.${quote(column.name)}`);
    const upsert = `${insert.text()} ON CONFLICT (${quote(key.name)}) DO UPDATE SET ${set}${scopes.length ? ` WHERE ${scopes.join(' AND ')}` : ''}`;
    const refusals: string[] = [];
    if (keys) {
      refusals.push(
        `(SELECT _basalt_refuse('${REFUSED_KEY}' || (k.n - 1)::text) FROM unnest(${keys}) WITH ORDINALITY AS k(v, n) ` +
          `WHERE k.v IS NOT NULL AND ${insert.guards} AND NOT EXISTS (SELECT 1 FROM __basalt_w x WHERE x.${quote(key.name)} = k.v::${key.sqlType}) ORDER BY k.n LIMIT 1) IS NOT NULL`,
      );
    }
    if (rules) {
      refusals.push(
        `(SELECT _basalt_refuse(CASE WHEN f.${quote(INSERTED)} THEN '${REFUSED_CREATE}' ELSE '${REFUSED_UPDATE}' END || (f.__basalt_n - 1)::text) ` +
          `FROM (SELECT c.*, row_number() OVER () AS __basalt_n FROM __basalt_w c) f ` +
          `WHERE (CASE WHEN f.${quote(INSERTED)} THEN ${create} ELSE ${updateCheck} END) IS NOT TRUE ORDER BY f.__basalt_n LIMIT 1) IS NOT NULL`,
      );
    }
    const refused = refusals.length ? ` WHERE CASE ${refusals.map((each) => `WHEN ${each} THEN FALSE`).join(' ')} ELSE TRUE END` : '';
    return (
      `WITH __basalt_w AS (${upsert} RETURNING ${name}.*, (xmax = 0) AS ${quote(INSERTED)}) ` +
      `SELECT w.*${readable ? `, ${readable} AS ${quote(READABLE)}` : ''} FROM __basalt_w w${refused}`
    );
  });
  return { statement, values: parameters.values };
}

/** Whether the row holding a key is readable by the caller (an upsert refused on it: 403 if so, else 409). */
export function keyReadableStatement(table: TableSchema, key: ColumnSchema, value: unknown, read: Scope | null | 'none'): Built {
  const parameters = new SqlParameters(2);
  const readable = readableSql(read, quote(table.name), parameters);
  const statement = cached(table, `key-readable|${key.name}|${readable}`, () => `SELECT ${readable} AS ${quote(READABLE)} FROM ${quote(table.name)} WHERE ${quote(key.name)} = $1::${key.sqlType}`);
  return { statement, values: [value instanceof Date ? value.toISOString() : value, ...parameters.values] };
}
