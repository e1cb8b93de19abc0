import { evaluateComparison, evaluateIn, matchesLike } from './evaluate.js';
import type { ConstantValue, ResolvedExpression, ResolvedOperand } from './resolved.js';
import { operandsOf, someNode } from './walk.js';
import type { Constant, ExpressionVariable, Span } from './syntax.js';

/**
 * Folding (API.md, "Part 2 in detail", Access rules): the caller's values and the clock put in for `@auth.*` and
 * `@now`, comparisons between constants evaluated with SQL's three-valued logic, `and`/`or`/`not` simplified. What is
 * left is a condition on rows, or a constant: `false` or `null` (the server answers 403 whatever the row), `true` (no
 * condition to add). A comparison with a column is folded only when the other side is `null`: `user_id = null` is
 * null for every row, and a comparison through a path (an EXISTS) is then false.
 *
 * A rule only ever asks "is it true?" (WHERE), so where only truth counts (outside any `not`) a `null` among
 * operands that still depend on the row acts as `false`, and under one `not` as `true`: `user_id = @auth.id and
 * published = true` folds to false for anon. Everything constant keeps its exact three-valued value.
 */

export interface ExpressionCaller {
  id: string | null;
  role: string | null;
  email: string | null;
  /** True when the caller came with an API key. */
  key: boolean;
  verified: boolean | null;
  aal: number | null;
}

/** Anon: every `@auth.*` null, `@auth.key` and `@auth.verified` false. */
export const ANON_CALLER: Readonly<ExpressionCaller> = { id: null, role: null, email: null, key: false, verified: false, aal: null };

/** Who `/openapi.json` describes: anon, or a signed-in caller of whom only the role and the key kind are known. */
export type DescribedCaller = { anon: true } | { anon: false; role: string; key: boolean };

export type FoldedExpression = { kind: 'constant'; value: boolean | null } | { kind: 'condition'; condition: ResolvedExpression };

/** A variable's value, or unknown (still a variable in the result), known to be non-null or not. */
type Binding = { known: true; value: ConstantValue } | { known: false; nullable: boolean };
type Bindings = Readonly<Record<ExpressionVariable, Binding>>;

const known = (value: ConstantValue): Binding => ({ known: true, value });
const UNKNOWN: Binding = { known: false, nullable: false };

/** Folds for one caller at one instant: every variable is known, so only conditions on rows remain. */
export function foldExpression(expression: ResolvedExpression, caller: ExpressionCaller, now: Date): FoldedExpression {
  return foldWith(expression, {
    '@auth.id': known(caller.id),
    '@auth.role': known(caller.role),
    '@auth.email': known(caller.email),
    '@auth.key': known(caller.key),
    '@auth.verified': known(caller.verified),
    '@auth.aal': known(caller.aal),
    '@now': known(now),
  });
}

/**
 * Folds for the signed-in subscribers of a stream (server/src/realtime): every value known but `@auth.id`, which stays a
 * variable known to be non-null (and `@now` too when `now` is null: a fold for every request of a kind of caller; anon's
 * id is then known, null). Subscribers whose callers differ only in their id share the result, and a comparison
 * `column = @auth.id` left in it can be turned around to "which ids does this row let read" (one query per batch,
 * whatever the number of subscribers). For a caller with a non-null id it means what foldExpression means.
 */
export function foldExpressionLeavingId(expression: ResolvedExpression, caller: ExpressionCaller, now: Date | null): FoldedExpression {
  return foldWith(expression, {
    '@auth.id': caller.id === null ? known(null) : UNKNOWN,
    '@auth.role': known(caller.role),
    '@auth.email': known(caller.email),
    '@auth.key': known(caller.key),
    '@auth.verified': known(caller.verified),
    '@auth.aal': known(caller.aal),
    '@now': now === null ? UNKNOWN : known(now),
  });
}

/**
 * Whether every variable left in a folded expression is compared with a column (`user_id = @auth.id`,
 * `"createdAt" < @now`). Such a comparison folds only against null, so for any non-null value of those variables the
 * full fold (foldExpression) would keep the same tree with the value put in: the tree can be folded once per kind of
 * caller and the values bound when it is compiled (server/src/policies/access.ts).
 */
export function boundOnlyToColumns(node: ResolvedExpression): boolean {
  return !someNode(node, (each) => {
    if (each.kind !== 'compare') return operandsOf(each).some((operand) => operand.kind === 'variable');
    return (each.left.kind === 'variable' && each.right.kind !== 'column') || (each.right.kind === 'variable' && each.left.kind !== 'column');
  });
}

/**
 * Folds for the API description: anon's values are known (not the clock); for a signed-in caller only role and key,
 * the rest unknown but non-null. The description lists an operation unless this folds to false (or null, the same
 * 403).
 */
export function foldExpressionForDescription(expression: ResolvedExpression, caller: DescribedCaller): FoldedExpression {
  if (caller.anon) {
    const anon = ANON_CALLER;
    return foldWith(expression, {
      '@auth.id': known(anon.id),
      '@auth.role': known(anon.role),
      '@auth.email': known(anon.email),
      '@auth.key': known(anon.key),
      '@auth.verified': known(anon.verified),
      '@auth.aal': known(anon.aal),
      '@now': UNKNOWN,
    });
  }
  return foldWith(expression, {
    '@auth.id': UNKNOWN,
    '@auth.role': known(caller.role),
    '@auth.email': UNKNOWN,
    '@auth.key': known(caller.key),
    '@auth.verified': UNKNOWN,
    '@auth.aal': UNKNOWN,
    '@now': UNKNOWN,
  });
}

function foldWith(expression: ResolvedExpression, bindings: Bindings): FoldedExpression {
  const folded = fold(expression, bindings, true);
  return folded.kind === 'constant' ? { kind: 'constant', value: folded.value } : { kind: 'condition', condition: folded };
}

const constant = (value: boolean | null, span: Span): Constant => ({ kind: 'constant', value, position: span.position, end: span.end });
const isNull = (operand: ResolvedOperand) => operand.kind === 'value' && operand.value === null;

function substitute(operand: ResolvedOperand, bindings: Bindings): ResolvedOperand {
  if (operand.kind !== 'variable') return operand;
  const binding = bindings[operand.name];
  return binding.known ? { kind: 'value', value: binding.value, type: operand.type, position: operand.position, end: operand.end } : operand;
}

/** `positive`: only whether the node is true matters (outside `not`s, or under an even number); else only whether false. */
function fold(node: ResolvedExpression, bindings: Bindings, positive: boolean): ResolvedExpression {
  switch (node.kind) {
    case 'constant':
      return node;
    case 'not': {
      const operand = fold(node.operand, bindings, !positive);
      return operand.kind === 'constant' ? constant(operand.value === null ? null : !operand.value, node) : { ...node, operand };
    }
    case 'and':
    case 'or':
      return foldJunction(node, bindings, positive);
    case 'exists': {
      // The rows an EXISTS looks for must satisfy its condition: there only truth counts.
      const condition = fold(node.condition, bindings, true);
      if (condition.kind !== 'constant') return { ...node, condition };
      // Its comparisons all read the related row, so no fold makes them true; were one to, the EXISTS stands as it was.
      return condition.value === true ? node : constant(false, node);
    }
    case 'compare': {
      const left = substitute(node.left, bindings);
      const right = substitute(node.right, bindings);
      if (isNull(left) || isNull(right)) return constant(null, node);
      if (left.kind === 'value' && right.kind === 'value') return constant(evaluateComparison(node.op, left.value, right.value, node.type), node);
      return { ...node, left, right };
    }
    case 'in': {
      const operand = substitute(node.operand, bindings);
      if (operand.kind === 'value') return constant(evaluateIn(operand.value, node.values.map((value) => value.value), node.type), node);
      if (node.values.every((value) => value.value === null)) return constant(null, node);
      return { ...node, operand };
    }
    case 'like': {
      const operand = substitute(node.operand, bindings);
      if (operand.kind !== 'value') return { ...node, operand };
      return constant(operand.value === null ? null : matchesLike(String(operand.value), node.pattern.value, node.caseInsensitive), node);
    }
    case 'search':
      return node;
    case 'null-test': {
      const operand = substitute(node.operand, bindings);
      if (operand.kind === 'value') return constant((operand.value === null) !== node.negated, node);
      const binding = operand.kind === 'variable' ? bindings[operand.name] : undefined;
      if (binding && !binding.known && !binding.nullable) return constant(node.negated, node);
      return { ...node, operand };
    }
  }
}

function foldJunction(node: Extract<ResolvedExpression, { kind: 'and' | 'or' }>, bindings: Bindings, positive: boolean): ResolvedExpression {
  // `false` decides an `and`, `true` an `or`; the other value drops out.
  const decisive = node.kind === 'or';
  const operands: ResolvedExpression[] = [];
  let sawNull = false;
  for (const operand of node.operands) {
    const folded = fold(operand, bindings, positive);
    if (folded.kind === 'constant') {
      if (folded.value === decisive) return constant(decisive, node);
      if (folded.value === null) sawNull = true;
    } else if (folded.kind === node.kind) {
      operands.push(...folded.operands);
    } else {
      operands.push(folded);
    }
  }
  if (operands.length === 0) return constant(sawNull ? null : !decisive, node);
  // Beside row conditions a null acts as false where only truth counts, as true where only falsity does.
  if (sawNull && !positive === decisive) return constant(decisive, node);
  return operands.length === 1 ? operands[0]! : { ...node, operands };
}
