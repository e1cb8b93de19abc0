import {
  checkExpression,
  dependenciesOf,
  expressionSchemaOf,
  hasCallerColumnConjunct,
  presetRules,
  RULE_MEMBERS,
  type Expression,
  type ExpressionSchema,
  type ResolvedExpression,
  type RuleMember,
  type Rules,
} from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { isServed } from '../db/schema.js';
import { ApiError } from '../errors.js';

/**
 * The rules of a `rules` table (API.md, "Access rules: policy `rules`"): stored as text, checked against the schema
 * when set (400 naming `rules.<member>` with the position), compiled at every schema load (a rule a psql change broke
 * refuses its operation with `rule_invalid` and is shown as `rulesProblem`). Folding for a caller and the SQL are the
 * access decision's (policies/access.ts) and the record builder's (records/query/expression.ts).
 */

export interface CompiledRule {
  /** The parsed text: the `create` rule's top-level conjuncts decide owner-column defaulting. */
  expression: Expression;
  resolved: ResolvedExpression;
}

export interface TableRules {
  text: Rules;
  /** Each present member that compiles (`updateCheck` defaults to `update`). */
  compiled: Partial<Record<RuleMember, CompiledRule>>;
  /** Members present whose text no longer compiles: their operation is refused (`rule_invalid`). */
  invalid: Partial<Record<RuleMember, string>>;
}

/** The served tables as the expression language resolves names in them (the contract's rule, shared with the console). */
export function expressionSchema(tables: ReadonlyMap<string, TableSchema>): ExpressionSchema {
  const served = [...tables.values()].filter(isServed);
  return expressionSchemaOf(served.map((table) => ({ name: table.name, columns: table.columnList })));
}

/** Every member of a stored set compiled against the schema as it is now. */
export function compileRules(table: string, text: Rules, schema: ExpressionSchema): TableRules {
  const compiled: TableRules['compiled'] = {};
  const invalid: TableRules['invalid'] = {};
  const effective: Rules = { ...text, updateCheck: text.updateCheck ?? text.update };
  for (const member of RULE_MEMBERS) {
    const source = effective[member];
    if (source === undefined) continue;
    const checked = checkExpression(source, schema, table);
    if (checked.ok) compiled[member] = { expression: checked.value.expression, resolved: checked.value.resolved };
    else invalid[member] = checked.error.message;
  }
  return { text, compiled, invalid };
}

/** What a table's description shows as its rules: stored ones, or its preset's exact expansion. */
export function describedRules(table: TableSchema): Rules {
  if (table.policy === 'rules') return table.rules?.text ?? {};
  return presetRules(table.policy, table.ownerColumn);
}

/** Why some stored rule stopped compiling, for the description; undefined when every one compiles. */
export function rulesProblem(table: TableSchema): string | undefined {
  const invalid = Object.entries(table.rules?.invalid ?? {});
  return invalid.length > 0 ? invalid.map(([member, problem]) => `rules.${member}: ${problem}`).join('; ') : undefined;
}

/**
 * Rules as the admin API takes them: an object of expression strings, each member known, each checked against the
 * schema. Errors are 400 naming `rules.<member>` (with the position for an expression's problem).
 */
export function validateRules(input: unknown, table: string, schema: ExpressionSchema): Rules {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError('VALIDATION_ERROR', 'rules must be an object of expressions, one per operation: read, create, update, updateCheck, delete', { field: 'rules' });
  }
  const rules: Rules = {};
  for (const [member, source] of Object.entries(input)) {
    if (!(RULE_MEMBERS as readonly string[]).includes(member)) {
      throw new ApiError('VALIDATION_ERROR', `rules.${member} is not an operation: the members are ${RULE_MEMBERS.join(', ')}`, { field: `rules.${member}` });
    }
    if (source === null || source === undefined) continue;
    if (typeof source !== 'string') throw new ApiError('VALIDATION_ERROR', `rules.${member} must be an expression (a string)`, { field: `rules.${member}` });
    const checked = checkExpression(source, schema, table);
    if (!checked.ok) {
      throw new ApiError('VALIDATION_ERROR', `rules.${member}: ${checked.error.message}`, { field: `rules.${member}`, position: checked.error.position });
    }
    rules[member as RuleMember] = source;
  }
  return rules;
}

/**
 * Under `rules` an owner column left out of a create is set to the caller only when the `create` rule has the
 * top-level conjunct `<owner> = @auth.id` (API.md, "Part 2 in detail", Access rules).
 */
export function defaultsOwner(table: TableSchema): boolean {
  const create = table.rules?.compiled.create;
  return table.ownerColumn !== null && create !== undefined && hasCallerColumnConjunct(create.expression, table.ownerColumn);
}

/**
 * The first rule of another table (or of this one, for a column) that reads this table or column: dropping it would
 * break the rule, so the drop is 409 naming `<table>.rules.<member>` (API.md, "Part 2 in detail", Access rules).
 */
export function ruleReading(tables: readonly TableSchema[], table: string, column?: string): string | undefined {
  for (const other of tables) {
    if (!other.rules || (column === undefined && other.name === table)) continue;
    for (const [member, rule] of Object.entries(other.rules.compiled)) {
      if (member === 'updateCheck' && other.rules.text.updateCheck === undefined) continue;
      const reads = dependenciesOf(rule.resolved, other.name);
      if (column === undefined ? reads.tables.includes(table) : reads.columns.includes(`${table}.${column}`)) return `${other.name}.rules.${member}`;
    }
  }
  return undefined;
}
