import type { Comparison } from '../query.js';
import type { ColumnType } from '../schema.js';

/**
 * The expression language's words and its parsed tree (API.md, "Access rules: policy `rules`" and "The `filter`
 * parameter"): one grammar for rules, `filter=`, realtime and webhook filters, read by the server, the client and the
 * console alike. The comparison words are the query language's (`eq`, `neq`, ...), so both name an operator once.
 */

/** An expression is at most this many UTF-16 code units (the unit of every position). */
export const MAX_EXPRESSION_LENGTH = 2_000;
/** At most this many comparisons (`in (...)`, `like`, `is null`, `search` count one each). */
export const MAX_COMPARISONS = 20;
/** Parentheses and `not`s nest at most this deep: every later stage recurses over the tree, none may overflow. */
export const MAX_NESTING_DEPTH = 50;
/** A path takes at most this many relation steps before its column (`project.memberships.user_id` has two). */
export const MAX_PATH_STEPS = 3;

/** Reserved words, matched case-insensitively; a name spelled like one is written in double quotes (`"and"`). */
export const EXPRESSION_KEYWORDS = ['and', 'or', 'not', 'in', 'like', 'ilike', 'is', 'null', 'true', 'false', 'search'] as const;
export type ExpressionKeyword = (typeof EXPRESSION_KEYWORDS)[number];

/** The caller and the clock, substituted by folding; each has the type of a column. */
export const VARIABLE_TYPES = {
  '@auth.id': 'text',
  '@auth.role': 'text',
  '@auth.email': 'text',
  '@auth.key': 'boolean',
  '@auth.verified': 'boolean',
  '@auth.aal': 'integer',
  '@now': 'timestamp',
} as const satisfies Record<string, ColumnType>;
export type ExpressionVariable = keyof typeof VARIABLE_TYPES;
export const EXPRESSION_VARIABLES = Object.keys(VARIABLE_TYPES) as ExpressionVariable[];

/** How each comparison is written (`<>` is not: one spelling per operator). */
export const COMPARISON_SYMBOLS: Readonly<Record<Comparison, string>> = { eq: '=', neq: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** Where a node is in the text: 0-based UTF-16 code units, `end` exclusive. */
export interface Span {
  position: number;
  end: number;
}

export interface TextLiteral extends Span {
  kind: 'text';
  value: string;
}
/** Kept as written (`9223372036854775807` loses no digit); coerced once its column is known. */
export interface NumberLiteral extends Span {
  kind: 'number';
  text: string;
}
export interface BooleanLiteral extends Span {
  kind: 'boolean';
  value: boolean;
}
export interface NullLiteral extends Span {
  kind: 'null';
}
export type Literal = TextLiteral | NumberLiteral | BooleanLiteral | NullLiteral;

export interface VariableReference extends Span {
  kind: 'variable';
  name: ExpressionVariable;
}

/**
 * One step of a path. `embed`: an embed name (`author`, `comments`), to-one or to-many as the schema says.
 * `reference`: the explicit to-many step `"comments"."post_id"` (two quoted names joined by a dot with a further
 * step or the column after them): the rows of `table` whose `column` references the row at hand.
 */
export type PathStep = ({ kind: 'embed'; name: string } | { kind: 'reference'; table: string; column: string }) & Span;

/** A column of the expression's table (no steps) or of a table reached through references. */
export interface Name extends Span {
  kind: 'name';
  steps: PathStep[];
  column: { name: string } & Span;
}

export type Operand = Literal | VariableReference | Name;

/** `and` and `or` keep the operands of one chain together (`a and b and c`); parentheses nest chains. */
export interface Junction<C> extends Span {
  kind: 'and' | 'or';
  operands: C[];
}
export interface Negation<C> extends Span {
  kind: 'not';
  operand: C;
}
/** `true`, `false` or `null` standing as a condition (`read: true`); folding leaves its results in this form. */
export interface Constant extends Span {
  kind: 'constant';
  value: boolean | null;
}
/** Every comparison records where its operator is, for errors about the operator itself. */
export interface Compare<O> extends Span {
  kind: 'compare';
  op: Comparison;
  left: O;
  right: O;
  operatorPosition: number;
}
export interface InList<O, V> extends Span {
  kind: 'in';
  operand: O;
  values: V[];
  operatorPosition: number;
}
/** `like` / `ilike`: `*` matches any run of characters; `%`, `_` and `\` match themselves (the query language's rule). */
export interface Pattern<O> extends Span {
  kind: 'like';
  caseInsensitive: boolean;
  operand: O;
  pattern: TextLiteral;
  operatorPosition: number;
}
export interface Search<N> extends Span {
  kind: 'search';
  column: N;
  words: TextLiteral;
  operatorPosition: number;
}
export interface NullTest<O> extends Span {
  kind: 'null-test';
  operand: O;
  /** `is not null`. */
  negated: boolean;
  operatorPosition: number;
}

/** A parsed expression: every node, name segment and literal carries its span. */
export type Expression =
  | Junction<Expression>
  | Negation<Expression>
  | Constant
  | Compare<Operand>
  | InList<Operand, Literal>
  | Pattern<Operand>
  | Search<Name>
  | NullTest<Operand>;

export type ExpressionComparison = Extract<Expression, { operatorPosition: number }>;

/**
 * A syntax, name or type problem and where it is. `message` ends with the position (`expected a value after '=' at
 * 12`); `problem` is the same without it, for a console that points at the position itself.
 */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';

  constructor(
    readonly problem: string,
    readonly position: number,
  ) {
    super(`${problem} at ${position}`);
  }
}

/** What parsing and resolving answer: never a throw, so the console can call them on every keystroke. */
export type ExpressionResult<T> = { ok: true; value: T } | { ok: false; error: ExpressionError };

/** The keyword a bare word spells, in any case, or undefined. */
export function keywordOf(word: string): ExpressionKeyword | undefined {
  const lower = word.toLowerCase();
  return EXPRESSION_KEYWORDS.find((keyword) => keyword === lower);
}
