import { ID_COLUMN } from '@basalt/contract';
import type { StatementPool } from '../../db/preparedPool.js';
import type { TableSchema } from '../../db/schema.js';
import { StaleSchemaError } from '../../db/fresh.js';
import { accountGone, conflict, notFound, referenceConflict, referenceRefused, uniqueKeyOf } from '../../errors.js';
import { buildStatement, existsStatement, getManyStatement, getStatement, insertStatement, readableStatement } from '../build/index.js';
import { missingColumnError, type Plan, type ReferenceCheck, type Row } from '../plan/index.js';
import { hiddenRows, type Executor, type Outcome } from './outcome.js';
import { run, runShaped } from './run.js';

/**
 * The write side of the execute stage: the checks around a write (references a writer may make, why nothing was
 * written), PUT's update-then-create, and reading a written record back as its `select` asks.
 */

export const noRecord = (table: TableSchema, rawId: string) => notFound(`No record ${rawId} in ${table.name}`);
export const record = (row: Row, created = false): Outcome => ({ kind: 'record', row, created });

/**
 * A unique violation of a bulk insert names the record it came from: the last one holding the duplicate value (the
 * first may be the one that went in). Other errors go on to the usual translation.
 */
export function withElementIndex(error: unknown, rows: Row[]): unknown {
  const key = uniqueKeyOf(error);
  if (!key) return error;
  let index = -1;
  rows.forEach((row, at) => {
    const value = row[key.column];
    if (value !== undefined && value !== null && (value instanceof Date ? value.toISOString() : String(value)) === key.value) index = at;
  });
  if (index < 0) return error;
  const table = (error as { table?: string }).table ?? 'record';
  return conflict(`${table}.${key.column}`, `Record ${index}: a record with this ${key.column} already exists`, index);
}

/**
 * Before a write: every value of a limited reference column names a row the writer may read (their own, in an
 * owner-scoped table). One query per such column, whatever the number of records; the first record naming another
 * row is refused exactly as a missing row would be.
 */
export async function checkReferences(pool: StatementPool, checks: ReferenceCheck[], rows: Row[]): Promise<void> {
  for (const check of checks) {
    const values = [...new Set(rows.map((row) => row[check.column]).filter((value) => value !== undefined && value !== null))];
    const readable = new Set((await run(pool, readableStatement(check.table, check.scope, values))).map((row) => String(row.v)));
    const index = rows.findIndex((row) => row[check.column] !== undefined && row[check.column] !== null && !readable.has(String(row[check.column])));
    if (index >= 0) throw referenceRefused(check.column, rows.length > 1 ? index : undefined);
  }
}

/** A delete a `restrict` reference refused (23503): 409 naming the referencing column. */
export function stillReferenced(executor: Executor, error: unknown): unknown {
  const { code, table, constraint } = (error ?? {}) as { code?: unknown; table?: unknown; constraint?: unknown };
  if (code !== '23503' || typeof table !== 'string' || typeof constraint !== 'string') return undefined;
  const column = executor.referencingColumn(table, constraint) ?? table;
  return referenceConflict(column, `The record is still referenced from ${column}: delete or change those records first`);
}

/** A write that changed nothing may have been refused by the schema-version guard: then it is answered again. */
export async function unlessStale(executor: Executor, table: TableSchema): Promise<void> {
  if (await executor.isStale(table.schemaVersion)) throw new StaleSchemaError();
}

async function writerExists(executor: Executor, writer: string | null): Promise<boolean> {
  return writer === null || executor.userExists(writer);
}

/** Nothing was written: the schema moved on, the writer's account is gone (401), or the row is not theirs (404). */
export async function nothingWritten(executor: Executor, table: TableSchema, rawId: string, writer: string | null): Promise<never> {
  await unlessStale(executor, table);
  if (!(await writerExists(executor, writer))) throw accountGone();
  throw noRecord(table, rawId);
}

/** Update first; only when there is no row at all may the body create one (or say what it lacks). */
export async function updateOrCreate(executor: Executor, plan: Extract<Plan, { kind: 'update-or-create' }>): Promise<Outcome> {
  const { pool } = executor;
  await checkReferences(pool, plan.references, [plan.insertValues]);
  const updated = (await run(pool, buildStatement(plan)))[0];
  if (updated) return record(updated);
  await unlessStale(executor, plan.table);
  if (!(await writerExists(executor, plan.writer))) throw accountGone();
  // Not updated: either the row is another user's (404) or there is none and the body must create it.
  if (plan.updateOnly || (await run(pool, existsStatement(plan.table, plan.id))).length > 0) throw noRecord(plan.table, plan.rawId);
  if (plan.missing.length > 0) throw missingColumnError(plan.table, plan.missing);
  const created = (await run(pool, insertStatement(plan.table, plan.insertValues, plan.writer)))[0];
  return created ? record(created, true) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
}

/**
 * A written record as the request's `select` asks for it (its columns and embeds, each embedded table under its own
 * policy), read back by id after the write; without a select, the record as stored.
 */
export async function selected(pool: StatementPool, plan: Plan, outcome: Outcome): Promise<Outcome> {
  if (!('selection' in plan) || !plan.selection) return outcome;
  if (outcome.kind === 'records') {
    // Rows the caller may not read (under `rules`) stay `{ id }`; the others are read back as selected.
    const shown = outcome.rows.filter((row) => !hiddenRows.has(row));
    const { records } = await runShaped(pool, getManyStatement(plan.table, shown.map((row) => row[ID_COLUMN]), plan.selection));
    // They come back in the order of the ids asked (a select need not include the id).
    let next = 0;
    return { ...outcome, rows: outcome.rows.map((row) => (hiddenRows.has(row) ? row : (records[next++] ?? row))) };
  }
  if (outcome.kind !== 'record' || hiddenRows.has(outcome.row)) return outcome;
  const { records } = await runShaped(pool, getStatement(plan.table, outcome.row[ID_COLUMN], null, plan.selection));
  return records[0] ? { ...outcome, row: records[0] } : outcome;
}
