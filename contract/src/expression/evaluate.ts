import type { Comparison } from '../query.js';
import type { ColumnType } from '../schema.js';
import type { ConstantValue } from './resolved.js';

/**
 * Comparisons between two constants, as folding decides them (SQL's three-valued logic: a `null` side is never
 * equal, nor unequal). Once the caller is known every such comparison is folded, so these are what they mean, never
 * second-guessed by Postgres: text orders by code point (as `COLLATE "C"`), `ilike` lower-cases with JavaScript's
 * Unicode rules, timestamps compare to the millisecond (as filters do), int8 beyond 2^53 exactly.
 */

/** UTF-16 code units reordered so that comparing them orders by code point (surrogates sort above U+FFFF). */
function codePointOrder(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

export function compareText(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const difference = codePointOrder(left.charCodeAt(index)) - codePointOrder(right.charCodeAt(index));
    if (difference !== 0) return Math.sign(difference);
  }
  return Math.sign(left.length - right.length);
}

function compareNumbers(left: ConstantValue, right: ConstantValue): number {
  if (typeof left === 'number' && typeof right === 'number') return left === right ? 0 : left < right ? -1 : 1;
  // int8 beyond 2^53 arrives as its digits: whole numbers both, compared exactly.
  const [a, b] = [BigInt(left as string | number), BigInt(right as string | number)];
  return a === b ? 0 : a < b ? -1 : 1;
}

/** -1, 0 or 1 for two non-null constants of one type. */
export function compareConstants(left: ConstantValue, right: ConstantValue, type: ColumnType): number {
  switch (type) {
    case 'integer':
    case 'real':
      return compareNumbers(left, right);
    case 'timestamp':
      return Math.sign((left as Date).getTime() - (right as Date).getTime());
    case 'boolean':
      return Number(left) - Number(right);
    case 'text':
    case 'json':
      // json compares as its text, as filters compare it.
      return compareText(String(left), String(right));
  }
}

const OUTCOMES: Record<Comparison, (order: number) => boolean> = {
  eq: (order) => order === 0,
  neq: (order) => order !== 0,
  lt: (order) => order < 0,
  lte: (order) => order <= 0,
  gt: (order) => order > 0,
  gte: (order) => order >= 0,
};

export function evaluateComparison(op: Comparison, left: ConstantValue, right: ConstantValue, type: ColumnType | null): boolean | null {
  if (left === null || right === null || type === null) return null;
  return OUTCOMES[op](compareConstants(left, right, type));
}

/** `v in (a, b, ...)`: true on a match, else null when any of them is null, else false (SQL's `= ANY`). */
export function evaluateIn(value: ConstantValue, values: ConstantValue[], type: ColumnType | null): boolean | null {
  if (value === null || type === null) return null;
  let sawNull = false;
  for (const candidate of values) {
    if (candidate === null) sawNull = true;
    else if (compareConstants(value, candidate, type) === 0) return true;
  }
  return sawNull ? null : false;
}

/**
 * `*` matches any run of characters, every other character itself (`%`, `_` and `\` included). The classic
 * two-pointer match, remembering only the last `*`: time at most text x pattern, no recursion, no regular expression.
 */
export function matchesLike(text: string, pattern: string, caseInsensitive: boolean): boolean {
  const subject = caseInsensitive ? text.toLowerCase() : text;
  const wanted = caseInsensitive ? pattern.toLowerCase() : pattern;
  let at = 0;
  let next = 0;
  let star = -1;
  let resume = 0;
  while (at < subject.length) {
    if (next < wanted.length && wanted[next] === '*') {
      star = next;
      next += 1;
      resume = at;
    } else if (next < wanted.length && wanted[next] === subject[at]) {
      next += 1;
      at += 1;
    } else if (star >= 0) {
      next = star + 1;
      resume += 1;
      at = resume;
    } else {
      return false;
    }
  }
  while (wanted[next] === '*') next += 1;
  return next === wanted.length;
}
