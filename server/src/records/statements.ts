import type pg from 'pg';
import type { TableSchema } from '../db/schema.js';
import type { ListQuery } from './query.js';
import {
  INSERTED,
  PRESENT,
  TOTAL,
  VERSION,
  deleteStatement,
  existsStatement,
  getStatement,
  insertStatement,
  listStatement,
  updateStatement,
  upsertStatement,
  type Scope,
  type Statement,
} from './sql.js';

export type Row = Record<string, unknown>;
export type { Scope };

/** The statement ran against a newer schema than the one it was planned with: reload, then answer again. */
export class StaleSchemaError extends Error {
  constructor() {
    super('the schema changed since this process loaded it');
  }
}

function checkVersion(table: TableSchema, row: Row | undefined): void {
  if (Number(row?.[VERSION] ?? 0) > table.schemaVersion) throw new StaleSchemaError();
}

/** Runs a prepared statement on the pool: the server parses and plans it once per connection. */
async function run(pool: pg.Pool, { statement, values }: { statement: Statement; values: unknown[] }): Promise<Row[]> {
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

export async function selectPage(pool: pg.Pool, table: TableSchema, query: ListQuery, scope: Scope | null): Promise<{ rows: Row[]; total: number }> {
  const result = await run(pool, listStatement(table, query, scope));
  checkVersion(table, result[0]);
  const total = Number(result[0]?.[TOTAL] ?? 0);
  const rows: Row[] = [];
  for (const row of result) {
    if (row[PRESENT] !== true) continue;
    delete row[TOTAL];
    delete row[VERSION];
    delete row[PRESENT];
    rows.push(row);
  }
  return { rows, total };
}

export async function selectOne(pool: pg.Pool, table: TableSchema, id: unknown, scope: Scope | null): Promise<Row | undefined> {
  const [row] = await run(pool, getStatement(table, id, scope));
  checkVersion(table, row);
  if (row?.[PRESENT] !== true) return undefined;
  delete row[VERSION];
  delete row[PRESENT];
  return row;
}

export async function exists(pool: pg.Pool, table: TableSchema, id: unknown): Promise<boolean> {
  return (await run(pool, existsStatement(table, id))).length > 0;
}

/** Inserts; undefined when `writer` (the user who writes) no longer exists. */
export async function insertOne(pool: pg.Pool, table: TableSchema, values: Row, writer: string | null): Promise<Row | undefined> {
  return (await run(pool, insertStatement(table, values, writer)))[0];
}

export async function updateOne(pool: pg.Pool, table: TableSchema, id: unknown, changes: Row, scope: Scope | null, writer: string | null): Promise<Row | undefined> {
  return (await run(pool, updateStatement(table, id, changes, scope, writer)))[0];
}

export async function upsertOne(
  pool: pg.Pool,
  table: TableSchema,
  insertValues: Row,
  changes: Row,
  scope: Scope | null,
  writer: string | null,
): Promise<{ row: Row; created: boolean } | undefined> {
  const row = (await run(pool, upsertStatement(table, insertValues, changes, scope, writer)))[0];
  if (!row) return undefined;
  const created = row[INSERTED] === true;
  delete row[INSERTED];
  return { row, created };
}

export async function deleteOne(pool: pg.Pool, table: TableSchema, id: unknown, scope: Scope | null, writer: string | null): Promise<Row | undefined> {
  return (await run(pool, deleteStatement(table, id, scope, writer)))[0];
}
