import type pg from 'pg';
import { quote } from '../db/identifiers.js';
import type { ResolvedExpression } from '@basalt/contract';
import { conditionSql, ExistsAliases, expressionSql, idsSql, scopeSql, SqlParameters, type Condition, type ExpressionFilter } from '../records/index.js';
import type { Scope } from '../policies/access.js';
import type { Change } from './log.js';

/**
 * The rows of a batch of one table's changes, typed as the record API answers them, with the verdict of every
 * subscriber's filters on each: one statement per table and batch, whatever the number of subscribers. The filters
 * are the query language's own SQL (records/query/build.ts), run on the rows as the log recorded them.
 */

export interface FilterSet {
  /** Conditions ANDed together, as a list's. */
  conditions: readonly Condition[];
  /** A read rule folded for a subscriber (API.md: rules are evaluated per subscriber at delivery, in the batch statement). */
  rule?: Scope;
  /** `filter=`, folded for the subscriber when the stream opened. */
  expression?: ExpressionFilter;
  /**
   * A read rule with `@auth.id` left in it (policies/access.ts, readRuleLeavingId), shared by the subscribers whose
   * callers differ only in their id: its verdict is, per change, which of `among` (their ids) may read the row.
   */
  ids?: { condition: ResolvedExpression; among: Set<string> };
  /** Subscribers with the same filters (or the same folded rule and values) share one verdict. */
  key: string;
}

/** A rule scope as a filter set: one verdict per distinct rule and set of bound values, whatever the subscribers. */
export function ruleFilterOf(rule: Scope): FilterSet {
  const parameters = new SqlParameters();
  const sql = scopeSql(rule, 'r', parameters);
  return { conditions: [], rule, key: JSON.stringify(['rule', sql, parameters.values]) };
}

/**
 * A rule with `@auth.id` left in it as a filter set of the ids it lets read (empty until subscribers join), or null
 * when it cannot be turned around (records/query/expression.ts, idsSql): then each subscriber's folded rule counts.
 */
export function idsFilterOf(condition: ResolvedExpression): FilterSet | null {
  const parameters = new SqlParameters();
  const sql = idsSql(condition, 'r', parameters);
  return sql === null ? null : { conditions: [], ids: { condition, among: new Set() }, key: JSON.stringify(['ids', sql, parameters.values]) };
}

/** A filter set's key: its SQL shape and its values (two sets with one key match the same rows). */
export function filterKeyOf(conditions: readonly Condition[], expression?: ExpressionFilter): string {
  const parameters = new SqlParameters();
  const shapes = conditions.map((condition) => conditionSql(condition, parameters).shape);
  if (expression) shapes.push(filterSql(expression, parameters));
  return JSON.stringify([shapes, parameters.values]);
}

function filterSql(expression: ExpressionFilter, parameters: SqlParameters): string {
  return expressionSql(expression.condition, 'r', parameters, new ExistsAliases(), (step) => expression.scopes.get(step) ?? null);
}

export interface Converted {
  /** Per change of the batch (same order): the typed row, or null (truncate, or undeliverable). */
  rows: Array<Record<string, unknown> | null>;
  /** Per filter key: per change, whether the row matches. */
  matches: Map<string, boolean[]>;
  /** Per key of an `ids` filter set: per change, the ids among its subscribers' that may read the row. */
  readers: Map<string, Array<readonly string[]>>;
  /** Positions of the changes whose rows could not be read back into the table's types (see changeRowsIsolated). */
  undeliverable: number[];
  /** Why, when some were (the database's message: for the log, never for a client). */
  reason?: string;
}

const FLAG = '__basalt_f';

export async function changeRows(pool: pg.Pool, table: string, changes: readonly Change[], filters: readonly FilterSet[]): Promise<Converted> {
  const withRecord = changes.map((change, index) => ({ change, index })).filter(({ change }) => change.record !== null);
  const rows: Converted['rows'] = changes.map(() => null);
  const { matches, readers } = emptyVerdicts(filters, changes.length);
  if (withRecord.length === 0) return { rows, matches, readers, undeliverable: [] };
  const parameters = new SqlParameters(2);
  const aliases = new ExistsAliases();
  const flags = filters.map((filter, k) => {
    if (filter.ids) {
      const ids = idsSql(filter.ids.condition, 'r', parameters, aliases)!;
      const among = parameters.bind([...filter.ids.among], 'text[]');
      return `ARRAY(SELECT DISTINCT __basalt_i.v FROM (${ids}) __basalt_i WHERE __basalt_i.v = ANY(${among})) AS ${quote(`${FLAG}${k}`)}`;
    }
    const parts = filter.conditions.map((condition) => conditionSql(condition, parameters).sql);
    if (filter.rule) parts.push(scopeSql(filter.rule, 'r', parameters));
    if (filter.expression) parts.push(filterSql(filter.expression, parameters));
    return `(${parts.join(' AND ') || 'TRUE'}) IS TRUE AS ${quote(`${FLAG}${k}`)}`;
  });
  const result = await pool.query<Record<string, unknown>>(
    `SELECT r.*${flags.map((flag) => `, ${flag}`).join('')}
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS __basalt_e(__basalt_j, __basalt_n)
       CROSS JOIN LATERAL jsonb_populate_record(NULL::${quote(table)}, __basalt_e.__basalt_j) AS r
      ORDER BY __basalt_e.__basalt_n`,
    [JSON.stringify(withRecord.map(({ change }) => change.record)), ...parameters.values],
  );
  result.rows.forEach((row, position) => {
    const index = withRecord[position]!.index;
    filters.forEach((filter, k) => {
      const flag = row[`${FLAG}${k}`];
      if (filter.ids) readers.get(filter.key)![index] = flag as string[];
      else matches.get(filter.key)![index] = flag === true;
      delete row[`${FLAG}${k}`];
    });
    rows[index] = row;
  });
  return { rows, matches, readers, undeliverable: [] };
}

function emptyVerdicts(filters: readonly FilterSet[], count: number): Pick<Converted, 'matches' | 'readers'> {
  return {
    matches: new Map(filters.filter((filter) => !filter.ids).map((filter) => [filter.key, Array.from({ length: count }, () => false)])),
    readers: new Map(filters.filter((filter) => filter.ids).map((filter) => [filter.key, Array.from({ length: count }, () => [])])),
  };
}

/**
 * `changeRows`, with a change that cannot be read back into the table (a column's type changed by psql after it was
 * logged, a log row written by hand) costing only itself: when the batch fails, each change is converted alone and
 * the ones that still fail are reported as undeliverable. Database errors other than a conversion's (the database
 * gone) fail the call as before, so the batch is read again on the next tick.
 */
export async function changeRowsIsolated(pool: pg.Pool, table: string, changes: readonly Change[], filters: readonly FilterSet[]): Promise<Converted> {
  try {
    return await changeRows(pool, table, changes, filters);
  } catch (error) {
    if (!isDataError(error)) throw error;
  }
  const rows: Converted['rows'] = changes.map(() => null);
  const { matches, readers } = emptyVerdicts(filters, changes.length);
  const undeliverable: number[] = [];
  let reason: string | undefined;
  for (const [position, change] of changes.entries()) {
    try {
      const one = await changeRows(pool, table, [change], filters);
      rows[position] = one.rows[0] ?? null;
      for (const [key, verdicts] of one.matches) matches.get(key)![position] = verdicts[0]!;
      for (const [key, ids] of one.readers) readers.get(key)![position] = ids[0]!;
    } catch (error) {
      if (!isDataError(error)) throw error;
      undeliverable.push(position);
      reason ??= (error as Error).message;
    }
  }
  return { rows, matches, readers, undeliverable, ...(reason ? { reason } : {}) };
}

/**
 * Errors of the data, not of the database: class 22 (data exception: a value that does not fit its column, a JSON
 * value that is not an object), 42804 (datatype mismatch), 42703 (a column the table no longer has).
 */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code === '42804' || code === '42703');
}
