import { checkExpression, foldExpression, type ResolvedExpression, type ResolvedStep } from '@basalt/contract';
import type { TableSchema } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { decideAccess, expressionCaller, type Scope } from '../../policies/access.js';
import type { RelationContext } from '../embed/plan.js';

/**
 * `filter=` (API.md, "The `filter` parameter"): an expression of the rules language about the listed table, folded
 * for the caller (`@auth.*` allowed), ANDed with the column filters and the policy. A path filters only by rows the
 * caller may read in each table it reaches (that table's read scope); a table whose read rule refuses the caller
 * whatever the row is the 403 it would be as an embed. Problems are 400 naming `filter` with the position.
 */

export interface ExpressionFilter {
  /** The folded condition: a constant when the caller decided it (`true`: no condition; else no row matches). */
  condition: ResolvedExpression;
  /** Each step's scope in the table it reaches. */
  scopes: Map<ResolvedStep, Scope | null>;
  /** The text as sent, for the cursor's binding. */
  text: string;
}

export const FILTER = 'filter';

export function planFilter(table: TableSchema, text: string, context: RelationContext | undefined): ExpressionFilter {
  if (!context?.tables.expressions) throw new ApiError('VALIDATION_ERROR', 'filter is not taken here', { parameter: FILTER });
  const checked = checkExpression(text, context.tables.expressions(), table.name);
  if (!checked.ok) throw new ApiError('VALIDATION_ERROR', `filter: ${checked.error.message}`, { parameter: FILTER, position: checked.error.position });
  const folded = foldExpression(checked.value.resolved, expressionCaller(context.caller), new Date());
  const condition: ResolvedExpression = folded.kind === 'constant' ? { kind: 'constant', value: folded.value, position: 0, end: text.length } : folded.condition;
  const scopes = new Map<ResolvedStep, Scope | null>();
  const visit = (node: ResolvedExpression): void => {
    if (node.kind === 'and' || node.kind === 'or') node.operands.forEach(visit);
    else if (node.kind === 'not') visit(node.operand);
    else if (node.kind === 'exists') {
      const reached = context.tables.served(node.step.table)!;
      const decision = decideAccess(reached, context.caller, 'read', context.surface, { embeddedAs: `filter (${node.step.written})` });
      if (!decision.allowed) throw decision.refusal;
      scopes.set(node.step, decision.scope);
      visit(node.condition);
    }
  };
  visit(condition);
  return { condition, scopes, text };
}
