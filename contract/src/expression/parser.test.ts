import { describe, expect, it } from 'vitest';
import { parseExpression } from './parser.js';
import { EXPRESSION_VARIABLES, ExpressionError, type Expression, type Name } from './syntax.js';

/**
 * The grammar of rules and `filter=` (API.md, "Access rules: policy `rules`" and "Part 2 in detail", Grammar): what
 * each piece parses to. Bounds and error positions are in parser-errors.test.ts, printing in print.test.ts.
 */

function parsed(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`${JSON.stringify(text)} did not parse: ${result.error.message}`);
  return result.value;
}

function refusal(text: string): ExpressionError {
  const result = parseExpression(text);
  if (result.ok) throw new Error(`${JSON.stringify(text)} parsed`);
  expect(result.error).toBeInstanceOf(ExpressionError);
  return result.error;
}

const SPAN_KEYS = new Set(['position', 'end', 'operatorPosition']);

/** The tree without where its parts are, to compare shapes. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !SPAN_KEYS.has(key)).map(([key, child]) => [key, shape(child)]));
}

const name = (column: string, ...steps: string[]) => ({ kind: 'name', steps: steps.map((step) => ({ kind: 'embed', name: step })), column: { name: column } });
const num = (text: string) => ({ kind: 'number', text });
const text = (value: string) => ({ kind: 'text', value });
const eq = (left: unknown, right: unknown) => ({ kind: 'compare', op: 'eq', left, right });

/** The right-hand side of `a = <literal>`. */
function rightOf(literal: string): unknown {
  const tree = parsed(`a = ${literal}`);
  if (tree.kind !== 'compare') throw new Error(`not a comparison: ${literal}`);
  return shape(tree.right);
}

describe('literals', () => {
  it.each([
    ["'text'", text('text')],
    ["'it''s'", text("it's")],
    ["''", text('')],
    ["''''", text("'")],
    ["'😀 é \"x\"'", text('😀 é "x"')],
    ['12', num('12')],
    ['-12', num('-12')],
    ['3.5', num('3.5')],
    ['.5', num('.5')],
    ['-.5', num('-.5')],
    ['1e3', num('1e3')],
    ['2.5E-3', num('2.5E-3')],
    ['9223372036854775807', num('9223372036854775807')],
    ['123456789012345678901234567890', num('123456789012345678901234567890')],
    ['true', { kind: 'boolean', value: true }],
    ['FALSE', { kind: 'boolean', value: false }],
    ['null', { kind: 'null' }],
    ['NuLL', { kind: 'null' }],
  ])('%s', (literal, expected) => {
    expect(rightOf(literal)).toEqual(expected);
  });

  it('keeps numbers as written, so no digit of an int8 is lost', () => {
    const tree = parsed('big = 9223372036854775807');
    expect(tree).toMatchObject({ right: { kind: 'number', text: '9223372036854775807' } });
  });

  it('takes true, false and null standing alone as constant conditions', () => {
    expect(shape(parsed('true'))).toEqual({ kind: 'constant', value: true });
    expect(shape(parsed('False'))).toEqual({ kind: 'constant', value: false });
    expect(shape(parsed('null'))).toEqual({ kind: 'constant', value: null });
    expect(shape(parsed('(true)'))).toEqual({ kind: 'constant', value: true });
    // ...and as the left side of a comparison when one follows.
    expect(shape(parsed('null = 1'))).toEqual(eq({ kind: 'null' }, num('1')));
    expect(shape(parsed('true != published'))).toMatchObject({ op: 'neq', left: { kind: 'boolean', value: true }, right: name('published') });
  });

  it.each(['1e', '1x', '1.2.3', "1'a'", '1e400', '-'])('refuses the malformed number in a = %s', (literal) => {
    refusal(`a = ${literal}`);
  });
});

describe('names', () => {
  it('reads a bare name as a column of the table', () => {
    expect(shape(parsed('user_id = 1'))).toEqual(eq(name('user_id'), num('1')));
    expect(shape(parsed('_x9 = 1'))).toEqual(eq(name('_x9'), num('1')));
  });

  it('keeps names case-sensitive while keywords are not', () => {
    expect(shape(parsed('Title = 1 AND title = 2'))).toEqual({ kind: 'and', operands: [eq(name('Title'), num('1')), eq(name('title'), num('2'))] });
  });

  it('reads double-quoted names, a doubled quote inside, keywords among them', () => {
    expect(shape(parsed('"and" = 1'))).toEqual(eq(name('and'), num('1')));
    expect(shape(parsed('"first name" = 1'))).toEqual(eq(name('first name'), num('1')));
    expect(shape(parsed('"say ""hi""" = 1'))).toEqual(eq(name('say "hi"'), num('1')));
    expect(shape(parsed('"é😀" = 1'))).toEqual(eq(name('é😀'), num('1')));
    expect(shape(parsed('"a.b" = 1'))).toEqual(eq(name('a.b'), num('1')));
  });

  it('refuses a bare keyword as a name, and an empty quoted name', () => {
    expect(refusal('and = 1').position).toBe(0);
    expect(refusal('null.x = 1').problem).toMatch(/keyword/);
    expect(refusal('a = 1 and "" = 2').position).toBe(10);
  });

  it('reads a path: embed steps, then the column', () => {
    expect(shape(parsed("author.name = 'x'"))).toEqual(eq(name('name', 'author'), text('x')));
    expect(shape(parsed('project.memberships.user_id = @auth.id'))).toEqual(
      eq(name('user_id', 'project', 'memberships'), { kind: 'variable', name: '@auth.id' }),
    );
    // A keyword after a dot is a name: only the first segment could be read as a keyword.
    expect(shape(parsed('author.null = 1'))).toEqual(eq(name('null', 'author'), num('1')));
  });

  it('reads "comments"."post_id" followed by a column as one to-many step', () => {
    const tree = parsed('"comments"."post_id".body = \'x\'') as Extract<Expression, { kind: 'compare' }>;
    expect(shape(tree.left)).toEqual({ kind: 'name', steps: [{ kind: 'reference', table: 'comments', column: 'post_id' }], column: { name: 'body' } });
    expect((tree.left as Name).steps[0]).toMatchObject({ position: 0, end: 20 });
    // Two quoted names alone are a step and its column, as `comments.post_id`.
    expect(shape(parsed('"comments"."post_id" = 1'))).toEqual(eq(name('post_id', 'comments'), num('1')));
    expect(shape((parsed('author."comments"."post_id".body = 1') as Extract<Expression, { kind: 'compare' }>).left)).toEqual({
      kind: 'name',
      steps: [{ kind: 'embed', name: 'author' }, { kind: 'reference', table: 'comments', column: 'post_id' }],
      column: { name: 'body' },
    });
  });

  it('takes at most 3 steps before the column', () => {
    expect(shape(parsed('a.b.c.d = 1'))).toEqual(eq(name('d', 'a', 'b', 'c'), num('1')));
    expect(parsed('"a"."b"."c"."d"."e"."f".g = 1')).toMatchObject({ left: { steps: [{ kind: 'reference' }, { kind: 'reference' }, { kind: 'reference' }] } });
    const four = refusal('a.b.c.d.e = 1');
    expect(four.position).toBe(6);
    expect(four.problem).toMatch(/at most 3 steps/);
    expect(refusal('"a"."b".c.d.e.f = 1').position).toBe(12);
  });
});

describe('variables', () => {
  it.each(EXPRESSION_VARIABLES)('reads %s', (variable) => {
    expect(shape(parsed(`${variable} = x`))).toEqual(eq({ kind: 'variable', name: variable }, name('x')));
  });

  it('knows the contract variables', () => {
    expect([...EXPRESSION_VARIABLES].sort()).toEqual(['@auth.aal', '@auth.email', '@auth.id', '@auth.key', '@auth.role', '@auth.verified', '@now']);
  });

  it.each(['@auth.foo', '@auth', '@user.id', '@', '@auth.id.x', '@nowx'])('refuses the unknown variable %s at its @', (variable) => {
    const error = refusal(`a = 1 and ${variable} = 2`);
    expect(error.position).toBe(10);
    expect(error.problem).toMatch(/unknown variable/);
  });
});

describe('comparisons', () => {
  it.each([
    ['=', 'eq'],
    ['!=', 'neq'],
    ['<', 'lt'],
    ['<=', 'lte'],
    ['>', 'gt'],
    ['>=', 'gte'],
  ])('%s is %s, with or without spaces', (symbol, op) => {
    expect(shape(parsed(`a ${symbol} 1`))).toEqual({ kind: 'compare', op, left: name('a'), right: num('1') });
    expect(shape(parsed(`a${symbol}-1`))).toEqual({ kind: 'compare', op, left: name('a'), right: num('-1') });
  });

  it.each(['<>', '==', '&&', '||'])('refuses %s at its position', (symbol) => {
    expect(refusal(`a ${symbol} 1`).position).toBe(2);
  });

  it('records where the operator is', () => {
    expect(parsed("author.name != 'x'")).toMatchObject({ position: 0, end: 18, operatorPosition: 12, left: { position: 0, end: 11 } });
  });

  it('reads in with 1 to 100 literals of any kind', () => {
    expect(shape(parsed("a in (1, 'x', true, null, -2.5)"))).toEqual({
      kind: 'in',
      operand: name('a'),
      values: [num('1'), text('x'), { kind: 'boolean', value: true }, { kind: 'null' }, num('-2.5')],
    });
    expect(shape(parsed('a IN (1)'))).toEqual({ kind: 'in', operand: name('a'), values: [num('1')] });
    const hundred = parsed(`a in (${Array.from({ length: 100 }, (_, index) => index).join(', ')})`);
    expect(hundred).toMatchObject({ kind: 'in' });
    expect((hundred as Extract<Expression, { kind: 'in' }>).values).toHaveLength(100);
  });

  it('refuses an empty in list, a variable or a name in it', () => {
    expect(refusal('a in ()').position).toBe(6);
    expect(refusal('a in (@auth.id)').position).toBe(6);
    expect(refusal('a in (1, b)').position).toBe(9);
    expect(refusal('a in 1').position).toBe(5);
  });

  it('reads like and ilike with a quoted pattern', () => {
    expect(shape(parsed("name like 'a*'"))).toEqual({ kind: 'like', caseInsensitive: false, operand: name('name'), pattern: text('a*') });
    expect(shape(parsed("author.name ILIKE 'ann*'"))).toEqual({ kind: 'like', caseInsensitive: true, operand: name('name', 'author'), pattern: text('ann*') });
    expect(refusal('name like 5').position).toBe(10);
    expect(refusal('name like other').position).toBe(10);
  });

  it('reads is null and is not null', () => {
    expect(shape(parsed('a is null'))).toEqual({ kind: 'null-test', operand: name('a'), negated: false });
    expect(shape(parsed('a IS NOT NULL'))).toEqual({ kind: 'null-test', operand: name('a'), negated: true });
    expect(shape(parsed('@auth.id is not null'))).toEqual({ kind: 'null-test', operand: { kind: 'variable', name: '@auth.id' }, negated: true });
    expect(refusal('a is nul').position).toBe(5);
    expect(refusal('a is not 1').position).toBe(9);
  });

  it('reads search with a column on its left and quoted words', () => {
    expect(shape(parsed("body search 'hello world'"))).toEqual({ kind: 'search', column: name('body'), words: text('hello world') });
    expect(refusal("'x' search 'y'").position).toBe(0);
    expect(refusal('body search words').position).toBe(12);
  });

  it("points 'not' after an operand to where it belongs", () => {
    const error = refusal('a not in (1)');
    expect(error.position).toBe(2);
    expect(error.problem).toMatch(/write 'not' before the comparison/);
  });

  it('needs a comparison: a bare name is not a condition', () => {
    expect(refusal('published').position).toBe(9);
    expect(refusal('published and a = 1').position).toBe(10);
  });
});

describe('and, or, not', () => {
  const a = eq(name('a'), num('1'));
  const b = eq(name('b'), num('2'));
  const c = eq(name('c'), num('3'));

  it('binds and tighter than or', () => {
    expect(shape(parsed('a = 1 or b = 2 and c = 3'))).toEqual({ kind: 'or', operands: [a, { kind: 'and', operands: [b, c] }] });
    expect(shape(parsed('a = 1 and b = 2 or c = 3'))).toEqual({ kind: 'or', operands: [{ kind: 'and', operands: [a, b] }, c] });
  });

  it('keeps one chain for a run of the same junction', () => {
    expect(shape(parsed('a = 1 and b = 2 and c = 3'))).toEqual({ kind: 'and', operands: [a, b, c] });
    expect(shape(parsed('a = 1 or b = 2 or c = 3'))).toEqual({ kind: 'or', operands: [a, b, c] });
  });

  it('lets not take the comparison after it, before and/or', () => {
    expect(shape(parsed('not a = 1 and b = 2'))).toEqual({ kind: 'and', operands: [{ kind: 'not', operand: a }, b] });
    expect(shape(parsed('not a = 1 or b = 2'))).toEqual({ kind: 'or', operands: [{ kind: 'not', operand: a }, b] });
    expect(shape(parsed('a = 1 and not b = 2'))).toEqual({ kind: 'and', operands: [a, { kind: 'not', operand: b }] });
    expect(shape(parsed('not not a = 1'))).toEqual({ kind: 'not', operand: { kind: 'not', operand: a } });
    expect(shape(parsed('not true'))).toEqual({ kind: 'not', operand: { kind: 'constant', value: true } });
  });

  it('groups with parentheses', () => {
    expect(shape(parsed('(a = 1 or b = 2) and c = 3'))).toEqual({ kind: 'and', operands: [{ kind: 'or', operands: [a, b] }, c] });
    expect(shape(parsed('not (a = 1 and b = 2)'))).toEqual({ kind: 'not', operand: { kind: 'and', operands: [a, b] } });
    expect(shape(parsed('((a = 1))'))).toEqual(a);
    expect(shape(parsed('a = 1 and (b = 2 and c = 3)'))).toEqual({ kind: 'and', operands: [a, { kind: 'and', operands: [b, c] }] });
  });

  it('reads keywords in any case', () => {
    expect(shape(parsed('NOT a = 1 AnD b = 2 Or c = 3'))).toEqual({ kind: 'or', operands: [{ kind: 'and', operands: [{ kind: 'not', operand: a }, b] }, c] });
  });

  it('takes tabs and newlines as spaces', () => {
    expect(shape(parsed('\ta = 1\nand\r\nb = 2 '))).toEqual({ kind: 'and', operands: [a, b] });
  });

  it('spans a junction from its first operand to its last', () => {
    expect(parsed('a = 1 and b = 2')).toMatchObject({ position: 0, end: 15 });
    expect(parsed('not (a = 1)')).toMatchObject({ kind: 'not', position: 0, end: 11 });
  });
});
