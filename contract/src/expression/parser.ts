import { MAX_LIST_VALUES } from '../query.js';
import { describeToken, Lexer, type Segment, type Token } from './lexer.js';
import {
  ExpressionError,
  MAX_COMPARISONS,
  MAX_EXPRESSION_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_PATH_STEPS,
  type Expression,
  type ExpressionComparison,
  type ExpressionKeyword,
  type ExpressionResult,
  type Literal,
  type Name,
  type Operand,
  type PathStep,
  type TextLiteral,
} from './syntax.js';

/**
 * Text -> tree, by recursive descent over the grammar (API.md, "Access rules", and its "Grammar" decisions):
 *
 *   or         := and ('or' and)*
 *   and        := not ('and' not)*
 *   not        := 'not' not | primary
 *   primary    := '(' or ')' | true | false | null | comparison
 *   comparison := operand ( op operand | 'in' '(' literal (',' literal)* ')' | ('like' | 'ilike') text
 *                         | 'is' ['not'] 'null' | 'search' text )
 *   operand    := literal | @variable | name
 *
 * So `not` takes the comparison or group after it (`not a = 1 and b = 2` is `(not a = 1) and b = 2`), comparisons
 * bind tighter than `and`, `and` tighter than `or`. Only parentheses and `not` recurse, and both count toward
 * MAX_NESTING_DEPTH, so no input overflows the stack here or in any later stage.
 */

export function parseExpression(text: string): ExpressionResult<Expression> {
  try {
    return { ok: true, value: new Parser(text).parse() };
  } catch (error) {
    if (error instanceof ExpressionError) return { ok: false, error };
    throw error;
  }
}

const COMPARISON_TAILS: readonly ExpressionKeyword[] = ['in', 'like', 'ilike', 'is', 'search'];

class Parser {
  private readonly lexer: Lexer;
  private token: Token;
  private previous: Token | undefined;
  private depth = 0;
  private comparisons = 0;

  constructor(private readonly text: string) {
    if (text.length > MAX_EXPRESSION_LENGTH) {
      throw new ExpressionError(`an expression is at most ${MAX_EXPRESSION_LENGTH} characters (this one has ${text.length})`, MAX_EXPRESSION_LENGTH);
    }
    this.lexer = new Lexer(text);
    this.token = this.lexer.next();
  }

  parse(): Expression {
    const expression = this.parseOr();
    if (this.isSymbol(')')) throw new ExpressionError("unexpected ')' (no '(' to close)", this.token.position);
    if (this.token.kind !== 'end') throw this.expected("'and', 'or' or the end");
    return expression;
  }

  private advance(): Token {
    this.previous = this.token;
    this.token = this.lexer.next();
    return this.previous;
  }

  private get previousEnd(): number {
    return this.previous?.end ?? 0;
  }

  private isKeyword(keyword: ExpressionKeyword): boolean {
    return this.token.kind === 'keyword' && this.token.keyword === keyword;
  }

  private isSymbol(symbol: '(' | ')' | ','): boolean {
    return this.token.kind === 'symbol' && this.token.symbol === symbol;
  }

  /** "expected X after <the previous token>, found <this one>", at this token. */
  private expected(what: string, after = true): ExpressionError {
    const previous = after && this.previous ? ` after ${describeToken(this.previous, this.text)}` : '';
    return new ExpressionError(`expected ${what}${previous}, found ${describeToken(this.token, this.text)}`, this.token.position);
  }

  private enter(position: number): void {
    this.depth += 1;
    if (this.depth > MAX_NESTING_DEPTH) throw new ExpressionError(`nesting deeper than ${MAX_NESTING_DEPTH} (parentheses and 'not')`, position);
  }

  private parseOr(): Expression {
    return this.parseChain('or', () => this.parseAnd());
  }

  private parseAnd(): Expression {
    return this.parseChain('and', () => this.parseNot());
  }

  private parseChain(kind: 'and' | 'or', parseOperand: () => Expression): Expression {
    const position = this.token.position;
    const operands = [parseOperand()];
    while (this.isKeyword(kind)) {
      this.advance();
      operands.push(parseOperand());
    }
    return operands.length === 1 ? operands[0]! : { kind, operands, position, end: this.previousEnd };
  }

  private parseNot(): Expression {
    if (!this.isKeyword('not')) return this.parsePrimary();
    const position = this.token.position;
    this.enter(position);
    this.advance();
    const operand = this.parseNot();
    this.depth -= 1;
    return { kind: 'not', operand, position, end: this.previousEnd };
  }

  private parsePrimary(): Expression {
    const open = this.token;
    if (this.isSymbol('(')) {
      this.enter(open.position);
      this.advance();
      const inner = this.parseOr();
      if (!this.isSymbol(')')) throw this.expected(`')' for the '(' at ${open.position}`, false);
      this.advance();
      this.depth -= 1;
      return inner;
    }
    if (open.kind === 'keyword' && (open.keyword === 'true' || open.keyword === 'false' || open.keyword === 'null')) {
      const literal = this.parseOperand('a condition');
      if (!this.startsComparisonTail()) {
        return { kind: 'constant', value: literal.kind === 'boolean' ? literal.value : null, position: open.position, end: open.end };
      }
      return this.parseComparison(literal);
    }
    return this.parseComparison(this.parseOperand('a condition'));
  }

  private startsComparisonTail(): boolean {
    const { token } = this;
    return token.kind === 'operator' || (token.kind === 'keyword' && COMPARISON_TAILS.includes(token.keyword));
  }

  private parseOperand(what: string): Operand {
    const token = this.token;
    const span = { position: token.position, end: token.end };
    if (token.kind === 'name') {
      this.advance();
      return this.nameOf(token.segments, span);
    }
    if (token.kind === 'variable') {
      this.advance();
      return { kind: 'variable', name: token.name, ...span };
    }
    return this.parseLiteral(what);
  }

  private parseLiteral(what: string): Literal {
    const literal = literalOf(this.token);
    if (!literal) throw this.expected(what);
    this.advance();
    return literal;
  }

  private parseText(what: string): TextLiteral {
    if (this.token.kind !== 'text') throw this.expected(what);
    const { value, position, end } = this.token;
    this.advance();
    return { kind: 'text', value, position, end };
  }

  /** Segments -> steps and column; two quoted segments before a further one are one `reference` step. */
  private nameOf(segments: Segment[], span: { position: number; end: number }): Name {
    const column = segments[segments.length - 1]!;
    const steps: PathStep[] = [];
    for (let index = 0; index < segments.length - 1; ) {
      const segment = segments[index]!;
      const next = segments[index + 1]!;
      if (segment.quoted && next.quoted && index + 1 < segments.length - 1) {
        steps.push({ kind: 'reference', table: segment.name, column: next.name, position: segment.position, end: next.end });
        index += 2;
      } else {
        steps.push({ kind: 'embed', name: segment.name, position: segment.position, end: segment.end });
        index += 1;
      }
      if (steps.length > MAX_PATH_STEPS) {
        throw new ExpressionError(`a path takes at most ${MAX_PATH_STEPS} steps before its column`, steps[MAX_PATH_STEPS]!.position);
      }
    }
    return { kind: 'name', steps, column: { name: column.name, position: column.position, end: column.end }, ...span };
  }

  private parseComparison(left: Operand): Expression {
    const token = this.token;
    const position = left.position;
    const operatorPosition = token.position;
    if (token.kind === 'operator') {
      this.advance();
      const right = this.parseOperand('a value');
      return this.counted({ kind: 'compare', op: token.op, left, right, operatorPosition, position, end: right.end });
    }
    if (token.kind !== 'keyword') throw this.expected('a comparison operator');
    switch (token.keyword) {
      case 'in':
        return this.counted(this.parseInList(left));
      case 'like':
      case 'ilike': {
        this.advance();
        const pattern = this.parseText('a quoted pattern');
        return this.counted({ kind: 'like', caseInsensitive: token.keyword === 'ilike', operand: left, pattern, operatorPosition, position, end: pattern.end });
      }
      case 'is': {
        this.advance();
        const negated = this.isKeyword('not');
        if (negated) this.advance();
        if (!this.isKeyword('null')) throw this.expected(negated ? "'null'" : "'null' or 'not null'");
        this.advance();
        return this.counted({ kind: 'null-test', operand: left, negated, operatorPosition, position, end: this.previousEnd });
      }
      case 'search': {
        if (left.kind !== 'name') throw new ExpressionError("'search' takes a column on its left", left.position);
        this.advance();
        const words = this.parseText('quoted words');
        return this.counted({ kind: 'search', column: left, words, operatorPosition, position, end: words.end });
      }
      case 'not':
        throw new ExpressionError(`${this.expected('a comparison operator').problem} (write 'not' before the comparison)`, token.position);
      default:
        throw this.expected('a comparison operator');
    }
  }

  private parseInList(operand: Operand): ExpressionComparison {
    const operatorPosition = this.advance().position;
    if (!this.isSymbol('(')) throw this.expected("'('");
    this.advance();
    const values: Literal[] = [];
    for (;;) {
      if (values.length === MAX_LIST_VALUES) throw new ExpressionError(`an 'in' list holds at most ${MAX_LIST_VALUES} values`, this.token.position);
      values.push(this.parseLiteral('a literal value'));
      if (this.isSymbol(')')) break;
      if (!this.isSymbol(',')) throw this.expected("',' or ')'");
      this.advance();
    }
    const close = this.advance();
    return { kind: 'in', operand, values, operatorPosition, position: operand.position, end: close.end };
  }

  private counted(comparison: ExpressionComparison): Expression {
    this.comparisons += 1;
    if (this.comparisons > MAX_COMPARISONS) {
      throw new ExpressionError(`an expression has at most ${MAX_COMPARISONS} comparisons`, comparison.position);
    }
    return comparison;
  }
}

function literalOf(token: Token): Literal | undefined {
  const span = { position: token.position, end: token.end };
  switch (token.kind) {
    case 'text':
      return { kind: 'text', value: token.value, ...span };
    case 'number':
      return { kind: 'number', text: token.text, ...span };
    case 'keyword':
      if (token.keyword === 'true' || token.keyword === 'false') return { kind: 'boolean', value: token.keyword === 'true', ...span };
      return token.keyword === 'null' ? { kind: 'null', ...span } : undefined;
    default:
      return undefined;
  }
}
