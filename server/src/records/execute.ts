import type { PreparedPool } from '../db/preparedPool.js';
import type { TableSchema } from '../db/schema.js';
import { accountGone, conflict, notFound, referenceConflict, referenceRefused, uniqueKeyOf } from '../errors.js';
import { ID_COLUMN } from '@basalt/contract';
import { buildStatement, countsMaintained, estimateStatement, existsStatement, getManyStatement, getStatement, insertStatement, INSERTED, KEY_PREFIX, listStatement, PRESENT, readableStatement, TOTAL, VERSION, type Built } from './build.js';
import { encodeCursor, type CursorKey } from './query/cursor.js';
import { EXACT_COUNT_LIMIT } from './query/plan.js';
import { StaleSchemaError } from './fresh.js';
import { missingColumnError, type Plan, type ReferenceCheck, type Row } from './plan.js';

/**
 * Stage 5 of the record pipeline: runs a plan's statement on the record pool and says what happened. A write that
 * changed nothing spends a second round trip only to say why (the schema moved on, the writer is gone, no such row).
 */

export interface Executor {
  /** The record API's pool: named prepared statements (a bounded number per connection), no query builder. */
  pool: PreparedPool;
  /** Whether the schema version moved past the one a statement was planned with. */
  isStale(since: number): Promise<boolean>;
  /** Asked only when a write changed nothing, to say why. */
  userExists(userId: string): Promise<boolean>;
  /** Signs the `next` cursors of list pages (and checks `after`, in the plan). */
  cursorKey: CursorKey;
  /** `<table>.<column>` of the foreign key `constraint` on `table` (a delete it refused names it), if known. */
  referencingColumn(table: string, constraint: string): string | undefined;
}

export interface Page {
  kind: 'page';
  rows: Row[];
  /** Absent with `count=none`. */
  total?: number;
  /** With `count=estimated` only: whether `total` is exact. */
  totalExact?: boolean;
  /** The cursor of the page after this one, or null when no row follows. */
  next: string | null;
}

export type Outcome = Page | { kind: 'record'; row: Row; created: boolean } | { kind: 'records'; rows: Row[] };

/** Runs a prepared statement on the pool: the server parses and plans it once per connection. */
async function run(pool: PreparedPool, { statement, values }: Built): Promise<Row[]> {
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

const isBookkeeping = (name: string) => name.startsWith('__basalt_');

interface Shaped {
  /** The records, without the bookkeeping columns. */
  records: Row[];
  /** The bookkeeping columns of the first row (total, version, ...). */
  first: Row;
  /** The order keys of the record at `keysOf` (for a cursor), in order. */
  keys: Array<string | null>;
}

/**
 * Runs a statement whose rows carry bookkeeping columns and builds the records without them. Deleting properties
 * from the driver's row objects would turn them into slow dictionaries, which JSON.stringify then crawls through.
 */
async function runShaped(pool: PreparedPool, { statement, values }: Built, keysOf = -1): Promise<Shaped> {
  const result = await pool.query<unknown[]>({ name: statement.name, text: statement.text, values, rowMode: 'array' });
  const names = result.fields.map((field) => field.name);
  const keep = names.map((name) => !isBookkeeping(name));
  const presentAt = names.indexOf(PRESENT);
  const first: Row = {};
  const records: Row[] = [];
  let keys: Array<string | null> = [];
  result.rows.forEach((cells, index) => {
    if (index === 0) names.forEach((name, column) => !keep[column] && (first[name] = cells[column]));
    // Outer joins mark the rows that carry a record; a page past the end is one row of bookkeeping only.
    if (presentAt >= 0 && cells[presentAt] !== true) return;
    if (records.length === keysOf) keys = names.flatMap((name, column) => (name.startsWith(KEY_PREFIX) ? [cells[column] as string | null] : []));
    const record: Row = {};
    for (let column = 0; column < names.length; column++) if (keep[column]) record[names[column]!] = cells[column];
    records.push(record);
  });
  return { records, first, keys };
}

/** The planner's row estimate of a statement's `EXPLAIN (FORMAT JSON)`. */
function plannedRows(rows: Row[]): number {
  const plan = (rows[0]?.['QUERY PLAN'] as Array<{ Plan?: { 'Plan Rows'?: unknown } }> | undefined)?.[0]?.Plan;
  return Math.round(Number(plan?.['Plan Rows'] ?? 0));
}

/**
 * A page: one statement fetches one row more than asked, so the answer knows whether a next page exists, and the
 * page's last row gives the `next` cursor. `count=estimated` asks the planner first and counts exactly only when it
 * expects fewer than 100,000 matching rows.
 */
async function listPage(executor: Executor, plan: Extract<Plan, { kind: 'list' }>): Promise<Page> {
  const { pool } = executor;
  const { table, query, scope } = plan;
  let estimate: number | undefined;
  // A maintained count is exact and costs no more than an estimate.
  if (query.count === 'estimated' && !countsMaintained(table, query)) {
    const planned = plannedRows(await run(pool, estimateStatement(table, query, scope)));
    if (planned >= EXACT_COUNT_LIMIT) estimate = planned;
  }
  const counted = query.count === 'exact' || (query.count === 'estimated' && estimate === undefined);
  const { records, first, keys } = await runShaped(pool, listStatement(table, query, scope, counted), query.limit - 1);
  checkVersion(table, first);
  const page: Page = { kind: 'page', rows: records, next: null };
  if (query.limit > 0 && records.length > query.limit) {
    records.length = query.limit;
    page.next = encodeCursor(executor.cursorKey, query.binding, keys);
  }
  if (counted) page.total = Number(first[TOTAL] ?? 0);
  else if (estimate !== undefined) page.total = estimate;
  if (query.count === 'estimated') page.totalExact = estimate === undefined;
  return page;
}

/** Reads carry the published schema version: a newer one means the plan came from an outdated cache. */
function checkVersion(table: TableSchema, first: Row): void {
  if (Number(first[VERSION] ?? 0) > table.schemaVersion) throw new StaleSchemaError();
}

const noRecord = (table: TableSchema, rawId: string) => notFound(`No record ${rawId} in ${table.name}`);
const record = (row: Row, created = false): Outcome => ({ kind: 'record', row, created });

/**
 * A unique violation of a bulk insert names the record it came from: the last one holding the duplicate value (the
 * first may be the one that went in). Other errors go on to the usual translation.
 */
function withElementIndex(error: unknown, rows: Row[]): unknown {
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
async function checkReferences(pool: PreparedPool, checks: ReferenceCheck[], rows: Row[]): Promise<void> {
  for (const check of checks) {
    const values = [...new Set(rows.map((row) => row[check.column]).filter((value) => value !== undefined && value !== null))];
    const readable = new Set((await run(pool, readableStatement(check.table, check.scope, values))).map((row) => String(row.v)));
    const index = rows.findIndex((row) => row[check.column] !== undefined && row[check.column] !== null && !readable.has(String(row[check.column])));
    if (index >= 0) throw referenceRefused(check.column, rows.length > 1 ? index : undefined);
  }
}

/** A delete a `restrict` reference refused (23503): 409 naming the referencing column. */
function stillReferenced(executor: Executor, error: unknown): unknown {
  const { code, table, constraint } = (error ?? {}) as { code?: unknown; table?: unknown; constraint?: unknown };
  if (code !== '23503' || typeof table !== 'string' || typeof constraint !== 'string') return undefined;
  const column = executor.referencingColumn(table, constraint) ?? table;
  return referenceConflict(column, `The record is still referenced from ${column}: delete or change those records first`);
}

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
  if (!(await writerExists(executor, writer))) throw accountGone();
  throw noRecord(table, rawId);
}

/** Update first; only when there is no row at all may the body create one (or say what it lacks). */
async function updateOrCreate(executor: Executor, plan: Extract<Plan, { kind: 'update-or-create' }>): Promise<Outcome> {
  const { pool } = executor;
  await checkReferences(pool, plan.references, [plan.insertValues]);
  const updated = (await run(pool, buildStatement(plan)))[0];
  if (updated) return record(updated);
  await unlessStale(executor, plan.table);
  if (!(await writerExists(executor, plan.writer))) throw accountGone();
  // Not updated: either the row is another user's (404) or there is none and the body must create it.
  if ((await run(pool, existsStatement(plan.table, plan.id))).length > 0) throw noRecord(plan.table, plan.rawId);
  if (plan.missing.length > 0) throw missingColumnError(plan.table, plan.missing);
  const created = (await run(pool, insertStatement(plan.table, plan.insertValues, plan.writer)))[0];
  return created ? record(created, true) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
}

/**
 * A written record as the request's `select` asks for it (its columns and embeds, each embedded table under its own
 * policy), read back by id after the write; without a select, the record as stored.
 */
async function selected(pool: PreparedPool, plan: Plan, outcome: Outcome): Promise<Outcome> {
  if (!('selection' in plan) || !plan.selection) return outcome;
  if (outcome.kind === 'records') {
    const { records } = await runShaped(pool, getManyStatement(plan.table, outcome.rows.map((row) => row[ID_COLUMN]), plan.selection));
    return { kind: 'records', rows: records };
  }
  if (outcome.kind !== 'record') return outcome;
  const { records } = await runShaped(pool, getStatement(plan.table, outcome.row[ID_COLUMN], null, plan.selection));
  return records[0] ? { ...outcome, row: records[0] } : outcome;
}

export async function execute(executor: Executor, plan: Plan): Promise<Outcome> {
  const outcome = await executePlan(executor, plan);
  return plan.kind === 'create' || plan.kind === 'create-many' || plan.kind === 'upsert' || plan.kind === 'update-or-create' ? selected(executor.pool, plan, outcome) : outcome;
}

async function executePlan(executor: Executor, plan: Plan): Promise<Outcome> {
  const { pool } = executor;
  switch (plan.kind) {
    case 'list':
      return listPage(executor, plan);
    case 'get': {
      const { records, first } = await runShaped(pool, buildStatement(plan));
      checkVersion(plan.table, first);
      // No row, no version: the 404 is double-checked against the schema version by `answerFresh`.
      if (!records[0]) throw noRecord(plan.table, plan.rawId);
      return record(records[0]);
    }
    case 'create': {
      await checkReferences(pool, plan.references, [plan.values]);
      const row = (await run(pool, buildStatement(plan)))[0];
      if (row) return record(row, true);
      await unlessStale(executor, plan.table);
      throw accountGone();
    }
    case 'create-many': {
      await checkReferences(pool, plan.references, plan.rows);
      const rows = await run(pool, buildStatement(plan)).catch((error: unknown) => {
        throw withElementIndex(error, plan.rows);
      });
      if (rows.length > 0) return { kind: 'records', rows };
      await unlessStale(executor, plan.table);
      throw accountGone();
    }
    case 'upsert': {
      await checkReferences(pool, plan.references, [plan.insertValues]);
      const { records, first } = await runShaped(pool, buildStatement(plan));
      return records[0] ? record(records[0], first[INSERTED] === true) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
    }
    case 'update-or-create':
      return updateOrCreate(executor, plan);
    case 'delete': {
      const row = (await run(pool, buildStatement(plan)).catch((error: unknown) => {
        throw stillReferenced(executor, error) ?? error;
      }))[0];
      return row ? record(row) : nothingWritten(executor, plan.table, plan.rawId, plan.writer);
    }
  }
}
