import { ID_COLUMN, type ForbiddenDetails } from '@basalt/contract';
import type { TableSchema } from '../../db/schema.js';
import { accountGone, forbidden, referenceRefused } from '../../errors.js';
import type { WriteRules } from '../authorize.js';
import { deleteStatement, insertManyStatement, updateStatement } from '../build/writes.js';
import { checkedWrite, READABLE, REFERENCE_REFUSED, ruledCreate, verdictStatement } from '../build/ruled.js';
import { missingColumnError, type Plan, type ReferenceCheck, type Row } from '../plan/index.js';
import { hiddenRows, type Executor, type Outcome } from './outcome.js';
import { run } from './run.js';
import { checkReferences, noRecord, stillReferenced, unlessStale, withElementIndex } from './writes.js';

/**
 * The execute stage of writes to a `rules` table (build/ruled.ts has their statements): a refusal the statement
 * raised (BR403) becomes the 403 of the rule that refused, a write that touched nothing is told apart as "no such
 * row" (404, or PUT's create), "not readable" (404) or "refused by the rule" (403), and a written row the caller may
 * not read is answered as `{ id }`.
 */

type Ruled<K extends Plan['kind']> = Extract<Plan, { kind: K }> & { rules: WriteRules };
export type RuledPlan = Ruled<'create'> | Ruled<'create-many'> | Ruled<'update-or-create'> | Ruled<'delete'>;

const REFUSED = 'BR403';

export function refusal(table: TableSchema, operation: 'create' | 'update' | 'delete', extra: Partial<ForbiddenDetails> = {}): Error {
  const what = extra.check ? 'leave the record this way' : operation === 'create' ? 'create this record' : `${operation} this record`;
  const index = extra.index !== undefined ? `Record ${extra.index}: ` : '';
  return forbidden(`${index}The rules of ${table.name} do not allow this caller to ${what}`, { table: table.name, policy: 'rules', operation, ...extra });
}

/**
 * A refusal raised inside the statement: the rule's, with the 1-based position of the first refused row, or a
 * reference's (the column, before anything was written).
 */
function refusedBy(error: unknown): number | { reference: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== REFUSED || typeof message !== 'string') return undefined;
  return message.startsWith(REFERENCE_REFUSED) ? { reference: message.slice(REFERENCE_REFUSED.length) } : Number(message);
}

/** Rows as answered: the bookkeeping columns left out, and only `{ id }` of a row the caller may not read. */
export function answered(rows: Row[]): Row[] {
  return rows.map((row) => {
    if (row[READABLE] !== true) {
      const hidden = { [ID_COLUMN]: row[ID_COLUMN] };
      hiddenRows.add(hidden);
      return hidden;
    }
    return Object.fromEntries(Object.entries(row).filter(([name]) => !name.startsWith('__basalt_')));
  });
}

async function written(plan: RuledPlan, write: () => Promise<Row[]>, operation: 'create' | 'update', many = false): Promise<Row[]> {
  try {
    return await write();
  } catch (error) {
    const position = refusedBy(error);
    if (position === undefined) throw error;
    if (typeof position === 'object') throw referenceRefused(position.reference);
    if (operation === 'update') throw refusal(plan.table, 'update', { check: true });
    throw refusal(plan.table, 'create', many ? { index: position - 1 } : {});
  }
}

/** One record's create: its limited references and the create rule checked in its one statement (build/ruled.ts). */
async function create(executor: Executor, plan: RuledPlan, values: Row, rules: WriteRules, references: readonly ReferenceCheck[]): Promise<Outcome> {
  const rows = await written(plan, () => run(executor.pool, ruledCreate(plan.table, values, plan.writer, references, rules.create ?? null, rules.read)), 'create');
  if (!rows[0]) {
    await unlessStale(executor, plan.table);
    throw accountGone();
  }
  return { kind: 'record', row: answered(rows)[0]!, created: true };
}

/** Whether the row exists, and whether the caller may read it (for the 404 / 403 of a write that touched nothing). */
async function verdict(executor: Executor, plan: RuledPlan & { id: unknown; rawId: string }): Promise<'missing' | 'hidden' | 'readable'> {
  await unlessStale(executor, plan.table);
  if (plan.writer !== null && !(await executor.userExists(plan.writer))) throw accountGone();
  const row = (await run(executor.pool, verdictStatement(plan.table, plan.id, plan.rules.read)))[0];
  return !row ? 'missing' : row[READABLE] === true ? 'readable' : 'hidden';
}

export async function executeRuled(executor: Executor, plan: RuledPlan): Promise<Outcome> {
  const { pool } = executor;
  const { table, rules } = plan;
  switch (plan.kind) {
    case 'create':
      return create(executor, plan, plan.values, rules, plan.references);
    case 'create-many': {
      await checkReferences(pool, plan.references, plan.rows);
      const base = insertManyStatement(table, plan.rows, plan.writer);
      const rows = await written(plan, () => run(pool, checkedWrite(table, base, rules.create ?? null, rules.read)), 'create', true).catch((error: unknown) => {
        throw withElementIndex(error, plan.rows);
      });
      if (rows.length > 0) return { kind: 'records', rows: answered(rows) };
      await unlessStale(executor, table);
      throw accountGone();
    }
    case 'update-or-create': {
      await checkReferences(pool, plan.references, [plan.insertValues]);
      const update = updateStatement(table, plan.id, plan.changes, [plan.scope, rules.update ?? null], plan.writer);
      const rows = await written(plan, () => run(pool, checkedWrite(table, update, rules.updateCheck ?? null, rules.read)), 'update');
      if (rows[0]) return { kind: 'record', row: answered(rows)[0]!, created: false };
      const found = await verdict(executor, plan);
      if (found === 'readable') throw refusal(table, 'update');
      if (found === 'hidden' || plan.updateOnly) throw noRecord(table, plan.rawId);
      if (plan.missing.length > 0) throw missingColumnError(table, plan.missing);
      // Its references were checked before the update.
      return create(executor, plan, plan.insertValues, rules, []);
    }
    case 'delete': {
      const row = (
        await run(pool, deleteStatement(table, plan.id, [plan.scope, rules.delete ?? null], plan.writer)).catch((error: unknown) => {
          throw stillReferenced(executor, error) ?? error;
        })
      )[0];
      if (row) return { kind: 'record', row, created: false };
      const found = await verdict(executor, plan);
      if (found === 'readable') throw refusal(table, 'delete');
      throw noRecord(table, plan.rawId);
    }
  }
}
