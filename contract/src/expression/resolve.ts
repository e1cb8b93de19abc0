import { isReservedTable } from '../names.js';
import { groupPaths } from './group.js';
import { parseExpression } from './parser.js';
import { printName, printNameSegment } from './print.js';
import type { ExpressionRelation, ExpressionSchema, ResolvedColumn, ResolvedExpression, ResolvedStep } from './resolved.js';
import { ExpressionError, VARIABLE_TYPES, type Expression, type ExpressionResult, type Name, type Operand, type PathStep } from './syntax.js';
import { typeCompare, typeIn, typeNullTest, typeTextMatch, type Side } from './typecheck.js';

/**
 * A parsed expression checked against the schema, about one table: every name bound to a column of that table or of
 * one its path reaches, every comparison typed (typecheck.ts), then every path grouped into the EXISTS it means
 * (group.ts). Errors carry the position of the offending segment, literal or operator. Paths never reach `users`,
 * `sessions` or system tables: a rule reads the tables it reaches whole, whatever their own policy.
 */

export function resolveExpression(expression: Expression, schema: ExpressionSchema, table: string): ExpressionResult<ResolvedExpression> {
  try {
    if (!schema.table(table)) throw new ExpressionError(`unknown table ${table}`, 0);
    return { ok: true, value: groupPaths(new Resolver(schema, table).resolve(expression)) };
  } catch (error) {
    if (error instanceof ExpressionError) return { ok: false, error };
    throw error;
  }
}

/** Parse and resolve in one call: what the server does when a rule or filter arrives, and the console as one is typed. */
export function checkExpression(
  text: string,
  schema: ExpressionSchema,
  table: string,
): ExpressionResult<{ expression: Expression; resolved: ResolvedExpression }> {
  const parsed = parseExpression(text);
  if (!parsed.ok) return parsed;
  const resolved = resolveExpression(parsed.value, schema, table);
  return resolved.ok ? { ok: true, value: { expression: parsed.value, resolved: resolved.value } } : resolved;
}

/** At most this many choices are listed in a message. */
const LISTED_CHOICES = 12;

function listed(names: string[]): string {
  const shown = names.slice(0, LISTED_CHOICES).join(', ');
  return names.length > LISTED_CHOICES ? `${shown}, ...` : shown;
}

const writtenReference = (table: string, column: string) => `"${table.replace(/"/g, '""')}"."${column.replace(/"/g, '""')}"`;

function writtenRelation(relation: ExpressionRelation): string {
  return relation.kind === 'many' ? writtenReference(relation.table, relation.column) : printNameSegment(relation.name);
}

class Resolver {
  constructor(
    private readonly schema: ExpressionSchema,
    private readonly table: string,
  ) {}

  resolve(node: Expression): ResolvedExpression {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { ...node, operands: node.operands.map((operand) => this.resolve(operand)) };
      case 'not':
        return { ...node, operand: this.resolve(node.operand) };
      case 'constant':
        return node;
      case 'compare': {
        const left = this.side(node.left);
        const right = this.side(node.right);
        if (left.kind === 'column' && right.kind === 'column' && left.path.length > 0 && right.path.length > 0) {
          throw new ExpressionError('only one side of a comparison may go through a relation', right.position);
        }
        return { ...node, ...typeCompare(node.op, left, right, node.operatorPosition) };
      }
      case 'in':
        return { ...node, ...typeIn(this.side(node.operand), node.values, node.operatorPosition) };
      case 'like':
        return { ...node, operand: typeTextMatch(node.caseInsensitive ? 'ilike' : 'like', this.side(node.operand), node.operatorPosition) };
      case 'search': {
        const column = this.column(node.column);
        typeTextMatch('search', column, node.operatorPosition);
        return { ...node, column };
      }
      case 'null-test':
        return { ...node, operand: typeNullTest(this.side(node.operand)) };
    }
  }

  private side(operand: Operand): Side {
    if (operand.kind === 'name') return this.column(operand);
    if (operand.kind === 'variable') return { ...operand, type: VARIABLE_TYPES[operand.name] };
    return operand;
  }

  private column(name: Name): ResolvedColumn {
    let from = this.table;
    const path: ResolvedStep[] = [];
    for (const step of name.steps) {
      const relation = this.relation(from, step, path.length === 0);
      const written = step.kind === 'reference' ? writtenReference(step.table, step.column) : printNameSegment(step.name, path.length === 0);
      path.push({ kind: relation.kind, from, table: relation.table, column: relation.column, written, position: step.position, end: step.end });
      from = relation.table;
    }
    const column = this.schema.table(from)!.columns.find((candidate) => candidate.name === name.column.name);
    if (!column) {
      const where = path.length > 0 ? `${from} (reached by ${path.map((step) => step.written).join('.')})` : from;
      throw new ExpressionError(`${where} has no column ${printNameSegment(name.column.name)}`, name.column.position);
    }
    return { kind: 'column', path, table: from, column, written: printName(name), position: name.position, end: name.end };
  }

  /** The relation a step takes from a table: it must exist, be the only one of its name, and reach a served table. */
  private relation(from: string, step: PathStep, first: boolean): ExpressionRelation {
    const written = step.kind === 'reference' ? writtenReference(step.table, step.column) : printNameSegment(step.name, first);
    const refuse = (table: string) =>
      new ExpressionError(`${written} reaches ${table}: expressions cannot read users, sessions or system tables`, step.position);
    const named = step.kind === 'reference' ? step.table : step.name;
    const relations = this.schema.table(from)!.relations;
    const matches =
      step.kind === 'reference'
        ? relations.filter((relation) => relation.kind === 'many' && relation.table === step.table && relation.column === step.column)
        : relations.filter((relation) => relation.name === step.name);
    if (matches.length === 0) {
      if (isReservedTable(named)) throw refuse(named);
      const choices = relations.length > 0 ? ` (its relations: ${listed(relations.map(writtenRelation))})` : '';
      const what = step.kind === 'reference' ? `no to-many relation ${written}` : `no relation ${written}`;
      throw new ExpressionError(`${from} has ${what}${choices}`, step.position);
    }
    if (matches.length > 1) {
      throw new ExpressionError(`${written} is ambiguous from ${from}: write ${listed(matches.map(writtenRelation))}`, step.position);
    }
    const relation = matches[0]!;
    if (isReservedTable(relation.table)) throw refuse(relation.table);
    if (!this.schema.table(relation.table)) throw new ExpressionError(`${written} reaches ${relation.table}, which is not served`, step.position);
    return relation;
  }
}
