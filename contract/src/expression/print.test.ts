import { describe, expect, it } from 'vitest';
import { parseExpression } from './parser.js';
import { printExpression, printName, printNameSegment, printTextLiteral } from './print.js';
import type { Expression, Name } from './syntax.js';

/** print.ts: trees back to one canonical text, which parses back to the same tree (positions aside). */

function parsed(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`${JSON.stringify(text)} did not parse: ${result.error.message}`);
  return result.value;
}

const SPAN_KEYS = new Set(['position', 'end', 'operatorPosition']);

function withoutSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSpans);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !SPAN_KEYS.has(key)).map(([key, child]) => [key, withoutSpans(child)]));
}

const ROUND_TRIPS = [
  'a = 1',
  'true',
  'false',
  'null',
  'not true',
  'true or false and null',
  'null = 1',
  'true = published',
  "'a' < 'b'",
  'not a = 1 and b = 2',
  'a = 1 or b = 2 and c = 3',
  '(a = 1 or b = 2) and c = 3',
  '(a = 1 or b = 2) or c = 3',
  'a = 1 and (b = 2 and c = 3)',
  'not (a = 1 and b = 2)',
  'not (a = 1 or b = 2)',
  'not not a = 1',
  'not (not a = 1 or b = 2) and not c is null',
  "title = 'it''s'",
  "title = ''",
  "title = '😀 é \"quoted\" \\ % _'",
  '"and" = 1 and "first name" = 2 and "say ""hi""" = 3 and "é" = 4',
  '"and"."or" = 1',
  '"and"."or".x = 1',
  'author.null = 1',
  "author.name ilike 'ann*'",
  "\"comments\".\"post_id\".body like '*x*'",
  '"my table"."my col".x.y = 1',
  'a.b.c.d = 1',
  "project.memberships.user_id = @auth.id and project.memberships.role = 'admin'",
  "a in (1, -2.5, 'x', true, null)",
  'a is null or b is not null',
  "body search 'hello world'",
  'n = 9223372036854775807 and m = 1e3 and k = .5 and j = -1.5E-3 and l = -.5',
  "@auth.id = user_id and @auth.role = 'owner' and @auth.email is not null and @auth.key = true",
  '@auth.verified = true and @auth.aal >= 2 and @now > created_at',
  'A = 1 AND NOT B = 2 OR C IS NOT NULL',
  "a=1 and(b!=2 or c<=3)and d>=-4 and e<'5' and f>6",
  "status = 'open' or (priority >= 3 and assignee_id = @auth.id)",
];

describe('printExpression', () => {
  it.each(ROUND_TRIPS)('%s parses back to the same tree', (text) => {
    const tree = parsed(text);
    const printed = printExpression(tree);
    expect(withoutSpans(parsed(printed))).toEqual(withoutSpans(tree));
    // Canonical: printing the printed tree changes nothing.
    expect(printExpression(parsed(printed))).toBe(printed);
  });

  it.each([
    ['A = 1 AND NOT B = 2 OR C IS NOT NULL', 'A = 1 and not (B = 2) or C is not null'],
    ["a=1 and(b!=2 or c<=3)and d>=-4", 'a = 1 and (b != 2 or c <= 3) and d >= -4'],
    ['((a = 1))', 'a = 1'],
    ['(a = 1 or b = 2) and c = 3', '(a = 1 or b = 2) and c = 3'],
    ['not (a = 1 and b = 2)', 'not (a = 1 and b = 2)'],
    ['not not a = 1', 'not not (a = 1)'],
    ['"and" = 1 and "ok" = 2', '"and" = 1 and ok = 2'],
    ['"a b"."c"."d" = 1', '"a b"."c".d = 1'],
    ["x = 'it''s'", "x = 'it''s'"],
    ['x IN (1,2 , 3)', 'x in (1, 2, 3)'],
    ["x ILIKE 'a*'", "x ilike 'a*'"],
    ['@AUTH.ID is NULL', '@auth.id is null'],
    ['TRUE', 'true'],
    ['n = 1E3', 'n = 1E3'],
  ])('prints %s as %s', (text, printed) => {
    expect(printExpression(parsed(text))).toBe(printed);
  });
});

describe('name and literal printing', () => {
  it('quotes a segment only when it must', () => {
    expect(printNameSegment('title')).toBe('title');
    expect(printNameSegment('and')).toBe('"and"');
    expect(printNameSegment('and', false)).toBe('and');
    expect(printNameSegment('first name')).toBe('"first name"');
    expect(printNameSegment('say "hi"')).toBe('"say ""hi"""');
    expect(printNameSegment('9lives')).toBe('"9lives"');
  });

  it('doubles quotes in text', () => {
    expect(printTextLiteral("it's")).toBe("'it''s'");
  });

  it('refuses a path whose quoted steps would read back as one reference', () => {
    const name: Name = {
      kind: 'name',
      steps: [
        { kind: 'embed', name: 'my rel', position: 0, end: 0 },
        { kind: 'embed', name: 'other rel', position: 0, end: 0 },
      ],
      column: { name: 'x', position: 0, end: 0 },
      position: 0,
      end: 0,
    };
    expect(() => printName(name)).toThrow(/cannot be written/);
  });
});
