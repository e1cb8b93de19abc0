import type { SchemaCache } from '../db/schemaCache.js';
import { accountGone, ApiError } from '../errors.js';
import type { Caller } from '../policies/caller.js';
import { authorizeRecords, type Authorized, type Surface } from './authorize.js';
import { execute, type Executor, type Outcome } from './execute/index.js';
import { answerFresh } from '../db/fresh.js';
import type { PreparedPool, StatementPool } from '../db/preparedPool.js';
import type { Freshness } from '../replicas/headers.js';
import { operationOf, parseRequest, takesArrayBody, takesBody, type Body, type QueryParams, type RecordTarget } from './parse.js';
import { planRequest } from './plan/index.js';
import { respond, type Answer } from './respond.js';
import { csvColumns, type CsvColumn } from './csv/export.js';
import { csvCells, csvLines, withCsvLine } from './csv/import.js';

/**
 * The record pipeline, for `/api/:table` and the owner's `/admin/tables/:name/records` alike:
 * parse -> authorize -> plan -> build -> execute -> respond, each a module of its own.
 */

export interface RecordDeps extends Executor {
  /** The primary's record pool (writes, and reads without replicas). */
  pool: PreparedPool;
  cache: SchemaCache;
  /**
   * An API key caller checked again when the schema version moved since its key was verified (a revocation moves
   * it): the caller as it now stands, or a 401.
   */
  confirmCaller(caller: Caller): Promise<Caller>;
  /**
   * With read replicas: where a read runs, given what it must see (the schema it was planned with, the request's
   * `Basalt-Min-Lsn`, the caller's remembered writes). Without: every statement runs on `pool`.
   */
  readPool?(needs: { schemaLsn: bigint; minLsn: bigint | null; userId: string | null }): Promise<StatementPool>;
  /** Told of every record deleted through the pipeline, after the commit (a bucket's bytes go then: files/). */
  deleted?(table: string, id: string): void;
}

/** A record request as a route file hands it over: who calls, what they name, and how to read the body. */
export interface RecordCall {
  surface: Surface;
  /** Already checked by the route: credentials come before everything (401). */
  caller: Caller;
  target: RecordTarget;
  query: QueryParams;
  /** The length of the raw query string (the query language refuses more than 8 KiB). */
  queryBytes: number;
  /**
   * Reads the JSON body: an object, or also an array where `arrays` (a create: a bulk insert). Called only once the
   * policy allowed the write.
   */
  readBody(arrays: boolean): Promise<Body | unknown[]>;
  /** Read-your-writes: the request's `Basalt-Min-Lsn` and the signed-in caller (replicas/headers.ts). */
  freshness?: Freshness;
  /** The owner's records list seen as another caller (`?as=`): its cursors are bound to that caller. */
  viewAs?: string;
  /** A bucket's create or replace: the file columns an upload found (files/), set after the metadata body; asked once the body was read. */
  file?(): Body;
  /** The caller prefers CSV (`Accept: text/csv`): a list is answered as CSV. */
  csv?: boolean;
}

/**
 * The contract's order of checks: credentials (the route) -> table (404) -> policy (403) -> parameters and body (400)
 * -> row (404). Everything decided from the schema cache is answered from the current schema: a refusal or a
 * statement that finds the schema moved on reloads it and answers again (`answerFresh`).
 */
export async function answerRecordCall(deps: RecordDeps, call: RecordCall): Promise<Answer> {
  const { caller } = call;
  if (call.surface !== 'api' || caller.kind !== 'user' || operationOf(call.target.action) !== 'write') return answerCall(deps, call);
  try {
    return await answerCall(deps, call);
  } catch (error) {
    throw await unlessWriterGone(deps, caller.id, error);
  }
}

/** The refusals a write can meet before its statement runs, or instead of a row: policy, parameters, body, row. */
const REFUSALS_OF_A_WRITE = new Set([400, 403, 404, 409]);

/**
 * An access token outlives its account. The write statements refuse such a writer themselves (execute.ts, at no cost
 * on success), but a write can be refused before its statement runs: the policy, its parameters or body, a reference
 * it may not make. Such a refusal first asks whether the writer's account still exists, so a deleted account's token
 * gets the 401 that credentials, checked first, would have given (only refusals pay for the question).
 */
async function unlessWriterGone(deps: RecordDeps, writer: string, error: unknown): Promise<unknown> {
  if (!(error instanceof ApiError) || !REFUSALS_OF_A_WRITE.has(error.status)) return error;
  return (await deps.userExists(writer)) ? error : accountGone();
}

async function answerCall(deps: RecordDeps, call: RecordCall): Promise<Answer> {
  const { cache } = deps;
  const { surface, target } = call;
  let { caller } = call;
  const operation = operationOf(target.action);
  // A create with `onConflict` may update: it needs the rules of PUT's upsert.
  const action = target.action === 'create' && call.query.onConflict !== undefined ? 'upsert' : target.action;
  const authorizeNow = () => authorizeRecords(cache, surface, target.table, caller, operation, action);

  // A body is read only after the table and the policy allowed the write.
  let authorized: Authorized | undefined;
  let body: Body | unknown[] | undefined;
  if (takesBody(target.action)) {
    authorized = await answerFresh(cache, async () => {
      if (caller.kind === 'user' && caller.key) caller = await deps.confirmCaller(caller);
      return authorizeNow();
    });
    body = await call.readBody(takesArrayBody(target.action));
  }

  let csv: CsvColumn[] | null = null;
  const planAndRun = async (): Promise<Outcome> => {
    // A key verified under an older schema version may have been revoked since: it is checked again.
    if (caller.kind === 'user' && caller.key) caller = await deps.confirmCaller(caller);
    // The decision taken before the body holds while the schema it came from is still the loaded one.
    if (!authorized || authorized.table.schemaVersion !== cache.version) authorized = authorizeNow();
    // A CSV body's cells are read as the table's columns (json cells are JSON text).
    const request = parseRequest(target, call.query, fromCsv ? csvCells(authorized.table, body as Body[]) : body, call.queryBytes);
    if (call.viewAs !== undefined && request.action === 'list') request.params.viewAs = call.viewAs;
    if (call.file && (request.action === 'create' || request.action === 'update')) request.file = call.file();
    const plan = planRequest(request, authorized, deps.cursorKey);
    if (call.csv) csv = csvColumns(plan);
    if (!deps.readPool || operation !== 'read') return execute(deps, plan);
    // A read may go to a standby that replayed the schema it was planned with and what the caller wrote.
    const { minLsn = null, userId = null } = call.freshness ?? {};
    return execute({ ...deps, pool: await deps.readPool({ schemaLsn: cache.lsn, minLsn, userId }) }, plan);
  };
  // An error about a CSV body's record names the line it starts on.
  const fromCsv = csvLines(body) !== undefined;
  const outcome = await answerFresh(cache, fromCsv ? () => planAndRun().catch((error: unknown) => Promise.reject(withCsvLine(error, body))) : planAndRun);
  if (target.action === 'delete') deps.deleted?.(target.table, target.id);
  if (target.action === 'delete-where' && outcome.kind === 'records') for (const id of outcome.ids ?? []) deps.deleted?.(target.table, String(id));
  return respond(target.action, outcome, csv);
}
