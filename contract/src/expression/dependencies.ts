import type { ResolvedExpression, ResolvedOperand } from './resolved.js';

/**
 * The tables and columns a resolved expression reads, referencing columns of its paths included: dropping any of
 * them breaks the rule or filter (409 `CONFLICT` with `constraint: "rule"`, API.md "Part 2 in detail").
 */
export interface ExpressionDependencies {
  tables: string[];
  /** `<table>.<column>`. */
  columns: string[];
}

export function dependenciesOf(expression: ResolvedExpression, table: string): ExpressionDependencies {
  const tables = new Set([table]);
  const columns = new Set<string>();
  const visitOperand = (operand: ResolvedOperand) => {
    if (operand.kind !== 'column') return;
    for (const step of operand.path) {
      tables.add(step.table);
      columns.add(step.kind === 'one' ? `${step.from}.${step.column}` : `${step.table}.${step.column}`);
    }
    columns.add(`${operand.table}.${operand.column.name}`);
  };
  const visit = (node: ResolvedExpression): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return node.operands.forEach(visit);
      case 'not':
        return visit(node.operand);
      case 'exists':
        return visit(node.condition);
      case 'constant':
        return;
      case 'compare':
        return [node.left, node.right].forEach(visitOperand);
      case 'search':
        return visitOperand(node.column);
      default:
        return visitOperand(node.operand);
    }
  };
  visit(expression);
  return { tables: [...tables], columns: [...columns] };
}
