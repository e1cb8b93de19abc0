import type { ColumnType } from '../schema.js';
import type { ValueColumn } from '../values.js';
import type { Compare, Constant, InList, Junction, Negation, NullTest, Pattern, Search, Span, VariableReference } from './syntax.js';

/**
 * What resolving needs of the schema, small enough for the server's schema cache and the console's table list to
 * implement alike, and the tree it produces: every name bound to its table and column, every literal coerced, and
 * every path turned into the EXISTS it means, ready for the server's SQL builder.
 */

/** A column as resolving sees it: its type, and what coercion needs (`pgType` for integer ranges, varchar length). */
export interface ExpressionColumn extends ValueColumn {
  name: string;
}

/** A relation as `select` embeds name it (API.md, "Relations"). */
export interface ExpressionRelation {
  /** The embed name: a to-one relation's referencing column without `_id`/`Id`, a to-many relation's table. */
  name: string;
  kind: 'one' | 'many';
  /** The table the step reaches. */
  table: string;
  /** to-one: this table's column holding the other row's id; to-many: `table`'s column holding this row's id. */
  column: string;
}

export interface ExpressionTable {
  columns: readonly ExpressionColumn[];
  relations: readonly ExpressionRelation[];
}

export interface ExpressionSchema {
  /** A served table by name, or undefined. */
  table(name: string): ExpressionTable | undefined;
}

/** One step of a resolved path: from the rows of `from` to the related rows of `table`. */
export interface ResolvedStep extends Span {
  kind: 'one' | 'many';
  from: string;
  table: string;
  /** As in ExpressionRelation: `from`'s column for a to-one step, `table`'s for a to-many one. */
  column: string;
  /** The step as written, for messages. */
  written: string;
}

/** A column of the expression's table (empty path) or of the row its path reaches: the row of EXISTS level `path.length`. */
export interface ResolvedColumn extends Span {
  kind: 'column';
  path: ResolvedStep[];
  table: string;
  /** The schema's column: name, type, and what coercion read of it. */
  column: ExpressionColumn;
  /** The whole name as written (`project.memberships.user_id`), for printing and messages. */
  written: string;
}

export interface ResolvedVariable extends VariableReference {
  type: ColumnType;
}

/** A literal coerced to the type it is compared with (`'5'` against an integer column is 5), or a folded variable. */
export type ConstantValue = string | number | boolean | Date | null;

export interface ResolvedValue extends Span {
  kind: 'value';
  /** As coerceColumnValue gives it: a Date for timestamps, int8 beyond 2^53 as its digits, json as text. */
  value: ConstantValue;
  /** null only for a `null` compared with nothing typed (`null = null`). */
  type: ColumnType | null;
}

export type ResolvedOperand = ResolvedColumn | ResolvedVariable | ResolvedValue;

/**
 * "Some row reached by `step` satisfies `condition`" (SQL: EXISTS). Every path compiles to one: conditions joined by
 * `and` through the same first step share one (so `project.memberships.user_id = @auth.id and
 * project.memberships.role = 'admin'` needs one membership row with both), `or` and `not` never merge. `level` is the
 * depth of the row it ranges over: 1 for a first step, 2 inside it...
 */
export interface Exists extends Span {
  kind: 'exists';
  step: ResolvedStep;
  level: number;
  condition: ResolvedExpression;
}

/** The type both sides of a comparison have once coerced; null when both are `null`. */
export interface Typed {
  type: ColumnType | null;
}

export type ResolvedComparison =
  | (Compare<ResolvedOperand> & Typed)
  | (InList<ResolvedOperand, ResolvedValue> & Typed)
  | Pattern<ResolvedOperand>
  | Search<ResolvedColumn>
  | NullTest<ResolvedOperand>;

export type ResolvedExpression = Junction<ResolvedExpression> | Negation<ResolvedExpression> | Constant | Exists | ResolvedComparison;
