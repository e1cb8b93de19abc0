import { createHash } from 'node:crypto';
import { ID_COLUMN } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../db/schema.js';
import type { Scope } from './authorize.js';
import type { Plan } from './plan.js';
import { quote } from '../db/identifiers.js';
import type { ListQuery } from './query/plan.js';
import { conditionSql, keyColumnsSql, keysetSql, orderSql, Parameters } from './query/build.js';

/**
 * Stage 4 of the record pipeline: plan -> SQL text and parameters. The SQL of the record operations, built from the schema cache once per table version and statement shape, then
 * reused as a named prepared statement: a request costs a cache lookup and one round trip, never a query build or a
 * re-plan. Identifiers come from the catalog and are quoted here; every value is a bound parameter.
 */

export interface Statement {
  /** Prepared-statement name: the table's schema version and a digest of the text. */
  name: string;
  text: string;
}

/** A statement and the values of its parameters, ready to run. */
export interface Built {
  statement: Statement;
  values: unknown[];
}

// Bookkeeping columns of results; no created table can have them (column names start with a letter).
export const TOTAL = '__basalt_total';
export const PRESENT = '__basalt_row';
export const INSERTED = '__basalt_inserted';
export const VERSION = '__basalt_version';

/**
 * The database's schema version, read inside the statement. Writes compare with the row, in their own snapshot: a
 * write never happens against a schema other than the one it was planned with. Reads only need to notice that the
 * version moved on, and get it from the sequence the row publishes at commit, which opens no table (see the
 * migration `published_schema_version`): it can be a moment ahead of the row, never behind it.
 */
const COMMITTED_VERSION = '(SELECT version FROM _basalt_schema)';
const PUBLISHED_VERSION = `pg_sequence_last_value('public._basalt_schema_published'::regclass)`;

const MAX_SHAPES_PER_TABLE = 500;


const statements = new WeakMap<TableSchema, Map<string, Statement>>();

function cached(table: TableSchema, key: string, build: () => string): Statement {
  let shapes = statements.get(table);
  if (!shapes) statements.set(table, (shapes = new Map()));
  let statement = shapes.get(key);
  if (!statement) {
    const text = build();
    statement = { text, name: `b${table.version}_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}` };
    // Bodies with unusual key sets make new shapes: bound the memory they can take.
    if (shapes.size >= MAX_SHAPES_PER_TABLE) shapes.clear();
    shapes.set(key, statement);
  }
  return statement;
}

export const KEY_PREFIX = '__basalt_k';

/** The scope and the filters of a read, with their parameters from `$1`. */
function readConditions(query: ListQuery, scope: Scope | null, parameters: Parameters): { sql: string[]; shape: string } {
  const sql: string[] = [];
  const shape: string[] = [];
  if (scope) {
    sql.push(`${quote(scope.ownerColumn)} = ${parameters.bind(scope.userId)}`);
    shape.push(`s:${scope.ownerColumn}`);
  }
  for (const condition of query.conditions) {
    const built = conditionSql(condition, parameters);
    sql.push(built.sql);
    shape.push(built.shape);
  }
  return { sql, shape: shape.join(',') };
}

const where = (parts: string[]) => (parts.length ? ` WHERE ${parts.join(' AND ')}` : '');

/**
 * A page in one statement: the exact total (a scalar subquery, unless the caller asked for none) joined laterally to
 * the rows after the cursor's position, one more than the page so the answer knows whether a next page exists, each
 * with its order keys as text for the next cursor.
 */
export function listStatement(table: TableSchema, query: ListQuery, scope: Scope | null, withTotal: boolean): Built {
  const parameters = new Parameters();
  const filtered = readConditions(query, scope, parameters);
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
  const columns = query.select ? query.select.map((column) => quote(column.name)).join(', ') : `${quote(table.name)}.*`;
  const shape = `list|${filtered.shape}|${keyset}|${order}|${query.select?.map((column) => column.name).join(',') ?? '*'}|${withTotal}`;
  const statement = cached(table, shape, () => {
    const name = quote(table.name);
    const counted = withTotal ? `SELECT count(*) AS total FROM ${name}${where(filtered.sql)}` : 'SELECT NULL::bigint AS total';
    const keys = keyColumnsSql(query.order, KEY_PREFIX).join(', ');
    return (
      `SELECT t.total AS ${quote(TOTAL)}, ${PUBLISHED_VERSION} AS ${quote(VERSION)}, p.* FROM (${counted}) t ` +
      `LEFT JOIN LATERAL (SELECT ${columns}, true AS ${quote(PRESENT)}, ${keys} FROM ${name}${where(page)} ` +
      `ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) p ON true`
    );
  });
  return { statement, values: parameters.values };
}

/** The planner's estimate of the rows a list's filters match, for `count=estimated`. */
export function estimateStatement(table: TableSchema, query: ListQuery, scope: Scope | null): Built {
  const parameters = new Parameters();
  const filtered = readConditions(query, scope, parameters);
  const statement = cached(table, `estimate|${filtered.shape}`, () => `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${quote(table.name)}${where(filtered.sql)}`);
  return { statement, values: parameters.values };
}

function byId(
  scope: Scope | null,
  writer: string | null,
  firstParameter: number,
  guardVersion?: number,
): { sql: string; values: unknown[]; key: string } {
  const parts = [`${quote(ID_COLUMN)} = $${firstParameter}`];
  const values: unknown[] = [];
  if (guardVersion !== undefined) {
    values.push(guardVersion);
    parts.push(`${COMMITTED_VERSION} = $${firstParameter + values.length}`);
  }
  if (scope) {
    values.push(scope.userId);
    parts.push(`${quote(scope.ownerColumn)} = $${firstParameter + values.length}`);
  }
  if (writer !== null) {
    values.push(writer);
    parts.push(writerExists(firstParameter + values.length));
  }
  return { sql: parts.join(' AND '), values, key: `${scope ? scope.ownerColumn : ''}|${writer !== null}|${guardVersion !== undefined}` };
}

/** An access token outlives a deleted account; a write by it must not happen, and this costs no extra round trip. */
function writerExists(parameter: number): string {
  return `EXISTS (SELECT 1 FROM users WHERE id = $${parameter})`;
}

export function getStatement(table: TableSchema, id: unknown, scope: Scope | null): Built {
  const condition = byId(scope, null, 1);
  // No row, no version: a miss (404) is double-checked against the schema version by the caller.
  const statement = cached(table, `get|${condition.key}`, () => `SELECT *, ${PUBLISHED_VERSION} AS ${quote(VERSION)} FROM ${quote(table.name)} WHERE ${condition.sql}`);
  return { statement, values: [id, ...condition.values] };
}

export function existsStatement(table: TableSchema, id: unknown): Built {
  const statement = cached(table, 'exists', () => `SELECT 1 FROM ${quote(table.name)} WHERE ${quote(ID_COLUMN)} = $1`);
  return { statement, values: [id] };
}

export function deleteStatement(table: TableSchema, id: unknown, scope: Scope | null, writer: string | null): Built {
  const condition = byId(scope, writer, 1, table.schemaVersion);
  const statement = cached(table, `delete|${condition.key}`, () => `DELETE FROM ${quote(table.name)} WHERE ${condition.sql} RETURNING *`);
  return { statement, values: [id, ...condition.values] };
}

/** Columns of `values`, in table order (so one body shape is one statement whatever its key order). */
function presentColumns(table: TableSchema, values: Record<string, unknown>): ColumnSchema[] {
  return table.columnList.filter((column) => values[column.name] !== undefined);
}

/** `INSERT ... SELECT $1::type, ...`: a SELECT, so a WHERE can refuse the write, with casts since SELECT has no target types. */
function insertSelect(table: TableSchema, columns: ColumnSchema[], writer: string | null): { text: string; parameters: number; guarded: boolean } {
  const names = columns.map((column) => quote(column.name));
  const selected = columns.map((column, index) => `$${index + 1}::${column.sqlType}`);
  if (table.hasCreatedAt && !columns.some((column) => column.name === 'createdAt')) {
    names.push(quote('createdAt'));
    selected.push('now()');
  }
  if (table.hasUpdatedAt && !columns.some((column) => column.name === 'updatedAt')) {
    names.push(quote('updatedAt'));
    selected.push('now()');
  }
  // DEFAULT VALUES (a table of defaults only) takes no WHERE: such a write goes unguarded.
  if (names.length === 0) return { text: `INSERT INTO ${quote(table.name)} DEFAULT VALUES`, parameters: 0, guarded: false };
  const guards = [`${COMMITTED_VERSION} = $${columns.length + 1}`];
  if (writer !== null) guards.push(writerExists(columns.length + 2));
  const text = `INSERT INTO ${quote(table.name)} (${names.join(', ')}) SELECT ${selected.join(', ')} WHERE ${guards.join(' AND ')}`;
  return { text, parameters: columns.length + guards.length, guarded: true };
}

/** The parameters after the columns' values that `insertSelect` guards with. */
function insertGuardValues(table: TableSchema, insert: { guarded: boolean }, writer: string | null): unknown[] {
  if (!insert.guarded) return [];
  return writer !== null ? [table.schemaVersion, writer] : [table.schemaVersion];
}

export function insertStatement(table: TableSchema, values: Record<string, unknown>, writer: string | null): Built {
  const columns = presentColumns(table, values);
  const insert = insertSelect(table, columns, writer);
  const statement = cached(table, `insert|${columns.map((column) => column.name).join(',')}|${insert.guarded}|${writer !== null}`, () => `${insert.text} RETURNING *`);
  return { statement, values: [...columns.map((column) => values[column.name]), ...insertGuardValues(table, insert, writer)] };
}

/**
 * Many records in one statement: each column's values are one `text[]` parameter cast to the column's type, so the
 * shape depends on which columns are present, never on how many records there are. A column some records leave out
 * takes its default for them (`CASE` on a second array saying which records have it). Rows come back in the order
 * sent: the insert reads the arrays in order (`ORDER BY` their ordinality) and RETURNING follows the insert's order.
 */
export function insertManyStatement(table: TableSchema, rows: Array<Record<string, unknown>>, writer: string | null): Built {
  const parameters = new Parameters();
  const columns = table.columnList.filter((column) => rows.some((row) => row[column.name] !== undefined));
  const names = columns.map((column) => quote(column.name));
  const arrays: string[] = [];
  const aliases: string[] = [];
  const selected: string[] = [];
  const shape: string[] = [];
  columns.forEach((column, index) => {
    arrays.push(parameters.bind(rows.map((row) => textOf(row[column.name])), 'text[]'));
    aliases.push(`c${index}`);
    const value = `u.c${index}::${column.sqlType}`;
    if (rows.every((row) => row[column.name] !== undefined)) {
      selected.push(value);
      shape.push(column.name);
      return;
    }
    arrays.push(parameters.bind(rows.map((row) => row[column.name] !== undefined), 'boolean[]'));
    aliases.push(`p${index}`);
    // The default as the catalog prints it (pg_get_expr): what Postgres itself would run for a missing column.
    selected.push(`CASE WHEN u.p${index} THEN ${value} ELSE ${column.defaultExpression ?? 'NULL'} END`);
    shape.push(`${column.name}?`);
  });
  for (const [present, name] of [
    [table.hasCreatedAt, 'createdAt'],
    [table.hasUpdatedAt, 'updatedAt'],
  ] as const) {
    if (present && !columns.some((column) => column.name === name)) {
      names.push(quote(name));
      selected.push('now()');
    }
  }
  const guards = [`${COMMITTED_VERSION} = ${parameters.bind(table.schemaVersion)}`];
  if (writer !== null) {
    guards.push(writerExists(parameters.next));
    parameters.bind(writer);
  }
  const statement = cached(table, `insert-many|${shape.join(',')}|${writer !== null}`, () => {
    const source = `unnest(${arrays.join(', ')}) WITH ORDINALITY AS u(${[...aliases, 'n'].join(', ')})`;
    return `INSERT INTO ${quote(table.name)} (${names.join(', ')}) SELECT ${selected.join(', ')} FROM ${source} WHERE ${guards.join(' AND ')} ORDER BY u.n RETURNING *`;
  });
  return { statement, values: parameters.values };
}

/** A coerced value as the text Postgres reads back into the column's type. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** The SET list of an update: the columns sent (never the id), and `updatedAt` when the table has it. */
function setList(table: TableSchema, columns: ColumnSchema[], value: (column: ColumnSchema, index: number) => string): string {
  const set = columns.filter((column) => column.name !== ID_COLUMN).map((column, index) => `${quote(column.name)} = ${value(column, index)}`);
  if (table.hasUpdatedAt) set.push(`${quote('updatedAt')} = now()`);
  // An update that changes nothing still has to touch the row to return it.
  if (set.length === 0) set.push(`${quote(ID_COLUMN)} = ${quote(table.name)}.${quote(ID_COLUMN)}`);
  return set.join(', ');
}

export function updateStatement(
  table: TableSchema,
  id: unknown,
  changes: Record<string, unknown>,
  scope: Scope | null,
  writer: string | null,
): Built {
  const columns = presentColumns(table, changes).filter((column) => column.name !== ID_COLUMN);
  const condition = byId(scope, writer, columns.length + 1, table.schemaVersion);
  const statement = cached(table, `update|${columns.map((column) => column.name).join(',')}|${condition.key}`, () => {
    const set = setList(table, columns, (_column, index) => `$${index + 1}`);
    return `UPDATE ${quote(table.name)} SET ${set} WHERE ${condition.sql} RETURNING *`;
  });
  return { statement, values: [...columns.map((column) => changes[column.name]), id, ...condition.values] };
}

/**
 * Create-or-update in one statement. Under a scope the update only happens when the existing row is the caller's; a
 * row of another user (or a writer whose account is gone) makes the statement return nothing.
 */
export function upsertStatement(
  table: TableSchema,
  insertValues: Record<string, unknown>,
  changes: Record<string, unknown>,
  scope: Scope | null,
  writer: string | null,
): Built {
  const columns = presentColumns(table, insertValues);
  const changed = presentColumns(table, changes).filter((column) => column.name !== ID_COLUMN);
  const insert = insertSelect(table, columns, writer);
  const key = `upsert|${columns.map((column) => column.name).join(',')}|${changed.map((column) => column.name).join(',')}|${scope?.ownerColumn ?? ''}|${insert.guarded}|${writer !== null}`;
  const statement = cached(table, key, () => {
    const set = setList(table, changed, (column) => `EXCLUDED.${quote(column.name)}`);
    const guard = scope ? ` WHERE ${quote(table.name)}.${quote(scope.ownerColumn)} = $${insert.parameters + 1}` : '';
    return `${insert.text} ON CONFLICT (${quote(ID_COLUMN)}) DO UPDATE SET ${set}${guard} RETURNING *, (xmax = 0) AS ${quote(INSERTED)}`;
  });
  const values = [...columns.map((column) => insertValues[column.name]), ...insertGuardValues(table, insert, writer)];
  if (scope) values.push(scope.userId);
  return { statement, values };
}

/** The one statement a plan runs first (an update-or-create may go on with `existsStatement` and `insertStatement`). */
export function buildStatement(plan: Plan): Built {
  switch (plan.kind) {
    case 'list':
      return listStatement(plan.table, plan.query, plan.scope, plan.query.count === 'exact');
    case 'get':
      return getStatement(plan.table, plan.id, plan.scope);
    case 'create':
      return insertStatement(plan.table, plan.values, plan.writer);
    case 'create-many':
      return insertManyStatement(plan.table, plan.rows, plan.writer);
    case 'upsert':
      return upsertStatement(plan.table, plan.insertValues, plan.changes, plan.scope, plan.writer);
    case 'update-or-create':
      return updateStatement(plan.table, plan.id, plan.changes, plan.scope, plan.writer);
    case 'delete':
      return deleteStatement(plan.table, plan.id, plan.scope, plan.writer);
  }
}
