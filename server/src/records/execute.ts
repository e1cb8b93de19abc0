import type pg from 'pg';
import type { TableSchema } from '../db/schema.js';
import { notFound, unauthorized } from '../errors.js';
import { buildStatement, existsStatement, insertStatement, INSERTED, PRESENT, TOTAL, VERSION, type Built } from './build.js';
import { StaleSchemaError } from './fresh.js';
import { missingColumnError, type Plan, type Row } from './plan.js';

/**
 * Stage 5 of the record pipeline: runs a plan's statement on the record pool and says what happened. A write that
 * changed nothing spends a second round trip only to say why (the schema moved on, the writer is gone, no such row).
 */

export interface Executor {
  /** The record API's pool: named prepared statements, no query builder on the hot path. */
  pool: pg.Pool;
  /** Whether the schema version moved past the one a statement was planned with. */
  isStale(since: number): Promise<boolean>;
  /** Asked only when a write changed nothing, to say why. */
  userExists(userId: string): Promise<boolean>;
}

export type Outcome = { kind: 'page'; rows: Row[]; total: number } | { kind: 'record'; row: Row; created: boolean };

/** Runs a prepared statement on the pool: the server parses and plans it once per connection. */
async function run(pool: pg.Pool, { statement, values }: Built): Promise<Row[]> {
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
async function runShaped(pool: pg.Pool, { statement, values }: Built): Promise<Shaped> {
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

/** Reads carry the published schema version: a newer one means the plan came from an outdated cache. */
function checkVersion(table: TableSchema, first: Row): void {
  if (Number(first[VERSION] ?? 0) > table.schemaVersion) throw new StaleSchemaError();
}

const writerGone = () => unauthorized('The account of this token no longer exists');
const noRecord = (table: TableSchema, rawId: string) => notFound(`No record ${rawId} in ${table.name}`);
const record = (row: Row, created = false): Outcome => ({ kind: 'record', row, created });

/** A write that changed nothing may have been refused by the schema-version guard: then it is answered again. */
async function unlessStale(executor: Executor, table: TableSchema): Promise<void> {
  if (await executor.isStale(table.schemaVersion)) throw new StaleSchemaError();
}

async function writerExists(executor: Executor, writer: string | null): Promise<boolean> {
  return writer === null || executor.userExists(writer);
}

/** Nothing was written: the schema moved on, the writer's account is gone (401), or the row is not theirs (404). */
async function nothingWritten(executor: Executor, table: TableSchema, rawId: string, writer: string | null): Promise<never> {
  await unlessStale(executor, table);
  if (!(await writerExists(executor, writer))) throw writerGone();
  throw noRecord(table, rawId);
}

/** Update first; only when there is no row at all may the body create one (or say what it lacks). */
async function updateOrCreate(executor: Executor, plan: Extract<Plan, { kind: 'update-or-create' }>): Promise<Outcome> {
  const { pool } = executor;
  const updated = (await run(pool, buildStatement(plan)))[0];
  if (updated) return record(updated);
  await unlessStale(executor, plan.table);
  if (!(await writerExists(executor, plan.writer))) throw writerGone();
  // Not updated: either the row is another user's (404) or there is none and the body must create it.
  if ((await run(pool, existsStatement(plan.table, plan.id))).length > 0) throw noRecord(plan.table, plan.rawId);
  if (plan.missing.length > 0) throw missingColumnError(plan.table, plan.missing);
  const created = (await run(pool, insertStatement(plan.table, plan.insertValues, plan.writer)))[0];
  return created ? record(created, true) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
}

export async function execute(executor: Executor, plan: Plan): Promise<Outcome> {
  const { pool } = executor;
  switch (plan.kind) {
    case 'list': {
      const { records, first } = await runShaped(pool, buildStatement(plan));
      checkVersion(plan.table, first);
      return { kind: 'page', rows: records, total: Number(first[TOTAL] ?? 0) };
    }
    case 'get': {
      const { records, first } = await runShaped(pool, buildStatement(plan));
      checkVersion(plan.table, first);
      // No row, no version: the 404 is double-checked against the schema version by `answerFresh`.
      if (!records[0]) throw noRecord(plan.table, plan.rawId);
      return record(records[0]);
    }
    case 'create': {
      const row = (await run(pool, buildStatement(plan)))[0];
      if (row) return record(row, true);
      await unlessStale(executor, plan.table);
      throw writerGone();
    }
    case 'upsert': {
      const { records, first } = await runShaped(pool, buildStatement(plan));
      return records[0] ? record(records[0], first[INSERTED] === true) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
    }
    case 'update-or-create':
      return updateOrCreate(executor, plan);
    case 'delete': {
      const row = (await run(pool, buildStatement(plan)))[0];
      return row ? record(row) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
    }
  }
}
