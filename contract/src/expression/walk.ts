import type { ResolvedExpression, ResolvedOperand } from './resolved.js';

/**
 * The one walk over a resolved tree, for the questions asked of every node (which variables, which columns, which
 * paths): each node once, parents before their children.
 */
export function forEachNode(node: ResolvedExpression, visit: (node: ResolvedExpression) => void): void {
  visit(node);
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.operands.forEach((operand) => forEachNode(operand, visit));
    case 'not':
      return forEachNode(node.operand, visit);
    case 'exists':
      return forEachNode(node.condition, visit);
    default:
      return;
  }
}

/** Whether some node of the tree satisfies `test`. */
export function someNode(node: ResolvedExpression, test: (node: ResolvedExpression) => boolean): boolean {
  let found = false;
  forEachNode(node, (each) => {
    found ||= test(each);
  });
  return found;
}

/** The operands a comparison reads (both sides of `compare`, the one of the others); none for the other nodes. */
export function operandsOf(node: ResolvedExpression): ResolvedOperand[] {
  switch (node.kind) {
    case 'compare':
      return [node.left, node.right];
    case 'in':
    case 'like':
    case 'null-test':
      return [node.operand];
    case 'search':
      return [node.column];
    default:
      return [];
  }
}
