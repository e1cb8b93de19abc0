import type { Comparison } from '../query.js';
import { EXPRESSION_VARIABLES, ExpressionError, keywordOf, type ExpressionKeyword, type ExpressionVariable, type Span } from './syntax.js';

/**
 * The expression language's tokens, read one at a time on the parser's demand, so the first problem in reading order
 * is the one reported. A hand-written scanner: every character is looked at a bounded number of times, so no input can
 * make it backtrack.
 */

export interface Segment extends Span {
  name: string;
  quoted: boolean;
}

export type Token =
  | ({ kind: 'end' } & Span)
  | ({ kind: 'keyword'; keyword: ExpressionKeyword } & Span)
  /** `a`, `author.name`, `"comments"."post_id".body`: the segments of a dotted name, written without spaces. */
  | ({ kind: 'name'; segments: Segment[] } & Span)
  | ({ kind: 'variable'; name: ExpressionVariable } & Span)
  | ({ kind: 'text'; value: string } & Span)
  | ({ kind: 'number'; text: string } & Span)
  | ({ kind: 'operator'; op: Comparison } & Span)
  | ({ kind: 'symbol'; symbol: '(' | ')' | ',' } & Span);

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const isBareStart = (char: string | undefined) => char !== undefined && ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_');
const isBarePart = (char: string | undefined) => isBareStart(char) || isDigit(char);
const LETTER = /^\p{L}$/u;

/** Half of a UTF-16 pair without its other half: no Postgres text can hold it (UTF-8 has no encoding for it). */
function isLoneSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  if (code >= 0xdc00 && code <= 0xdfff) {
    const previous = text.charCodeAt(index - 1);
    return !(previous >= 0xd800 && previous <= 0xdbff);
  }
  return false;
}

/** A character as an error message shows it: printable ASCII quoted, anything else by its code point. */
export function describeCharacter(character: string): string {
  const code = character.codePointAt(0)!;
  if (code > 0x20 && code < 0x7f) return `'${character}'`;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return LETTER.test(character) ? `'${character}' (${hex})` : hex;
}

/** At most this much of the source is quoted back in a message. */
const QUOTED_LENGTH = 24;

/** Source text as a message quotes it: cut short, control characters spelled out. */
export function quoteSource(source: string): string {
  const cut = source.length > QUOTED_LENGTH ? `${source.slice(0, QUOTED_LENGTH)}...` : source;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this spells out
  return `'${cut.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}

export function describeToken(token: Token, text: string): string {
  if (token.kind === 'end') return 'the end';
  const source = text.slice(token.position, token.end);
  return token.kind === 'text' ? `text ${quoteSource(source)}` : quoteSource(source);
}

export class Lexer {
  private index = 0;

  constructor(private readonly text: string) {}

  next(): Token {
    const { text } = this;
    while (WHITESPACE.has(text[this.index] ?? '')) this.index += 1;
    const start = this.index;
    const char = text[start];
    const after = text[start + 1];
    if (char === undefined) return { kind: 'end', position: start, end: start };
    if (char === '(' || char === ')' || char === ',') return { kind: 'symbol', symbol: char, ...this.take(1) };
    if (char === "'") {
      const value = this.readQuoted("'", 'text');
      return { kind: 'text', value, position: start, end: this.index };
    }
    if (char === '"' || isBareStart(char)) return this.readName();
    if (char === '@') return this.readVariable();
    if (isDigit(char) || ((char === '-' || char === '.') && isDigit(after)) || (char === '-' && after === '.' && isDigit(text[start + 2]))) {
      return this.readNumber();
    }
    switch (char) {
      case '=':
        if (after === '=') throw new ExpressionError("'==' is not an operator (write '=')", start);
        return { kind: 'operator', op: 'eq', ...this.take(1) };
      case '!':
        if (after === '=') return { kind: 'operator', op: 'neq', ...this.take(2) };
        throw new ExpressionError("unexpected character '!' (write '!=' for not equal, or 'not')", start);
      case '<':
        if (after === '>') throw new ExpressionError("'<>' is not an operator (write '!=')", start);
        return after === '=' ? { kind: 'operator', op: 'lte', ...this.take(2) } : { kind: 'operator', op: 'lt', ...this.take(1) };
      case '>':
        return after === '=' ? { kind: 'operator', op: 'gte', ...this.take(2) } : { kind: 'operator', op: 'gt', ...this.take(1) };
      case '&':
      case '|':
        if (after === char) throw new ExpressionError(`'${char}${char}' is not an operator (write '${char === '&' ? 'and' : 'or'}')`, start);
    }
    const whole = String.fromCodePoint(text.codePointAt(start)!);
    const hint = LETTER.test(whole) ? ' (a name with characters other than A-Z, a-z, 0-9 and _ is written in double quotes)' : '';
    throw new ExpressionError(`unexpected character ${describeCharacter(whole)}${hint}`, start);
  }

  private take(length: number): Span {
    const position = this.index;
    this.index += length;
    return { position, end: this.index };
  }

  /** `'...'` or `"..."` with the quote doubled inside; the index moves past the closing quote. */
  private readQuoted(quote: "'" | '"', what: 'text' | 'name'): string {
    const { text } = this;
    const start = this.index;
    let value = '';
    let index = start + 1;
    for (;;) {
      const char = text[index];
      if (char === undefined) throw new ExpressionError(`unclosed ${what}: no closing ${quote} for the quote`, start);
      const unpaired = isLoneSurrogate(text, index);
      if (char === '\u0000' || unpaired) {
        const which = char === '\u0000' ? 'the NUL character (U+0000)' : `an unpaired surrogate (${describeCharacter(char)})`;
        throw new ExpressionError(`${what === 'text' ? 'text' : 'a name'} cannot contain ${which}`, index);
      }
      if (char === quote) {
        if (text[index + 1] !== quote) break;
        index += 1;
      }
      value += char;
      index += 1;
    }
    this.index = index + 1;
    return value;
  }

  private readSegment(): Segment {
    const position = this.index;
    if (this.text[position] === '"') {
      const name = this.readQuoted('"', 'name');
      if (name === '') throw new ExpressionError('a name cannot be empty ("")', position);
      return { name, quoted: true, position, end: this.index };
    }
    while (isBarePart(this.text[this.index])) this.index += 1;
    return { name: this.text.slice(position, this.index), quoted: false, position, end: this.index };
  }

  private readName(): Token {
    const first = this.readSegment();
    const keyword = first.quoted ? undefined : keywordOf(first.name);
    if (keyword && this.text[this.index] !== '.') return { kind: 'keyword', keyword, position: first.position, end: first.end };
    if (keyword) throw new ExpressionError(`'${first.name}' is a keyword: write "${first.name}" for a name spelled like it`, first.position);
    const segments = [first];
    while (this.text[this.index] === '.') {
      this.index += 1;
      const char = this.text[this.index];
      if (char !== '"' && !isBareStart(char)) throw new ExpressionError("expected a name after '.'", this.index);
      segments.push(this.readSegment());
    }
    return { kind: 'name', segments, position: first.position, end: this.index };
  }

  private readVariable(): Token {
    const start = this.index;
    this.index += 1;
    while (isBarePart(this.text[this.index]) || (this.text[this.index] === '.' && isBareStart(this.text[this.index + 1]))) this.index += 1;
    const written = this.text.slice(start, this.index);
    const name = EXPRESSION_VARIABLES.find((variable) => variable === written.toLowerCase());
    if (!name) {
      throw new ExpressionError(`unknown variable ${quoteSource(written)} (expected ${EXPRESSION_VARIABLES.join(', ')})`, start);
    }
    return { kind: 'variable', name, position: start, end: this.index };
  }

  /** A finite decimal as the query language takes it: `-12`, `3.5`, `.5`, `1e3`; nothing may cling to its end. */
  private readNumber(): Token {
    const { text } = this;
    const start = this.index;
    let index = start;
    if (text[index] === '-') index += 1;
    while (isDigit(text[index])) index += 1;
    if (text[index] === '.') {
      index += 1;
      while (isDigit(text[index])) index += 1;
    }
    if (text[index] === 'e' || text[index] === 'E') {
      let exponent = index + 1;
      if (text[exponent] === '+' || text[exponent] === '-') exponent += 1;
      if (isDigit(text[exponent])) {
        while (isDigit(text[exponent])) exponent += 1;
        index = exponent;
      }
    }
    if (isBarePart(text[index]) || text[index] === '.' || text[index] === "'" || text[index] === '"') {
      let clinging = index;
      while (isBarePart(text[clinging]) || text[clinging] === '.') clinging += 1;
      throw new ExpressionError(`malformed number ${quoteSource(text.slice(start, Math.max(clinging, index + 1)))}`, start);
    }
    const written = text.slice(start, index);
    if (!Number.isFinite(Number(written))) throw new ExpressionError(`number ${quoteSource(written)} is out of range`, start);
    this.index = index;
    return { kind: 'number', text: written, position: start, end: index };
  }
}
