import { checkExpression, dependenciesOf, operandsOf, someNode, type ExpressionDependencies } from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import type { TableSchema } from '../db/schema.js';
import { ApiError, invalidField } from '../errors.js';
import type { Caller } from '../policies/caller.js';
import { planFilter, type ExpressionFilter } from '../records/index.js';

/**
 * A webhook's `filter` (API.md, Webhooks): the rules language about its one table, planned by the record pipeline's
 * `filter=` planner as the owner's tools see the table (a webhook is the owner's: every row, every path), and
 * evaluated on each change's row when it is queued (`@now` then). It has no caller, so `@auth` is refused.
 */

/** The owner's tools as a caller: the access decision answers every table in full on the admin surface. */
const WEBHOOK_CALLER: Caller = Object.freeze({ kind: 'user', id: '', role: 'owner', sessionId: null });

export function planWebhookFilter(cache: SchemaCache, table: TableSchema, text: string): ExpressionFilter {
  const checked = checkExpression(text, cache.expressions(), table.name);
  if (checked.ok && someNode(checked.value.resolved, (node) => operandsOf(node).some((operand) => operand.kind === 'variable' && operand.name.startsWith('@auth')))) {
    throw invalidField('filter', 'filter may not use @auth: a webhook has no caller');
  }
  try {
    return planFilter(table, text, { tables: cache, caller: WEBHOOK_CALLER, surface: 'admin' });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') throw error;
    // planFilter names the `filter` parameter; here it is the body's field.
    const position = error.details?.position;
    throw new ApiError('VALIDATION_ERROR', error.message, { field: 'filter', ...(position !== undefined ? { position } : {}) });
  }
}

/** The tables and columns a webhook's filter reads (null when it no longer resolves). */
export function filterDependencies(cache: SchemaCache, table: string, text: string): ExpressionDependencies | null {
  const checked = checkExpression(text, cache.expressions(), table);
  return checked.ok ? dependenciesOf(checked.value.resolved, table) : null;
}
