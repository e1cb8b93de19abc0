import type { ResolvedExpression, ResolvedOperand, ResolvedValue } from './resolved.js';
import { COMPARISON_SYMBOLS, keywordOf, type Expression, type Literal, type Name, type Operand } from './syntax.js';

/**
 * Trees back to text, in one canonical spelling: keywords in lower case, one space around operators, names quoted
 * only when they must be, parentheses only where precedence needs them (and around a `not`'s comparison, for the
 * reader). `parseExpression(printExpression(tree))` is the tree again, positions aside. A resolved or folded tree
 * prints too (the explain endpoint shows what a rule became for a caller), its values as literals.
 */

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const quote = (text: string, mark: "'" | '"') => `${mark}${text.split(mark).join(mark + mark)}${mark}`;

/** A name segment as written: bare when it can be (a keyword only after a dot), else double-quoted. */
export function printNameSegment(name: string, first = true): string {
  return BARE_NAME.test(name) && !(first && keywordOf(name)) ? name : quote(name, '"');
}

export function printTextLiteral(value: string): string {
  return quote(value, "'");
}

/**
 * Two quoted segments with a further one after them read as one `reference` step, so an embed step that needs
 * quotes cannot stand before another quoted segment that is not the column. The parser never builds such a path.
 */
export function printName(name: Name): string {
  const segments: Array<{ text: string; quoted: boolean; step: 'embed' | 'reference' | 'column' }> = [];
  for (const step of name.steps) {
    if (step.kind === 'reference') {
      segments.push({ text: `${quote(step.table, '"')}.${quote(step.column, '"')}`, quoted: true, step: 'reference' });
    } else {
      const text = printNameSegment(step.name, segments.length === 0);
      segments.push({ text, quoted: text.startsWith('"'), step: 'embed' });
    }
  }
  const column = printNameSegment(name.column.name, segments.length === 0);
  segments.push({ text: column, quoted: column.startsWith('"'), step: 'column' });
  segments.forEach((segment, index) => {
    const next = segments[index + 1];
    if (segment.step === 'embed' && segment.quoted && next?.quoted && next.step !== 'column') {
      throw new Error(`the path ${segments.map((each) => each.text).join('.')} cannot be written: its quoted steps would read as one`);
    }
  });
  return segments.map((segment) => segment.text).join('.');
}

function printLiteral(literal: Literal): string {
  switch (literal.kind) {
    case 'text':
      return printTextLiteral(literal.value);
    case 'number':
      return literal.text;
    case 'boolean':
      return String(literal.value);
    case 'null':
      return 'null';
  }
}

function printValue(value: ResolvedValue): string {
  const { value: constant } = value;
  if (constant === null) return 'null';
  if (constant instanceof Date) return printTextLiteral(constant.toISOString());
  if (typeof constant === 'string') return value.type === 'integer' ? constant : printTextLiteral(constant);
  return String(constant);
}

function printOperand(operand: Operand | ResolvedOperand): string {
  switch (operand.kind) {
    case 'name':
      return printName(operand);
    case 'column':
      return operand.written;
    case 'variable':
      return operand.name;
    case 'value':
      return printValue(operand);
    default:
      return printLiteral(operand);
  }
}

/** Where a node is printed: what it is an operand of decides whether it needs parentheses. */
type Context = 'top' | 'and' | 'or' | 'not';

function printNode(node: Expression | ResolvedExpression, context: Context): string {
  const group = (text: string, needed: boolean) => (needed ? `(${text})` : text);
  switch (node.kind) {
    case 'and':
      return group(node.operands.map((operand) => printNode(operand, 'and')).join(' and '), context === 'and' || context === 'not');
    case 'or':
      return group(node.operands.map((operand) => printNode(operand, 'or')).join(' or '), context !== 'top');
    case 'not':
      return `not ${printNode(node.operand, 'not')}`;
    case 'constant':
      return String(node.value);
    case 'exists':
      return printNode(node.condition, context);
    case 'compare':
      return group(`${printOperand(node.left)} ${COMPARISON_SYMBOLS[node.op]} ${printOperand(node.right)}`, context === 'not');
    case 'in': {
      const values = node.values.map((value) => (value.kind === 'value' ? printValue(value) : printLiteral(value)));
      return group(`${printOperand(node.operand)} in (${values.join(', ')})`, context === 'not');
    }
    case 'like':
      return group(`${printOperand(node.operand)} ${node.caseInsensitive ? 'ilike' : 'like'} ${printTextLiteral(node.pattern.value)}`, context === 'not');
    case 'search':
      return group(`${printOperand(node.column)} search ${printTextLiteral(node.words.value)}`, context === 'not');
    case 'null-test':
      return group(`${printOperand(node.operand)} is ${node.negated ? 'not null' : 'null'}`, context === 'not');
  }
}

export function printExpression(expression: Expression | ResolvedExpression): string {
  return printNode(expression, 'top');
}
