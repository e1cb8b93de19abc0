import type { Exists, ResolvedComparison, ResolvedExpression, ResolvedOperand, ResolvedStep } from './resolved.js';
import type { Span } from './syntax.js';

/**
 * Paths -> EXISTS (API.md, "Part 2 in detail", Access rules): a comparison through a path holds when some row the
 * path reaches satisfies it. Comparisons joined by `and` (at any depth of `and`) whose paths start with the same step
 * share one EXISTS, recursively for the next step, so they hold for one and the same related row; `or` and `not`
 * never merge. Merging through a to-one step changes nothing (there is at most one such row) and gives one subquery
 * per related table. A comparison through a path is therefore true or false, never null, and `not (p.c = x)` is
 * NOT EXISTS. Making the groups explicit here, before folding, keeps folding from changing which comparisons share
 * a row (`p.a = 1 and (p.b = 2 or @auth.role = 'x')` must not merge once the `or` folds away).
 */

type Bucket = { step: ResolvedStep; members: ResolvedComparison[] };

export function groupPaths(expression: ResolvedExpression): ResolvedExpression {
  return groupAt(expression, 0);
}

function isComparison(node: ResolvedExpression): node is ResolvedComparison {
  return node.kind !== 'and' && node.kind !== 'or' && node.kind !== 'not' && node.kind !== 'constant' && node.kind !== 'exists';
}

/** The path of a comparison's column (at most one side goes through a relation), or none. */
export function pathOf(comparison: ResolvedComparison): ResolvedStep[] {
  const sides: ResolvedOperand[] =
    comparison.kind === 'compare' ? [comparison.left, comparison.right] : comparison.kind === 'search' ? [comparison.column] : [comparison.operand];
  for (const side of sides) if (side.kind === 'column' && side.path.length > 0) return side.path;
  return [];
}

function conjunctsOf(node: ResolvedExpression): ResolvedExpression[] {
  return node.kind === 'and' ? node.operands.flatMap(conjunctsOf) : [node];
}

function disjunctsOf(node: ResolvedExpression): ResolvedExpression[] {
  return node.kind === 'or' ? node.operands.flatMap(disjunctsOf) : [node];
}

/** `level`: how many steps of every path the EXISTS around this node have already taken. */
function groupAt(node: ResolvedExpression, level: number): ResolvedExpression {
  switch (node.kind) {
    case 'and':
      return groupChain(conjunctsOf(node), level, node);
    case 'or':
      return { ...node, operands: disjunctsOf(node).map((operand) => groupAt(operand, level)) };
    case 'not':
      return { ...node, operand: groupAt(node.operand, level) };
    case 'constant':
    case 'exists':
      return node;
    default:
      return groupChain([node], level, node);
  }
}

function groupChain(conjuncts: ResolvedExpression[], level: number, span: Span): ResolvedExpression {
  const items: Array<ResolvedExpression | Bucket> = [];
  const buckets = new Map<string, Bucket>();
  for (const conjunct of conjuncts) {
    const step = isComparison(conjunct) ? pathOf(conjunct)[level] : undefined;
    if (!step || !isComparison(conjunct)) {
      items.push(isComparison(conjunct) ? conjunct : groupAt(conjunct, level));
      continue;
    }
    const key = `${step.kind} ${step.table} ${step.column}`;
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { step, members: [] };
      buckets.set(key, bucket);
      items.push(bucket);
    }
    bucket.members.push(conjunct);
  }
  const grouped = items.map((item) => ('members' in item ? existsOf(item, level) : item));
  return grouped.length === 1 ? grouped[0]! : { kind: 'and', operands: grouped, position: span.position, end: span.end };
}

function existsOf(bucket: Bucket, level: number): Exists {
  const span = { position: bucket.members[0]!.position, end: bucket.members[bucket.members.length - 1]!.end };
  return { kind: 'exists', step: bucket.step, level: level + 1, condition: groupChain(bucket.members, level + 1, span), ...span };
}
