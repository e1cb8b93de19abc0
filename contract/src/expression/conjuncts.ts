import type { Expression } from './syntax.js';

/**
 * The parts of an expression that must all hold: its top-level `and` operands, through parenthesised `and`s. The
 * server asks this of a `create` rule: only one with the conjunct `<owner> = @auth.id` sets an owner column left out
 * of the body to the caller (API.md, "Part 2 in detail", Access rules).
 */
export function topLevelConjuncts(expression: Expression): Expression[] {
  return expression.kind === 'and' ? expression.operands.flatMap(topLevelConjuncts) : [expression];
}

/** `<column> = @auth.id` or `@auth.id = <column>`, the column the expression's table's own. */
export function isCallerColumnCondition(condition: Expression, column: string): boolean {
  if (condition.kind !== 'compare' || condition.op !== 'eq') return false;
  const sides = [condition.left, condition.right];
  return (
    sides.some((side) => side.kind === 'variable' && side.name === '@auth.id') &&
    sides.some((side) => side.kind === 'name' && side.steps.length === 0 && side.column.name === column)
  );
}

/** Whether the expression has the top-level conjunct `<column> = @auth.id`. */
export function hasCallerColumnConjunct(expression: Expression, column: string): boolean {
  return topLevelConjuncts(expression).some((conjunct) => isCallerColumnCondition(conjunct, column));
}
