import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import { conditionSql, keyColumnsSql, keysetSql, orderSql, SqlParameters } from '../query/build.js';
import type { ListQuery } from '../query/plan.js';
import { Aliases, embedShape, embedSql } from '../embed/build.js';
import type { Selection } from '../embed/plan.js';
import { ExistsAliases, expressionSql, scopeSql } from '../query/expression.js';
import { byId, cached, PRESENT, PUBLISHED_VERSION, TOTAL, VERSION, type Built } from './shared.js';

/** The statements of reads: a page with its total, a planner estimate, one record, whether an id exists. */

export const KEY_PREFIX = '__basalt_k';

/** The scope and the filters of a read (or of a change by filter), with their parameters. */
export function readConditions(table: TableSchema, query: Pick<ListQuery, 'conditions' | 'filter'>, scope: Scope | null, parameters: SqlParameters): { sql: string[]; shape: string } {
  const sql: string[] = [];
  const shape: string[] = [];
  if (scope) {
    const built = scopeSql(scope, quote(table.name), parameters);
    sql.push(built);
    // Placeholders, never values: the text is the shape.
    shape.push(built);
  }
  for (const condition of query.conditions) {
    const built = conditionSql(condition, parameters);
    sql.push(built.sql);
    shape.push(built.shape);
  }
  if (query.filter) {
    const { condition, scopes } = query.filter;
    const built = expressionSql(condition, quote(table.name), parameters, new ExistsAliases(), (step) => scopes.get(step) ?? null);
    sql.push(built);
    // The SQL's text depends on the expression's shape and the scopes, never on values: it is the shape.
    shape.push(`f:${built}`);
  }
  return { sql, shape: shape.join(',') };
}

export const where = (parts: string[]) => (parts.length ? ` WHERE ${parts.join(' AND ')}` : '');

/**
 * A page in one statement: the exact total (a scalar subquery, unless the caller asked for none) joined laterally to
 * the rows after the cursor's position, one more than the page so the answer knows whether a next page exists, each
 * with its order keys as text for the next cursor.
 */
export function listStatement(table: TableSchema, query: ListQuery, scope: Scope | null, withTotal: boolean): Built {
  const parameters = new SqlParameters();
  const filtered = readConditions(table, query, scope, parameters);
  // No filter but the scope: the total is the maintained count, read in the same statement (so the same snapshot).
  const maintained = withTotal && countsMaintained(table, query, scope);
  const countKeys = maintained ? [parameters.bind(table.name), parameters.bind(scope?.kind === 'owner' ? scope.userId : WHOLE_TABLE)] : [];
  const page = [...filtered.sql];
  let keyset = '';
  if (query.position) {
    const built = keysetSql(query.order, query.position, parameters);
    page.push(built.sql);
    keyset = built.shape;
  }
  const limit = parameters.bind(query.limit === 0 ? 0 : query.limit + 1);
  const offset = parameters.bind(query.offset);
  const order = orderSql(query.order);
  const { sql: columns, shape: selected } = selectionSql(table, query.select, parameters);
  const shape = `list|${filtered.shape}|${keyset}|${order}|${selected}|${withTotal}|${maintained}`;
  const statement = cached(table, shape, () => {
    const name = quote(table.name);
    const counted = maintained
      ? `SELECT coalesce(sum(n), 0)::bigint AS total FROM _basalt_counts WHERE table_name = ${countKeys[0]} AND scope = ${countKeys[1]}`
      : withTotal
        ? `SELECT count(*) AS total FROM ${name}${where(filtered.sql)}`
        : 'SELECT NULL::bigint AS total';
    const keys = keyColumnsSql(query.order, KEY_PREFIX).join(', ');
    return (
      `SELECT t.total AS ${quote(TOTAL)}, ${PUBLISHED_VERSION} AS ${quote(VERSION)}, p.* FROM (${counted}) t ` +
      `LEFT JOIN LATERAL (SELECT ${columns}, true AS ${quote(PRESENT)}, ${keys} FROM ${name}${where(page)} ` +
      `ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) p ON true`
    );
  });
  return { statement, values: parameters.values };
}

/** The scope of the whole table's count (an owner's count has the owner's id). */
const WHOLE_TABLE = '*';

/**
 * Whether a list's total comes from the maintained counts (tracking/): the table's counts are complete and the list has
 * no filter, only (maybe) the owner scope (a preset's, or a rule that is exactly `<owner> = @auth.id`). Lists under any
 * other rule, and filtered lists, count their matching rows.
 */
export function countsMaintained(table: TableSchema, query: ListQuery, scope: Scope | null): boolean {
  return table.counted && query.conditions.length === 0 && query.filter === null && (scope === null || scope.kind === 'owner');
}

/** The planner's estimate of the rows a list's filters match, for `count=estimated`. */
export function estimateStatement(table: TableSchema, query: ListQuery, scope: Scope | null): Built {
  const parameters = new SqlParameters();
  const filtered = readConditions(table, query, scope, parameters);
  const statement = cached(table, `estimate|${filtered.shape}`, () => `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${quote(table.name)}${where(filtered.sql)}`);
  return { statement, values: parameters.values };
}
/** The record's own columns (all, or those asked) and its embeds, as a select list and its shape. */
function selectionSql(table: TableSchema, selection: Selection, parameters: SqlParameters): { sql: string; shape: string } {
  const name = quote(table.name);
  const own = selection.columns ? selection.columns.map((column) => quote(column.name)) : [`${name}.*`];
  const aliases = new Aliases();
  const embedded = selection.embeds.map((embed) => `${embedSql(embed, name, parameters, aliases)} AS ${quote(embed.key)}`);
  const shape = `${selection.columns?.map((column) => column.name).join(',') ?? '*'}|${embedShape(selection.embeds)}`;
  return { sql: [...own, ...embedded].join(', '), shape };
}

export function getStatement(table: TableSchema, id: unknown, scope: Scope | null, selection?: Selection): Built {
  const condition = byId(table, scope, null, 1);
  if (!selection || (selection.columns === null && selection.embeds.length === 0)) {
    // No row, no version: a miss (404) is double-checked against the schema version by the caller.
    const statement = cached(table, `get|${condition.key}`, () => `SELECT *, ${PUBLISHED_VERSION} AS ${quote(VERSION)} FROM ${quote(table.name)} WHERE ${condition.sql}`);
    return { statement, values: [id, ...condition.values] };
  }
  const parameters = new SqlParameters(2 + condition.values.length);
  const { sql, shape } = selectionSql(table, selection, parameters);
  const statement = cached(table, `get|${condition.key}|${shape}`, () => `SELECT ${sql}, ${PUBLISHED_VERSION} AS ${quote(VERSION)} FROM ${quote(table.name)} WHERE ${condition.sql}`);
  return { statement, values: [id, ...condition.values, ...parameters.values] };
}

/** Several records by id, in the order of `ids`, as a selection asks (a bulk insert's answer with `select`). */
export function getManyStatement(table: TableSchema, ids: unknown[], selection: Selection): Built {
  const parameters = new SqlParameters(2);
  const { sql, shape } = selectionSql(table, selection, parameters);
  const idType = table.columns.get(ID_COLUMN)!.sqlType;
  const statement = cached(
    table,
    `get-many|${shape}`,
    () =>
      `SELECT ${sql}, ${PUBLISHED_VERSION} AS ${quote(VERSION)} FROM ${quote(table.name)} ` +
      `WHERE ${quote(ID_COLUMN)} = ANY($1::${idType}[]) ORDER BY array_position($1::${idType}[], ${quote(ID_COLUMN)})`,
  );
  return { statement, values: [ids, ...parameters.values] };
}

export function existsStatement(table: TableSchema, id: unknown): Built {
  const statement = cached(table, 'exists', () => `SELECT 1 FROM ${quote(table.name)} WHERE ${quote(ID_COLUMN)} = $1`);
  return { statement, values: [id] };
}

/**
 * Which of these values name a row the writer may read in the referenced table (its scope for them): the values come
 * back as given, so the caller can tell which record named which.
 */
export function readableStatement(table: TableSchema, scope: Scope, values: unknown[]): Built {
  const id = table.columns.get(ID_COLUMN)!;
  const parameters = new SqlParameters(2);
  const condition = scopeSql(scope, quote(table.name), parameters);
  const statement = cached(
    table,
    `readable|${condition}`,
    () =>
      `SELECT v FROM unnest($1::text[]) AS v WHERE EXISTS (SELECT 1 FROM ${quote(table.name)} ` +
      `WHERE ${quote(ID_COLUMN)} = v::${id.sqlType} AND ${condition})`,
  );
  return { statement, values: [values.map(String), ...parameters.values] };
}
