import { describe, expect, it } from 'vitest';
import { parseExpression } from './parser.js';
import { MAX_COMPARISONS, MAX_EXPRESSION_LENGTH, MAX_NESTING_DEPTH, type Expression } from './syntax.js';

/**
 * Bounds and error positions (API.md, "Access rules": at most 2,000 characters and 20 comparisons; "Part 2 in detail":
 * `in` counts as one comparison and takes 1-100 literals; `position` is a 0-based index in UTF-16 code units).
 */

function accepts(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`${JSON.stringify(text.slice(0, 80))} did not parse: ${result.error.message}`);
  return result.value;
}

function refusedAt(text: string): { position: number; problem: string; message: string } {
  const result = parseExpression(text);
  if (result.ok) throw new Error(`${JSON.stringify(text.slice(0, 80))} parsed`);
  const { position, problem, message } = result.error;
  return { position, problem, message };
}

const comparisons = (count: number, each = 'a = 1') => Array.from({ length: count }, () => each).join(' and ');

describe('bounds', () => {
  it('are the contract numbers', () => {
    expect(MAX_EXPRESSION_LENGTH).toBe(2_000);
    expect(MAX_COMPARISONS).toBe(20);
  });

  it('take 2,000 characters and refuse 2,001', () => {
    accepts('a = 1'.padEnd(2_000));
    accepts(`a = '${'x'.repeat(1_994)}'`);
    const error = refusedAt('a = 1'.padEnd(2_001));
    expect(error.position).toBe(2_000);
    expect(error.problem).toMatch(/at most 2000 characters/);
    expect(refusedAt(`a = '${'x'.repeat(1_995)}'`).position).toBe(2_000);
  });

  it('take 20 comparisons and refuse the 21st at its start', () => {
    accepts(comparisons(20));
    accepts(comparisons(20, 'a is not null'));
    const error = refusedAt(comparisons(21));
    expect(error.position).toBe(20 * 'a = 1 and '.length);
    expect(error.problem).toMatch(/at most 20 comparisons/);
    // Counted across or, not and parentheses alike.
    expect(refusedAt(`not (${comparisons(10)}) or (${Array.from({ length: 11 }, () => "b like 'x'").join(' or ')})`).problem).toMatch(/20 comparisons/);
  });

  it('count an in list as one comparison, whatever its length', () => {
    const list = `a in (${Array.from({ length: 100 }, (_, index) => index + 1).join(', ')})`;
    expect(accepts(`${list} and ${comparisons(19)}`)).toMatchObject({ kind: 'and' });
    expect(accepts(comparisons(20, 'a in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)'))).toMatchObject({ kind: 'and' });
    expect(refusedAt(comparisons(21, 'a in (1, 2, 3)')).position).toBe(20 * 'a in (1, 2, 3) and '.length);
  });

  it('do not count constants as comparisons', () => {
    accepts(`${comparisons(20)} and true and not false or null`);
  });

  it('take 1 to 100 literals in a list, refusing the 101st where it stands', () => {
    const values = Array.from({ length: 101 }, (_, index) => String(index));
    accepts(`a in (${values.slice(0, 100).join(', ')})`);
    const text = `a in (${values.join(', ')})`;
    const error = refusedAt(text);
    expect(error.position).toBe(text.indexOf(', 100)') + 2);
    expect(error.problem).toMatch(/at most 100 values/);
    expect(refusedAt('a in ()').position).toBe(6);
  });

  it(`nest parentheses and nots at most ${MAX_NESTING_DEPTH} deep`, () => {
    accepts(`${'('.repeat(50)}a = 1${')'.repeat(50)}`);
    const parentheses = refusedAt(`${'('.repeat(51)}a = 1${')'.repeat(51)}`);
    expect(parentheses.position).toBe(50);
    expect(parentheses.problem).toMatch(/nesting deeper than 50/);
    accepts(`${'not '.repeat(50)}a = 1`);
    expect(refusedAt(`${'not '.repeat(51)}a = 1`).position).toBe(200);
    // Both count together.
    accepts(`${'not ('.repeat(25)}a = 1${')'.repeat(25)}`);
    expect(refusedAt(`${'not ('.repeat(25)}not a = 1${')'.repeat(25)}`).position).toBe(125);
  });

  it('refuse deep nesting without overflowing the stack', () => {
    expect(refusedAt(`${'('.repeat(1_990)}`).position).toBe(50);
    expect(refusedAt(`${'not '.repeat(499)}`).position).toBe(200);
  });
});

describe('error positions', () => {
  it.each([
    ['a = 1 and', 9, /expected a condition after 'and', found the end/],
    ['a =', 3, /expected a value after '=', found the end/],
    ['(a = 1', 6, /expected '\)' for the '\(' at 0, found the end/],
    ['(a = 1 or (b = 2)', 17, /for the '\(' at 0/],
    ['a = 1)', 5, /unexpected '\)'/],
    ['a = 1 b = 2', 6, /expected 'and', 'or' or the end/],
    ['a = 1 and or b = 2', 10, /expected a condition/],
    ["a = 'abc", 4, /unclosed text/],
    ['"abc = 1', 0, /unclosed name/],
    ['a = 1 and b ~ 2', 12, /unexpected character '~'/],
    ['a ! 1', 2, /write '!=' for not equal/],
    ['a.1 = 2', 2, /expected a name after '\.'/],
    ['a. b = 2', 2, /expected a name after '\.'/],
    ['a in (1, 2', 10, /expected ',' or '\)'/],
    ['a in (1 2)', 8, /expected ',' or '\)'/],
    ['a = 1 and (', 11, /expected a condition/],
    ['a = = 1', 4, /expected a value/],
    ['a = 1 and b is', 14, /'null' or 'not null'/],
    ['café = 1', 3, /unexpected character 'é' \(U\+00E9\).*double quotes/],
    ['a = 1\u00a0and b = 2', 5, /U\+00A0/],
    ['a = "x" and b = \u0001', 16, /U\+0001/],
  ])('%j fails at %i', (text, position, problem) => {
    const error = refusedAt(text);
    expect(error.position).toBe(position);
    expect(error.problem).toMatch(problem);
    expect(error.message).toBe(`${error.problem} at ${position}`);
  });

  it('count UTF-16 code units: an emoji is two, an accented letter one', () => {
    // 😀 is U+1F600, two code units (8 and 9): the closing quote is at 10, `x` at 16, the end at 17.
    expect(refusedAt("name = '😀' and x").position).toBe(17);
    expect(refusedAt("'😀😀' = 1 and #").position).toBe(15);
    expect(refusedAt("'éé' = 1 and #").position).toBe(13);
    expect(refusedAt('"😀" = \'😀\' and b = 1 and').position).toBe(25);
    expect(refusedAt("a = '😀' and 😀 = 1").position).toBe(13);
    expect(refusedAt("a = '😀' and 😀 = 1").problem).toMatch(/U\+1F600/);
  });

  it('place a problem inside text at its code unit', () => {
    // A lone surrogate cannot be stored as text by Postgres: refused where it is.
    expect(refusedAt("a = 'x\uD83D'").position).toBe(6);
    expect(refusedAt("a = '😀\uDE00'").position).toBe(7);
    expect(refusedAt("a = '😀😀\u0000'").position).toBe(9);
    expect(refusedAt('"\uD83D" = 1').position).toBe(1);
    // The closing quote missing: at the opening quote, after emoji text.
    expect(refusedAt("'😀' = a and b = '😀").position).toBe(17);
  });

  it('report the first problem in reading order', () => {
    expect(refusedAt('a <> 1 and b == 2').position).toBe(2);
    expect(refusedAt('a = 1 and b == 2 and c <> 3').position).toBe(12);
  });

  it('keep spans in UTF-16 code units on success', () => {
    const tree = accepts("'😀' = a");
    expect(tree).toMatchObject({ kind: 'compare', operatorPosition: 5, left: { kind: 'text', position: 0, end: 4 }, right: { position: 7, end: 8 } });
  });
});
