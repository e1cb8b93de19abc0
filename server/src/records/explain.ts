import { ID_COLUMN, RULE_CHECK_OPERATIONS, type RuleCheckAnswer, type RuleCheckInput, type RuleCheckOperation, type RuleMember } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { invalidField } from '../errors.js';
import { decideAccess } from '../policies/access.js';
import type { Caller } from '../policies/caller.js';
import { defaultsOwner, describedRules } from '../policies/rules.js';
import { validateRecordBody } from './body.js';
import { checkedWrite, verdictStatement, READABLE } from './build/ruled.js';
import { insertStatement, updateStatement } from './build/writes.js';
import type { Built } from './build/shared.js';
import type { Executor } from './execute/outcome.js';
import type { PreparedPool } from '../db/preparedPool.js';

/** The check runs its writes in a transaction of its own on the primary's record pool. */
type PrimaryExecutor = Executor & { pool: PreparedPool };
import { run } from './execute/run.js';
import { coerceId } from './plan/index.js';
import { randomId } from '../ids.js';
import { generateId } from './values.js';

/**
 * Why (API.md, "Access rules", Explain): `POST /admin/tables/:name/rules/check` answers whether a caller (a user or
 * anon) may do an operation, on a row or a record, and which part refused: the rule false for them whatever the row,
 * the row missing or not readable, the operation's rule on that row, or `updateCheck` on the row after. It asks the
 * one access decision and runs the same statements a request would, writes in a transaction rolled back: nothing
 * is written.
 */

type CheckOperation = RuleCheckOperation;
type CheckInput = Omit<RuleCheckInput, 'as'>;
/** For `update` with a record, `rule` holds updateCheck's too. */
export type CheckAnswer = RuleCheckAnswer;

const REFUSED = 'BR403';

/** A write run and rolled back: whether the statement's own rule check refused it. */
async function refusedInDryRun(executor: PrimaryExecutor, built: Built): Promise<boolean> {
  const client = await executor.pool.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query({ text: built.statement.text, values: built.values });
    return false;
  } catch (error) {
    if ((error as { code?: unknown }).code === REFUSED) return true;
    throw error;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

export async function explainAccess(executor: PrimaryExecutor, table: TableSchema, caller: Caller, input: CheckInput): Promise<CheckAnswer> {
  const { operation } = input;
  const rules = describedRules(table);
  const member: RuleMember = operation;
  const rule = rules[member] ?? null;
  const answer = (allowed: boolean, reason: string, text = rule): CheckAnswer => ({ allowed, operation, rule: text, reason });
  const decision = decideAccess(table, caller, operation, 'api');
  if (!decision.allowed) return answer(false, decision.refusal.message);
  const read = decideAccess(table, caller, 'read', 'api');
  const readScope = read.allowed ? read.scope : 'none';

  if (operation === 'create') {
    if (!input.record) return answer(true, decision.scope ? 'allowed for the records the create rule holds for: give a record to check one' : 'allowed for every record');
    const values = validateRecordBody(table, input.record, 'api');
    const id = table.columns.get(ID_COLUMN)!;
    if (values[ID_COLUMN] === undefined && !id.hasDefault && id.type === 'text') values[ID_COLUMN] = generateId(id, randomId);
    if (table.effectivePolicy !== 'rules' && decision.scope?.kind === 'owner') values[decision.scope.ownerColumn] = decision.scope.userId;
    else if (defaultsOwner(table) && table.ownerColumn && values[table.ownerColumn] === undefined && caller.kind === 'user') values[table.ownerColumn] = caller.id;
    const insert = checkedWrite(table, insertStatement(table, values, null), decision.scope, readScope);
    if (await refusedInDryRun(executor, insert)) return answer(false, 'the create rule is false for this record as it would be stored');
    return answer(true, 'the create rule holds for this record as it would be stored');
  }

  if (input.id === undefined) return answer(true, decision.scope ? 'allowed on the rows the rule holds for: give an id to check one' : 'allowed on every row');
  const id = coerceId(table, input.id);
  const seen = (await run(executor.pool, verdictStatement(table, id, readScope)))[0];
  if (!seen) return answer(false, 'no such row');
  if (seen[READABLE] !== true) return answer(false, 'the row is not readable by this caller (the read rule is false for it), so it does not exist for them');
  if (operation === 'read') return answer(true, 'the read rule holds for this row');
  const holds = (await run(executor.pool, verdictStatement(table, id, decision.scope)))[0]?.[READABLE] === true;
  if (!holds) return answer(false, `the ${operation} rule is false for this row`);
  if (operation === 'delete' || !input.record) return answer(true, `the ${operation} rule holds for this row`);
  const after = decideAccess(table, caller, 'updateCheck', 'api');
  const both = `${rule ?? ''}; updateCheck: ${rules.updateCheck ?? rule ?? ''}`;
  if (!after.allowed) return answer(false, after.refusal.message, both);
  const changes = validateRecordBody(table, input.record, 'api');
  delete changes[ID_COLUMN];
  const update = checkedWrite(table, updateStatement(table, id, changes, [decision.scope], null), after.scope, readScope);
  if (await refusedInDryRun(executor, update)) return answer(false, 'updateCheck is false for the row after this change', both);
  return answer(true, 'the update rule holds for this row, and updateCheck for the row after this change', both);
}

/** The body of `rules/check`, checked (400 naming the field). */
export function parseCheckInput(body: Record<string, unknown>): CheckInput & { as: unknown } {
  for (const key of Object.keys(body)) {
    if (!['as', 'operation', 'id', 'record'].includes(key)) throw invalidField(key, `${key} is not taken: as, operation, id, record`);
  }
  const { operation, id, record } = body;
  if (typeof operation !== 'string' || !(RULE_CHECK_OPERATIONS as readonly string[]).includes(operation)) {
    throw invalidField('operation', `operation must be one of ${RULE_CHECK_OPERATIONS.join(', ')}`);
  }
  if (id !== undefined && (typeof id !== 'string' || id === '')) throw invalidField('id', 'id must be a record id (a string)');
  if (record !== undefined && (typeof record !== 'object' || record === null || Array.isArray(record))) throw invalidField('record', 'record must be an object');
  if (record !== undefined && (operation === 'read' || operation === 'delete')) throw invalidField('record', `record is not taken with ${operation}`);
  return { as: body.as, operation: operation as CheckOperation, ...(id !== undefined ? { id: id as string } : {}), ...(record !== undefined ? { record: record as Record<string, unknown> } : {}) };
}
