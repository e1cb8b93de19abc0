import { describe, expect, it } from 'vitest';
import { compareConstants, compareText, evaluateComparison, evaluateIn, matchesLike } from './evaluate.js';
import { parseExpression } from './parser.js';
import { hasCallerColumnConjunct, topLevelConjuncts } from './conjuncts.js';
import type { Expression } from './syntax.js';

/**
 * Constant comparisons as folding decides them (SQL's three-valued logic, text by code point as `COLLATE "C"`), and
 * `like`/`ilike` as the query language reads patterns (API.md: `*` matches any run of characters; `%`, `_` and `\`
 * match themselves).
 */

describe('matchesLike', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'ab', false],
    ['ab', 'abc', false],
    ['', '', true],
    ['', '*', true],
    ['', '**', true],
    ['a', '', false],
    ['abc', 'a*', true],
    ['abc', '*c', true],
    ['abc', '*b*', true],
    ['abc', '*d*', false],
    ['abc', '***', true],
    ['aXbYc', 'a*b*c', true],
    ['aXbY', 'a*b*c', false],
    ['aaab', '*ab', true],
    ['mississippi', '*sip*', true],
    ['mississippi', 'm*iss*ppi', true],
    ['mississippi', 'm*iss*ppx', false],
    ['100%', '100%', true],
    ['1000', '100%', false],
    ['100', '100%', false],
    ['a_c', 'a_c', true],
    ['abc', 'a_c', false],
    ['a\\b', 'a\\b', true],
    ['a\\b', 'a\\\\b', false],
    ['a*b', 'a*b', true],
    ['😀 x', '😀*', true],
    ['x 😀', '*😀', true],
  ])('%j like %j is %s', (text, pattern, expected) => {
    expect(matchesLike(text, pattern, false)).toBe(expected);
  });

  it('is case-sensitive for like and not for ilike', () => {
    expect(matchesLike('Ann Smith', 'ann*', false)).toBe(false);
    expect(matchesLike('Ann Smith', 'ann*', true)).toBe(true);
    expect(matchesLike('ann', 'ANN', true)).toBe(true);
    expect(matchesLike('ÉCOLE', 'éc*', true)).toBe(true);
    expect(matchesLike('ABC', 'a_c', true)).toBe(false);
  });

  it('stays linear-ish on patterns that make naive matchers backtrack', () => {
    const text = 'a'.repeat(2_000);
    expect(matchesLike(text, `${'*a'.repeat(30)}b`, false)).toBe(false);
    expect(matchesLike(text, `${'*a'.repeat(30)}*`, false)).toBe(true);
  });
});

describe('compareText', () => {
  it('orders by code point, not by collation', () => {
    expect(compareText('a', 'b')).toBe(-1);
    expect(compareText('b', 'a')).toBe(1);
    expect(compareText('abc', 'abc')).toBe(0);
    expect(compareText('B', 'a')).toBe(-1);
    expect(compareText('Z', 'a')).toBe(-1);
    expect(compareText('é', 'f')).toBe(1);
    expect(compareText('', 'a')).toBe(-1);
  });

  it('puts a prefix first', () => {
    expect(compareText('ab', 'abc')).toBe(-1);
    expect(compareText('abc', 'ab')).toBe(1);
  });

  it('sorts characters beyond U+FFFF above every BMP character, unlike UTF-16 code unit order', () => {
    // 😀 is U+1F600 (UTF-16 D83D DE00): code-unit order would put it before U+E000..U+FFFF.
    expect(compareText('\uffff', '😀')).toBe(-1);
    expect(compareText('\ue000', '😀')).toBe(-1);
    expect(compareText('😀', '\uffff')).toBe(1);
    expect(compareText('\ud7ff', '😀')).toBe(-1);
    expect(compareText('😀', '😁')).toBe(-1);
    expect(compareText('x😀', 'x\uff5e')).toBe(1);
  });
});

describe('evaluateComparison and evaluateIn', () => {
  it('answers null whenever a side is null', () => {
    expect(evaluateComparison('eq', null, 'a', 'text')).toBe(null);
    expect(evaluateComparison('neq', 'a', null, 'text')).toBe(null);
    expect(evaluateComparison('eq', null, null, null)).toBe(null);
  });

  it.each([
    ['eq', 1, 1, true],
    ['neq', 1, 1, false],
    ['lt', 1, 2, true],
    ['lte', 2, 2, true],
    ['gt', 2, 2, false],
    ['gte', 3, 2, true],
  ] as const)('%s %s %s is %s', (op, left, right, expected) => {
    expect(evaluateComparison(op, left, right, 'integer')).toBe(expected);
  });

  it('compares int8 beyond 2^53 exactly, timestamps to the millisecond, booleans false < true', () => {
    expect(compareConstants('9223372036854775807', '9223372036854775806', 'integer')).toBe(1);
    expect(compareConstants('9007199254740993', 9007199254740992, 'integer')).toBe(1);
    expect(compareConstants(new Date(1), new Date(2), 'timestamp')).toBe(-1);
    expect(compareConstants(false, true, 'boolean')).toBe(-1);
    expect(compareConstants('{"a":1}', '{"a":1}', 'json')).toBe(0);
    expect(evaluateComparison('gt', 2.5, 2, 'real')).toBe(true);
  });

  it('answers in as SQL = ANY: true on a match, else null if any value is null, else false', () => {
    expect(evaluateIn('a', ['b', 'a'], 'text')).toBe(true);
    expect(evaluateIn('a', ['b', null, 'a'], 'text')).toBe(true);
    expect(evaluateIn('a', ['b', null], 'text')).toBe(null);
    expect(evaluateIn('a', ['b', 'c'], 'text')).toBe(false);
    expect(evaluateIn(null, ['a'], 'text')).toBe(null);
  });
});

describe('topLevelConjuncts and hasCallerColumnConjunct', () => {
  function parsed(text: string): Expression {
    const result = parseExpression(text);
    if (!result.ok) throw result.error;
    return result.value;
  }

  it('finds `<owner> = @auth.id` among the top-level and operands, either way round', () => {
    expect(hasCallerColumnConjunct(parsed('user_id = @auth.id'), 'user_id')).toBe(true);
    expect(hasCallerColumnConjunct(parsed('@auth.id = user_id'), 'user_id')).toBe(true);
    expect(hasCallerColumnConjunct(parsed('published = true and (x = 1 and user_id = @auth.id)'), 'user_id')).toBe(true);
    expect(topLevelConjuncts(parsed('a = 1 and (b = 2 and c = 3)'))).toHaveLength(3);
  });

  it('does not take it under or or not, through a path, with another operator or another column', () => {
    expect(hasCallerColumnConjunct(parsed('user_id = @auth.id or published = true'), 'user_id')).toBe(false);
    expect(hasCallerColumnConjunct(parsed('not user_id = @auth.id'), 'user_id')).toBe(false);
    expect(hasCallerColumnConjunct(parsed('author.user_id = @auth.id'), 'user_id')).toBe(false);
    expect(hasCallerColumnConjunct(parsed('user_id != @auth.id'), 'user_id')).toBe(false);
    expect(hasCallerColumnConjunct(parsed('owner_id = @auth.id'), 'user_id')).toBe(false);
    expect(hasCallerColumnConjunct(parsed("user_id = 'x'"), 'user_id')).toBe(false);
  });
});
