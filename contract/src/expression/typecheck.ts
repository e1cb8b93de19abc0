import { INTEGER_RANGES, INTEGER_TEXT, coerceColumnValue, coerceText, type ValueColumn } from '../values.js';
import { OPERATORS_BY_TYPE, type Operator } from '../query.js';
import type { ColumnType } from '../schema.js';
import { quoteSource } from './lexer.js';
import type { ResolvedColumn, ResolvedOperand, ResolvedValue, ResolvedVariable } from './resolved.js';
import { COMPARISON_SYMBOLS, ExpressionError, type Literal } from './syntax.js';

/**
 * The types of a comparison (API.md, "Part 2 in detail", Grammar): columns and variables have their type; an
 * unquoted number or boolean has its own (a number against a text column is an error); a quoted literal takes the
 * other side's type and is coerced to it exactly as a filter value is (values.ts), json compared as text as filters do;
 * `null` fits anything. Columns and variables on both sides need one type. Then the operator must apply to that type,
 * by the query language's table (`<` is not for booleans or json, `like` and `search` are for text).
 */

/** A side of a comparison once its names are resolved, its literals not yet coerced. */
export type Side = ResolvedColumn | ResolvedVariable | Literal;

/** What the literals of a comparison coerce to, and how messages name it. */
interface Anchor {
  column: ValueColumn;
  label: string;
}

const INT8: ValueColumn = { type: 'integer', pgType: 'int8' };
const [INT8_MIN, INT8_MAX] = INTEGER_RANGES.int8!;

/** An unquoted number's own type: integer when it is a whole number int8 holds, else real. */
function numberColumn(text: string): ValueColumn {
  if (INTEGER_TEXT.test(text) && BigInt(text) >= INT8_MIN && BigInt(text) <= INT8_MAX) return INT8;
  return { type: 'real' };
}

function printSide(side: Side): string {
  switch (side.kind) {
    case 'column':
      return side.written;
    case 'variable':
      return side.name;
    case 'text':
      return quoteSource(side.value);
    case 'number':
      return side.text;
    case 'boolean':
      return String(side.value);
    case 'null':
      return 'null';
  }
}

const label = (side: Side, type: ColumnType) => `${printSide(side)} (${type})`;

/**
 * The anchor of sides compared together: a column or variable (all of them of one type), else an unquoted number
 * (real if any is), else a boolean, else text when a quoted literal is present; null for `null`s alone.
 */
function anchorOf(sides: Side[]): Anchor | null {
  let anchor: { side: Side; column: ValueColumn } | undefined;
  for (const side of sides) {
    if (side.kind !== 'column' && side.kind !== 'variable') continue;
    const column = side.kind === 'column' ? side.column : { type: side.type };
    if (anchor && anchor.column.type !== column.type) {
      throw new ExpressionError(`cannot compare ${label(anchor.side, anchor.column.type)} with ${label(side, column.type)}`, side.position);
    }
    anchor ??= { side, column };
  }
  if (anchor) return { column: anchor.column, label: label(anchor.side, anchor.column.type) };
  const numbers = sides.filter((side) => side.kind === 'number');
  if (numbers.length > 0) {
    const real = numbers.find((side) => numberColumn(side.text).type === 'real');
    const side = real ?? numbers[0]!;
    const column = numberColumn(side.text);
    return { column, label: label(side, column.type) };
  }
  const boolean = sides.find((side) => side.kind === 'boolean');
  if (boolean) return { column: { type: 'boolean' }, label: label(boolean, 'boolean') };
  const text = sides.find((side) => side.kind === 'text');
  return text ? { column: { type: 'text' }, label: label(text, 'text') } : null;
}

/** A literal as a value of the anchor's type, or the error that says why it is not one. */
function coerceLiteral(literal: Literal, anchor: Anchor | null): ResolvedValue {
  const span = { position: literal.position, end: literal.end };
  const type = anchor?.column.type ?? null;
  // No anchor: every side is a `null`.
  if (literal.kind === 'null' || !anchor) return { kind: 'value', value: null, type, ...span };
  const { column } = anchor;
  const mismatch = (what: string, hint = '') => new ExpressionError(`${printSide(literal)} is ${what}, ${anchor.label} is not${hint}`, literal.position);
  if (literal.kind === 'boolean' && column.type !== 'boolean') throw mismatch('a boolean');
  if (literal.kind === 'number' && column.type !== 'integer' && column.type !== 'real') {
    throw mismatch('a number', column.type === 'text' || column.type === 'json' ? ` (quote it for text: '${literal.text}')` : '');
  }
  const raw = literal.kind === 'number' ? literal.text : literal.value;
  const coerced = column.type === 'json' ? coerceText(column, raw) : coerceColumnValue(column, raw);
  if (!coerced.ok) throw new ExpressionError(`${printSide(literal)} does not fit ${anchor.label}: ${coerced.problem}`, literal.position);
  return { kind: 'value', value: coerced.value as ResolvedValue['value'], type, ...span };
}

function coerceSide(side: Side, anchor: Anchor | null): ResolvedOperand {
  return side.kind === 'column' || side.kind === 'variable' ? side : coerceLiteral(side, anchor);
}

function requireOperator(operator: Operator, written: string, anchor: Anchor | null, operatorPosition: number): void {
  if (anchor && !OPERATORS_BY_TYPE[anchor.column.type].includes(operator)) {
    throw new ExpressionError(`'${written}' does not apply to ${anchor.label}`, operatorPosition);
  }
}

/** `=`, `!=`, `<`, `<=`, `>`, `>=`. */
export function typeCompare(op: keyof typeof COMPARISON_SYMBOLS, left: Side, right: Side, operatorPosition: number) {
  const anchor = anchorOf([left, right]);
  const typed = { left: coerceSide(left, anchor), right: coerceSide(right, anchor), type: anchor?.column.type ?? null };
  requireOperator(op, COMPARISON_SYMBOLS[op], anchor, operatorPosition);
  return typed;
}

/** `in (v, ...)`: every value coerced to the operand's type. */
export function typeIn(operand: Side, values: Literal[], operatorPosition: number) {
  const anchor = anchorOf([operand, ...values]);
  const typed = { operand: coerceSide(operand, anchor), values: values.map((value) => coerceLiteral(value, anchor)), type: anchor?.column.type ?? null };
  requireOperator('in', 'in', anchor, operatorPosition);
  return typed;
}

/** `like`, `ilike`, `search`: text on the left (the pattern or words are quoted text by the grammar). */
export function typeTextMatch(operator: 'like' | 'ilike' | 'search', operand: Side, operatorPosition: number): ResolvedOperand {
  const anchor = anchorOf([operand]);
  requireOperator(operator, operator, anchor, operatorPosition);
  return coerceSide(operand, anchor);
}

/** `is [not] null` takes any operand. */
export function typeNullTest(operand: Side): ResolvedOperand {
  return coerceSide(operand, anchorOf([operand]));
}
