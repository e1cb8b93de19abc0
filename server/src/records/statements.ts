import type { Knex } from 'knex';
import { ID_COLUMN } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import type { ListQuery } from './query.js';
import { comparesAsText } from './values.js';

export type Row = Record<string, unknown>;

/** Limits a statement to the caller's own rows under owner-scoped. */
export interface Scope {
  ownerColumn: string;
  userId: string;
}

// Names no created table can have (column names start with a letter), used for bookkeeping columns of results.
const TOTAL = '__basalt_total';
const PRESENT = '__basalt_row';
const INSERTED = '__basalt_inserted';

function applyScope(builder: Knex.QueryBuilder, scope: Scope | null): Knex.QueryBuilder {
  return scope ? builder.where(scope.ownerColumn, scope.userId) : builder;
}

function applyFilters(builder: Knex.QueryBuilder, query: ListQuery): Knex.QueryBuilder {
  for (const { column, value } of query.filters) {
    if (comparesAsText(column)) builder.whereRaw('??::text = ?', [column.name, value as Knex.Value]);
    else builder.where(column.name, value as Knex.Value);
  }
  return builder;
}

/**
 * The page and the exact total in one round trip: the count as a scalar subquery joined laterally to the page, so
 * Postgres does not walk the whole ordered result as `count(*) OVER ()` would.
 */
export async function selectPage(knex: Knex, table: TableSchema, query: ListQuery, scope: Scope | null): Promise<{ rows: Row[]; total: number }> {
  const count = applyFilters(applyScope(knex(table.name).count({ [TOTAL]: '*' }), scope), query);
  const page = applyFilters(applyScope(knex(table.name).select(`${table.name}.*`, knex.raw(`true AS ??`, [PRESENT])), scope), query)
    .limit(query.limit)
    .offset(query.offset);
  for (const term of query.order) page.orderBy(term.column.name, term.direction);
  const result = await knex.raw<{ rows: Row[] }>(`SELECT t.??, p.* FROM ? t LEFT JOIN LATERAL ? p ON true`, [TOTAL, count, page]);
  const total = Number(result.rows[0]?.[TOTAL] ?? 0);
  const rows: Row[] = [];
  for (const row of result.rows) {
    if (row[PRESENT] !== true) continue;
    delete row[TOTAL];
    delete row[PRESENT];
    rows.push(row);
  }
  return { rows, total };
}

export async function selectOne(knex: Knex, table: TableSchema, id: unknown, scope: Scope | null): Promise<Row | undefined> {
  return applyScope(knex(table.name).where(ID_COLUMN, id as Knex.Value), scope).first() as Promise<Row | undefined>;
}

export async function insertOne(knex: Knex, table: TableSchema, values: Row): Promise<Row> {
  const rows = (await knex(table.name).insert(withInsertTimestamps(knex, table, values)).returning('*')) as Row[];
  return rows[0]!;
}

export async function deleteOne(knex: Knex, table: TableSchema, id: unknown, scope: Scope | null): Promise<Row | undefined> {
  const rows = (await applyScope(knex(table.name).where(ID_COLUMN, id as Knex.Value), scope).delete().returning('*')) as Row[];
  return rows[0];
}

function withInsertTimestamps(knex: Knex, table: TableSchema, values: Row): Row {
  const row: Row = { ...values };
  if (table.hasCreatedAt) row.createdAt = knex.fn.now();
  if (table.hasUpdatedAt) row.updatedAt = knex.fn.now();
  return row;
}

/** The SET list of an update: the body's columns (never the id), and `updatedAt` when the table has it. */
function updateSet(knex: Knex, table: TableSchema, changes: Row): Row {
  const set: Row = {};
  for (const [name, value] of Object.entries(changes)) if (name !== ID_COLUMN) set[name] = value;
  if (table.hasUpdatedAt) set.updatedAt = knex.fn.now();
  // An update that changes nothing still has to touch the row to return it.
  if (Object.keys(set).length === 0) set[ID_COLUMN] = knex.ref(`${table.name}.${ID_COLUMN}`);
  return set;
}

export async function updateOne(knex: Knex, table: TableSchema, id: unknown, changes: Row, scope: Scope | null): Promise<Row | undefined> {
  const rows = (await applyScope(knex(table.name).where(ID_COLUMN, id as Knex.Value), scope)
    .update(updateSet(knex, table, changes))
    .returning('*')) as Row[];
  return rows[0];
}

/**
 * Create-or-update in one statement. Under a scope, the update only happens when the existing row is the caller's;
 * a row of another user makes the statement return nothing.
 */
export async function upsertOne(
  knex: Knex,
  table: TableSchema,
  insertValues: Row,
  changes: Row,
  scope: Scope | null,
): Promise<{ row: Row; created: boolean } | undefined> {
  const builder = knex(table.name)
    .insert(withInsertTimestamps(knex, table, insertValues))
    .onConflict(ID_COLUMN)
    .merge(updateSet(knex, table, changes));
  if (scope) builder.where(`${table.name}.${scope.ownerColumn}`, scope.userId);
  const rows = (await builder.returning(['*', knex.raw('(xmax = 0) AS ??', [INSERTED])])) as Row[];
  const row = rows[0];
  if (!row) return undefined;
  const created = row[INSERTED] === true;
  delete row[INSERTED];
  return { row, created };
}

export async function exists(knex: Knex, table: TableSchema, id: unknown): Promise<boolean> {
  return (await knex(table.name).where(ID_COLUMN, id as Knex.Value).first(knex.raw('1 AS one'))) !== undefined;
}
