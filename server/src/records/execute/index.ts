import { EXACT_COUNT_LIMIT } from '@basalt/contract';
import { accountGone } from '../../errors.js';
import { buildStatement, countsMaintained, estimateStatement, INSERTED, listStatement, TOTAL } from '../build/index.js';
import { encodeCursor } from '../query/cursor.js';
import type { Plan } from '../plan/index.js';
import type { Executor, Outcome, Page } from './outcome.js';
import { executeRuled, type RuledPlan } from './ruled.js';
import { executeChangeWhere, executeUpsertOn } from './many.js';
import { aggregateStatement } from '../build/aggregate.js';
import { checkVersion, plannedRows, run, runShaped } from './run.js';
import { checkReferences, noRecord, nothingWritten, record, selected, stillReferenced, unlessStale, updateOrCreate, withElementIndex } from './writes.js';

/**
 * Stage 5 of the record pipeline: runs a plan's statement on the record pool and says what happened. A write that
 * changed nothing spends a second round trip only to say why (the schema moved on, the writer is gone, no such row).
 * run.ts runs statements, writes.ts holds the checks around writes; this file is the stage itself.
 */

export type { Executor, Outcome, Page } from './outcome.js';

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
  if (query.count === 'estimated' && !countsMaintained(table, query, scope)) {
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

/** A page of groups (query/aggregate.ts): no total; the cursor of its last group when more follow. */
async function aggregatePage(executor: Executor, plan: Extract<Plan, { kind: 'aggregate' }>): Promise<Page> {
  const { query } = plan;
  const { records, first, keys } = await runShaped(executor.pool, aggregateStatement(plan.table, query, plan.scope), query.limit - 1);
  checkVersion(plan.table, first);
  const page: Page = { kind: 'page', rows: records, next: null };
  if (query.limit > 0 && records.length > query.limit) {
    records.length = query.limit;
    page.next = encodeCursor(executor.cursorKey, query.binding, keys);
  }
  return page;
}

/** Writes whose answer is read back as their `select` asks (a delete's is cut from the rows it removed). */
const READ_BACK = new Set<Plan['kind']>(['create', 'create-many', 'upsert', 'update-or-create', 'upsert-on']);

export async function execute(executor: Executor, plan: Plan): Promise<Outcome> {
  const outcome = await executePlan(executor, plan);
  return READ_BACK.has(plan.kind) || (plan.kind === 'change-where' && plan.op === 'update') ? selected(executor.pool, plan, outcome) : outcome;
}

async function executePlan(executor: Executor, plan: Plan): Promise<Outcome> {
  const { pool } = executor;
  // Writes to many rows take their rules in their own statements (build/many.ts).
  if (plan.kind === 'change-where') return executeChangeWhere(executor, plan);
  if (plan.kind === 'upsert-on') return executeUpsertOn(executor, plan);
  if ('rules' in plan && plan.rules) return executeRuled(executor, plan as RuledPlan);
  switch (plan.kind) {
    case 'list':
      return listPage(executor, plan);
    case 'aggregate':
      return aggregatePage(executor, plan);
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
