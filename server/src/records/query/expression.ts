import { forEachNode, ID_COLUMN, operandsOf, someNode, type ResolvedColumn, type ResolvedExpression, type ResolvedOperand, type ResolvedStep } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { ColumnSchema } from '../../db/schema.js';
import { comparesAsText } from '../values.js';
import type { RuleBindings, Scope } from '../../policies/access.js';
import { SqlParameters } from './build.js';
import { likePattern } from './plan.js';

/**
 * A resolved (and folded) expression -> SQL, for rules and `filter=` alike: every value a bound parameter, every
 * identifier quoted, every path an EXISTS over the related table under an alias of its own (`x1`, `x2`, ...). The
 * text depends on the expression's shape, never on the caller's values, so it names a prepared statement: the number
 * of statements does not grow with users.
 *
 * Columns compare as the query language's filters compare them (records/query/build.ts): uuid, enum and json columns
 * as text, timestamps to the millisecond.
 */

/** Aliases of EXISTS subqueries, unique within one statement. */
export class ExistsAliases {
  private count = 0;
  next(): string {
    this.count += 1;
    return `x${this.count}`;
  }
  /** How many were handed out: a compiled text is reused only where it would number its aliases alike. */
  get used(): number {
    return this.count;
  }
  skip(count: number): void {
    this.count += count;
  }
}

const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * The expression about the row `row` (a quoted table name or an alias). The schema adapter (policies/rules.ts) hands
 * the catalog's own column objects to the resolver, so a resolved column is a ColumnSchema.
 */
export function expressionSql(
  node: ResolvedExpression,
  row: string,
  parameters: SqlParameters,
  aliases: ExistsAliases = new ExistsAliases(),
  stepScope?: StepScope,
): string {
  return new Compiler(parameters, aliases, stepScope).sql(node, [row]);
}

/**
 * The rows a path may reach in each table it steps into: a `filter` reaches only rows the caller may read there (the
 * reached table's read scope, null for all); a rule reads them whole (no function).
 */
export type StepScope = (step: ResolvedStep) => Scope | null;

class Compiler {
  /** Where in `parameters.values` a variable's value went, and whether as a timestamp's text. */
  readonly variables: Array<{ at: number; name: keyof RuleBindings; timestamp: boolean }> = [];

  constructor(
    private readonly parameters: SqlParameters,
    private readonly aliases: ExistsAliases,
    private readonly stepScope?: StepScope,
    private readonly bindings?: RuleBindings,
  ) {}

  /** `rows[level]`: the alias of the row at each EXISTS depth, the expression's own row first. */
  sql(node: ResolvedExpression, rows: string[]): string {
    switch (node.kind) {
      case 'and':
      case 'or':
        return `(${node.operands.map((operand) => this.sql(operand, rows)).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${this.sql(node.operand, rows)})`;
      case 'constant':
        return node.value === null ? 'NULL::boolean' : node.value ? 'TRUE' : 'FALSE';
      case 'exists': {
        const alias = this.aliases.next();
        const parent = rows[node.level - 1]!;
        const { step } = node;
        const join =
          step.kind === 'one'
            ? `${alias}.${quote(ID_COLUMN)} = ${parent}.${quote(step.column)}`
            : `${alias}.${quote(step.column)} = ${parent}.${quote(ID_COLUMN)}`;
        const inner = [...rows.slice(0, node.level), alias];
        const scope = this.stepScope?.(step);
        const scoped = scope ? ` AND ${scopeSql(scope, alias, this.parameters, this.aliases)}` : '';
        return `EXISTS (SELECT 1 FROM ${quote(step.table)} ${alias} WHERE ${join}${scoped} AND ${this.sql(node.condition, inner)})`;
      }
      case 'compare': {
        const timestamp = node.type === 'timestamp';
        return `(${this.operand(node.left, rows, timestamp)} ${COMPARISONS[node.op]} ${this.operand(node.right, rows, timestamp)})`;
      }
      case 'in': {
        const column = node.operand.kind === 'column' ? this.columnOf(node.operand) : undefined;
        const cast = column ? (comparesAsText(column) ? 'text[]' : `${column.sqlType}[]`) : undefined;
        const values = node.values.map((value) => (value.value instanceof Date ? value.value.toISOString() : value.value));
        return `(${this.operand(node.operand, rows, node.type === 'timestamp')} = ANY(${this.parameters.bind(values, cast)}))`;
      }
      case 'like':
        return `(${this.operand(node.operand, rows, false)} ${node.caseInsensitive ? 'ILIKE' : 'LIKE'} ${this.parameters.bind(likePattern(node.pattern.value))})`;
      case 'search':
        return `(to_tsvector('simple', ${this.column(node.column, rows)}) @@ websearch_to_tsquery('simple', ${this.parameters.bind(node.words.value)}))`;
      case 'null-test':
        return `(${this.operand(node.operand, rows, false)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
    }
  }

  /**
   * The ids that make the node true of the row, as a subquery of one text column `v`, or null when the node cannot be
   * turned around: `column = @auth.id` on a text column, joined by `and` to conditions without it, `or` of such
   * nodes, and EXISTS around them. Everything else that reads the id (`not`, `in`, `<>`...) keeps it per subscriber.
   */
  inverted(node: ResolvedExpression, rows: string[]): string | null {
    switch (node.kind) {
      case 'compare': {
        if (node.op !== 'eq') return null;
        const column = node.left.kind === 'column' ? node.left : node.right.kind === 'column' ? node.right : null;
        const other = column === node.left ? node.right : node.left;
        if (!column || other.kind !== 'variable' || other.name !== '@auth.id') return null;
        const schema = this.columnOf(column);
        if (schema.type !== 'text' || schema.pgType === 'bpchar') return null;
        return `SELECT ${this.column(column, rows)}::text AS v`;
      }
      case 'and': {
        const reading = node.operands.filter(readsId);
        const parts = reading.map((operand) => this.inverted(operand, rows));
        if (parts.length === 0 || parts.some((part) => part === null)) return null;
        const others = node.operands.filter((operand) => !readsId(operand)).map((operand) => this.sql(operand, rows));
        const ids = parts.map((part) => `(${part})`).join(' INTERSECT ');
        const alias = this.aliases.next();
        return `SELECT ${alias}.v FROM (${ids}) ${alias}${others.length > 0 ? ` WHERE ${others.join(' AND ')}` : ''}`;
      }
      case 'or': {
        const parts = node.operands.map((operand) => (readsId(operand) ? this.inverted(operand, rows) : null));
        return parts.some((part) => part === null) ? null : parts.map((part) => `(${part})`).join(' UNION ');
      }
      case 'exists': {
        if (!readsId(node.condition)) return null;
        const alias = this.aliases.next();
        const { step } = node;
        const parent = rows[node.level - 1]!;
        const join =
          step.kind === 'one'
            ? `${alias}.${quote(ID_COLUMN)} = ${parent}.${quote(step.column)}`
            : `${alias}.${quote(step.column)} = ${parent}.${quote(ID_COLUMN)}`;
        const ids = this.inverted(node.condition, [...rows.slice(0, node.level), alias]);
        if (ids === null) return null;
        const scope = this.stepScope?.(step);
        const scoped = scope ? ` AND ${scopeSql(scope, alias, this.parameters, this.aliases)}` : '';
        const inner = this.aliases.next();
        return `SELECT ${inner}.v FROM ${quote(step.table)} ${alias} CROSS JOIN LATERAL (${ids}) ${inner} WHERE ${join}${scoped}`;
      }
      default:
        return null;
    }
  }

  private columnOf(column: ResolvedColumn): ColumnSchema {
    return column.column as ColumnSchema;
  }

  private column(column: ResolvedColumn, rows: string[]): string {
    return `${rows[column.path.length]!}.${quote(column.column.name)}`;
  }

  /** One side of a comparison: a column as filters read it, or a bound value (a variable is folded before this). */
  private operand(operand: ResolvedOperand, rows: string[], timestamp: boolean): string {
    if (operand.kind === 'column') {
      const sql = this.column(operand, rows);
      if (timestamp) return `date_trunc('milliseconds', ${sql})`;
      return comparesAsText(this.columnOf(operand)) ? `${sql}::text` : sql;
    }
    if (operand.kind === 'variable') {
      const name = operand.name as keyof RuleBindings;
      const value = this.bindings?.[name];
      if (value === undefined || value === null) throw new Error(`${operand.name} must be folded or bound before compiling`);
      this.variables.push({ at: this.parameters.values.length, name, timestamp });
      return timestamp ? this.parameters.bind(value instanceof Date ? value.toISOString() : value, 'timestamptz') : this.parameters.bind(value);
    }
    if (operand.value === null) return 'NULL';
    if (timestamp) return this.parameters.bind(operand.value instanceof Date ? operand.value.toISOString() : operand.value, 'timestamptz');
    // A value compared with a text-compared column is text; otherwise the column gives the parameter its type.
    return this.parameters.bind(operand.value);
  }
}

/**
 * A condition with `@auth.id` left in it (policies/access.ts, readRuleLeavingId) turned around: a subquery of the ids
 * (`v`, text) for which it holds of the row `row`, or null when it cannot be (Compiler.inverted).
 */
export function idsSql(node: ResolvedExpression, row: string, parameters: SqlParameters, aliases: ExistsAliases = new ExistsAliases()): string | null {
  return new Compiler(parameters, aliases).inverted(node, [row]);
}

/** Whether a node reads `@auth.id` (a variable left by folding). */
const readsId = (node: ResolvedExpression): boolean => someNode(node, (each) => operandsOf(each).some((operand) => operand.kind === 'variable'));

/**
 * The columns of the row itself a scope reads: its own columns, and the column each path starts from (a to-one step's
 * referencing column, a to-many step's id). A check reading only columns a write sets can be decided before it.
 */
export function rootColumnsOf(scope: Scope): Set<string> {
  if (scope.kind === 'owner') return new Set([scope.ownerColumn]);
  const names = new Set<string>();
  forEachNode(scope.condition, (node) => {
    if (node.kind === 'exists' && node.level === 1) names.add(node.step.kind === 'one' ? node.step.column : ID_COLUMN);
    for (const operand of operandsOf(node)) if (operand.kind === 'column' && operand.path.length === 0) names.add(operand.column.name);
  });
  return names;
}

/** A decision's rows as a condition on the row `row`: the owner column, or the folded rule. */
export function scopeSql(scope: Scope, row: string, parameters: SqlParameters, aliases: ExistsAliases = new ExistsAliases()): string {
  if (scope.kind === 'owner') return `${row}.${quote(scope.ownerColumn)} = ${parameters.bind(scope.userId)}`;
  if (!scope.bindings) return expressionSql(scope.condition, row, parameters, aliases);
  return boundSql(scope.condition, scope.bindings, row, parameters, aliases);
}

interface Compiled {
  text: string;
  values: unknown[];
  variables: Compiler['variables'];
  aliases: number;
}

/** Per shared fold (policies/access.ts), per row name and numbering: its text, values and where the bindings go. */
const compiledTexts = new WeakMap<ResolvedExpression, Map<string, Compiled>>();

/**
 * A rule folded once per kind of caller, compiled once per place in a statement (the row's name, the first parameter's
 * number, the aliases before it): later requests only bind their values, in the same order.
 */
function boundSql(condition: ResolvedExpression, bindings: RuleBindings, row: string, parameters: SqlParameters, aliases: ExistsAliases): string {
  const key = `${row}|${parameters.next}|${aliases.used}`;
  let byPlace = compiledTexts.get(condition);
  if (!byPlace) compiledTexts.set(condition, (byPlace = new Map()));
  let compiled = byPlace.get(key);
  if (!compiled) {
    const fresh = new SqlParameters(parameters.next);
    const counted = new ExistsAliases();
    counted.skip(aliases.used);
    const compiler = new Compiler(fresh, counted, undefined, bindings);
    const text = compiler.sql(condition, [row]);
    compiled = { text, values: fresh.values, variables: compiler.variables, aliases: counted.used - aliases.used };
    byPlace.set(key, compiled);
  }
  const values = [...compiled.values];
  for (const { at, name, timestamp } of compiled.variables) {
    const value = bindings[name];
    values[at] = timestamp && value instanceof Date ? value.toISOString() : value;
  }
  for (const value of values) parameters.bind(value);
  aliases.skip(compiled.aliases);
  return compiled.text;
}

/** The part of a statement's shape a scope decides: the SQL it compiles to, whatever the caller's values. */
export function scopeShape(scope: Scope | null): string {
  if (!scope) return '';
  return scope.kind === 'owner' ? `o:${scope.ownerColumn}` : `r:${scopeSql(scope, 'r', new SqlParameters())}`;
}
