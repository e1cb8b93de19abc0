import { ID_COLUMN } from '@basalt/contract';
import { StaleSchemaError } from '../../db/fresh.js';
import { accountGone, ApiError, conflict, forbidden } from '../../errors.js';
import { changeWhereStatement, countWhereStatement, keyReadableStatement, MATCHED, REFUSED_CREATE, REFUSED_ID, REFUSED_KEY, REFUSED_UPDATE, upsertOnStatement } from '../build/many.js';
import { INSERTED, PRESENT, VERSION } from '../build/index.js';
import { READABLE } from '../build/ruled.js';
import type { ChangeWherePlan, Row, UpsertOnPlan } from '../plan/index.js';
import type { Executor, Outcome } from './outcome.js';
import { answered, refusal } from './ruled.js';
import { run, runShaped } from './run.js';
import { checkReferences, stillReferenced, unlessStale, withElementIndex } from './writes.js';

/**
 * The execute stage of writes to many rows (build/many.ts has their statements): a change by filter over its `limit`
 * (400 with how many matched), an `updateCheck` refusal (403 naming the row), a refused upsert element (409 when the
 * caller cannot read the row holding its key, 403 when they can but may not update it).
 */

/** The message of a refusal `_basalt_refuse` raised inside a statement (SQLSTATE BR403), if it is one. */
function refusedWith(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'BR403' && typeof message === 'string' ? message : undefined;
}

const bookkeeping = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([name]) => !name.startsWith('__basalt_')));

/** The rows a statement answered: `{ id }` of those a rule lets the caller change but not read afterwards. */
const shown = (rows: Row[], ruled: boolean): Row[] => (ruled ? answered(rows) : rows.map(bookkeeping));

async function changed(executor: Executor, plan: ChangeWherePlan): Promise<{ rows: Row[]; first: Row }> {
  const statement = changeWhereStatement(plan);
  try {
    if (!plan.ruled) {
      const { records, first } = await runShaped(executor.pool, statement);
      return { rows: records, first };
    }
    const rows = await run(executor.pool, statement);
    return { rows: answered(rows.filter((row) => row[PRESENT] === true)), first: rows[0] ?? {} };
  } catch (error) {
    const refused = refusedWith(error);
    if (refused?.startsWith(REFUSED_ID)) throw refusal(plan.table, 'update', { check: true, id: refused.slice(REFUSED_ID.length) });
    throw stillReferenced(executor, error) ?? error;
  }
}

export async function executeChangeWhere(executor: Executor, plan: ChangeWherePlan): Promise<Outcome> {
  const { table } = plan;
  if (plan.dryRun) {
    const row = (await run(executor.pool, countWhereStatement(plan)))[0]!;
    if (Number(row[VERSION]) !== table.schemaVersion) throw new StaleSchemaError();
    return { kind: 'matched', matched: Number(row[MATCHED]) };
  }
  await checkReferences(executor.pool, plan.references, [plan.changes]);
  const { rows, first } = await changed(executor, plan);
  if (Number(first[VERSION]) > table.schemaVersion) throw new StaleSchemaError();
  const matched = Number(first[MATCHED] ?? 0);
  if (matched > plan.limit) {
    throw new ApiError('VALIDATION_ERROR', `${matched} records match, more than limit (${plan.limit}): nothing was changed. Narrow the filter, or raise limit (at most 1000)`, {
      parameter: 'limit',
      matched,
    });
  }
  if (rows.length === 0 && matched > 0) {
    // Matching rows, none changed: the schema moved on or the writer's account is gone.
    await unlessStale(executor, table);
    if (plan.writer !== null && !(await executor.userExists(plan.writer))) throw accountGone();
  }
  const ids = rows.map((row) => row[ID_COLUMN]);
  const columns = plan.op === 'delete' ? plan.selection?.columns : null;
  // A delete's select is applied to the rows it removed (nothing is left to read back).
  const answer = columns ? rows.map((row) => Object.fromEntries(columns.map((column) => [column.name, row[column.name]]))) : rows;
  return { kind: 'records', rows: answer, ids, changed: true };
}

/** Why an upsert element was refused: the caller cannot read the row holding its key (409), or may not update it (403). */
async function keyRefusal(executor: Executor, plan: UpsertOnPlan, index: number): Promise<Error> {
  const { table, key } = plan;
  if (plan.rules) {
    const row = (await run(executor.pool, keyReadableStatement(table, key, plan.rows[index]![key.name], plan.rules.read)))[0];
    if (row?.[READABLE] === true) return forbidden(`Record ${index}: the rules of ${table.name} do not allow this caller to update the record with this ${key.name}`, { table: table.name, policy: 'rules', operation: 'update', index });
  }
  return conflict(`${table.name}.${key.name}`, `Record ${index}: a record with this ${key.name} exists and cannot be changed by this caller`, index);
}

export async function executeUpsertOn(executor: Executor, plan: UpsertOnPlan): Promise<Outcome> {
  const { pool } = executor;
  const { table } = plan;
  await checkReferences(pool, plan.references, plan.rows);
  let rows: Row[];
  try {
    rows = await run(pool, upsertOnStatement(plan));
  } catch (error) {
    const refused = refusedWith(error);
    if (refused?.startsWith(REFUSED_KEY)) throw await keyRefusal(executor, plan, Number(refused.slice(REFUSED_KEY.length)));
    if (refused?.startsWith(REFUSED_CREATE)) throw refusal(table, 'create', { index: Number(refused.slice(REFUSED_CREATE.length)) });
    if (refused?.startsWith(REFUSED_UPDATE)) throw refusal(table, 'update', { check: true, index: Number(refused.slice(REFUSED_UPDATE.length)) });
    throw withElementIndex(error, plan.rows);
  }
  if (rows.length === 0) {
    await unlessStale(executor, table);
    throw accountGone();
  }
  const answer = shown(rows, plan.rules !== undefined);
  if (plan.single) return { kind: 'record', row: answer[0]!, created: rows[0]![INSERTED] === true };
  return { kind: 'records', rows: answer };
}
