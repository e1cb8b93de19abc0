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

function checkVersion(table: TableSchema, first: Row): void {
  if (Number(first[VERSION] ?? 0) > table.schemaVersion) throw new StaleSchemaError();
}

/** Runs a prepared statement on the pool: the server parses and plans it once per connection. */
async function run(pool: pg.Pool, { statement, values }: { statement: Statement; values: unknown[] }): Promise<Row[]> {
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

const BOOKKEEPING = new Set([TOTAL, VERSION, PRESENT, INSERTED]);

interface Shaped {
  /** The records, without the bookkeeping columns. */
  records: Row[];
  /** The bookkeeping columns of the first row (total, version, ...). */
  first: Row;
}

/**
 * Runs a statement whose rows carry bookkeeping columns and builds the records without them. Deleting properties
 * from the driver's row objects would turn them into slow dictionaries, which JSON.stringify then crawls through.
 */
async function runShaped(pool: pg.Pool, { statement, values }: { statement: Statement; values: unknown[] }): Promise<Shaped> {
  const result = await pool.query<unknown[]>({ name: statement.name, text: statement.text, values, rowMode: 'array' });
  const names = result.fields.map((field) => field.name);
  const keep = names.map((name) => !BOOKKEEPING.has(name));
  const presentAt = names.indexOf(PRESENT);
  const first: Row = {};
  const records: Row[] = [];
  result.rows.forEach((cells, index) => {
    if (index === 0) names.forEach((name, column) => BOOKKEEPING.has(name) && (first[name] = cells[column]));
    // Outer joins mark the rows that carry a record; a page past the end is one row of bookkeeping only.
    if (presentAt >= 0 && cells[presentAt] !== true) return;
    const record: Row = {};
    for (let column = 0; column < names.length; column++) if (keep[column]) record[names[column]!] = cells[column];
    records.push(record);
  });
  return { records, first };
}

export async function selectPage(pool: pg.Pool, table: TableSchema, query: ListQuery, scope: Scope | null): Promise<{ rows: Row[]; total: number }> {
  const { records, first } = await runShaped(pool, listStatement(table, query, scope));
  checkVersion(table, first);
  return { rows: records, total: Number(first[TOTAL] ?? 0) };
}

export async function selectOne(pool: pg.Pool, table: TableSchema, id: unknown, scope: Scope | null): Promise<Row | undefined> {
  const { records, first } = await runShaped(pool, getStatement(table, id, scope));
  checkVersion(table, first);
  return records[0];
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
  const { records, first } = await runShaped(pool, upsertStatement(table, insertValues, changes, scope, writer));
  const row = records[0];
  return row ? { row, created: first[INSERTED] === true } : undefined;
}

export async function deleteOne(pool: pg.Pool, table: TableSchema, id: unknown, scope: Scope | null, writer: string | null): Promise<Row | undefined> {
  return (await run(pool, deleteStatement(table, id, scope, writer)))[0];
}
