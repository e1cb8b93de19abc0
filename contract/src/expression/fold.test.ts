import { describe, expect, it } from 'vitest';
import type { ColumnType } from '../schema.js';
import { ANON_CALLER, boundOnlyToColumns, foldExpression, foldExpressionForDescription, foldExpressionLeavingId, type DescribedCaller, type ExpressionCaller, type FoldedExpression } from './fold.js';
import { printExpression } from './print.js';
import type { ExpressionRelation, ExpressionSchema, ExpressionTable, ResolvedExpression } from './resolved.js';
import { checkExpression } from './resolve.js';

/**
 * Folding (API.md, "Part 2 in detail", Access rules): `@auth.*` and `@now` substituted, comparisons between constants
 * evaluated with SQL's three-valued logic, `and`/`or`/`not` simplified; `false` or `null` is 403, `true` adds no
 * condition; comparisons involving a column are never folded. For anon every `@auth.*` is null and `@auth.key` false.
 */

const table = (columns: Record<string, ColumnType>, relations: ExpressionRelation[] = []): ExpressionTable => ({
  columns: Object.entries(columns).map(([name, type]) => ({ name, type, ...(name === 'big' ? { pgType: 'int8' } : {}) })),
  relations,
});

const TABLES: Record<string, ExpressionTable> = {
  posts: table({ id: 'text', title: 'text', author_id: 'text', published: 'boolean', views: 'integer', big: 'integer', created_at: 'timestamp' }),
  projects: table({ id: 'text', owner_id: 'text' }, [{ name: 'memberships', kind: 'many', table: 'memberships', column: 'project_id' }]),
  memberships: table({ id: 'text', project_id: 'text', user_id: 'text', role: 'text' }),
  tasks: table({ id: 'text', project_id: 'text', done: 'boolean' }, [{ name: 'project', kind: 'one', table: 'projects', column: 'project_id' }]),
};
const SCHEMA: ExpressionSchema = { table: (name) => TABLES[name] };

const NOW = new Date('2026-01-09T12:00:00.000Z');
const MEMBER: ExpressionCaller = { id: 'u1', role: 'member', email: 'u1@example.com', key: false, verified: true, aal: 1 };
const OWNER: ExpressionCaller = { ...MEMBER, id: 'o1', role: 'owner' };
const KEY: ExpressionCaller = { ...MEMBER, key: true };
const ANON = ANON_CALLER;

function resolved(text: string, from: string): ResolvedExpression {
  const result = checkExpression(text, SCHEMA, from);
  if (!result.ok) throw new Error(`${JSON.stringify(text)} did not resolve: ${result.error.message}`);
  return result.value.resolved;
}

function summary(node: ResolvedExpression): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `${node.kind}(${node.operands.map(summary).join(', ')})`;
    case 'not':
      return `not(${summary(node.operand)})`;
    case 'exists':
      return `exists ${node.step.written}(${summary(node.condition)})`;
    default:
      return printExpression(node);
  }
}

/** A constant's value, or the condition left as one line. */
function outcome(folded: FoldedExpression): boolean | null | string {
  return folded.kind === 'constant' ? folded.value : summary(folded.condition);
}

const fold = (text: string, caller: ExpressionCaller, from = 'posts') => outcome(foldExpression(resolved(text, from), caller, NOW));
const describeFor = (text: string, caller: DescribedCaller, from = 'posts') => outcome(foldExpressionForDescription(resolved(text, from), caller));
/** 403 whatever the row: the rule folds to false or null. */
const refusesEveryRow = (result: boolean | null | string) => result === false || result === null;

describe('foldExpression', () => {
  it('treats anon as every @auth.* null and @auth.key false', () => {
    expect(ANON_CALLER).toMatchObject({ id: null, role: null, email: null, key: false, aal: null });
  });

  it('refuses anon every row of `user_id = @auth.id`, and leaves a member the condition', () => {
    expect(refusesEveryRow(fold('author_id = @auth.id', ANON))).toBe(true);
    expect(fold('author_id = @auth.id', MEMBER)).toBe("author_id = 'u1'");
    const folded = foldExpression(resolved('author_id = @auth.id', 'posts'), MEMBER, NOW);
    expect(folded).toMatchObject({ kind: 'condition', condition: { kind: 'compare', right: { kind: 'value', value: 'u1', type: 'text' } } });
  });

  it('decides rules on the caller alone: the presets', () => {
    expect(fold("@auth.role = 'owner'", OWNER)).toBe(true);
    expect(fold("@auth.role = 'owner'", MEMBER)).toBe(false);
    expect(refusesEveryRow(fold("@auth.role = 'owner'", ANON))).toBe(true);
    for (const caller of [ANON, MEMBER, OWNER]) expect(fold('true', caller)).toBe(true);
    expect(fold('false', OWNER)).toBe(false);
  });

  it("drops anon's null branch of an or, keeping the row condition", () => {
    expect(fold('author_id = @auth.id or published = true', ANON)).toBe('published = true');
    expect(fold('author_id = @auth.id or published = true', MEMBER)).toBe("or(author_id = 'u1', published = true)");
    expect(fold("@auth.role = 'owner' or author_id = @auth.id", MEMBER)).toBe("author_id = 'u1'");
    expect(fold("@auth.role = 'owner' or author_id = @auth.id", OWNER)).toBe(true);
    expect(fold("@auth.role = 'owner' and author_id = @auth.id", MEMBER)).toBe(false);
    expect(fold("@auth.role = 'member' and author_id = @auth.id", MEMBER)).toBe("author_id = 'u1'");
  });

  it('refuses every row when a null stands beside row conditions in an and', () => {
    expect(refusesEveryRow(fold('author_id = @auth.id and published = true', ANON))).toBe(true);
  });

  it('keeps the meaning of nulls under not: WHERE keeps only rows where it is true', () => {
    // not (null and p) is true exactly where p is false: not (p).
    expect(fold('not (author_id = @auth.id and published = true)', ANON)).toBe('not(published = true)');
    // not (null or p) is never true.
    expect(refusesEveryRow(fold('not (author_id = @auth.id or published = true)', ANON))).toBe(true);
    expect(refusesEveryRow(fold('not (author_id = @auth.id)', ANON))).toBe(true);
  });

  it.each([
    ['not (null = 1)', null],
    ['null or true', true],
    ['null and false', false],
    ['null and true', null],
    ['null or false', null],
    ['not null', null],
    ['null = null', null],
    ["'a' != null", null],
    ['null is null', true],
    ['1 is not null', true],
    ['1 in (2, null)', null],
    ['1 in (1, null)', true],
    ['1 in (2, 3)', false],
    ['not (1 in (2, null))', null],
    ['null in (1)', null],
    ["null like 'x*'", null],
    ['not (1 = 1 and null = 1)', null],
    ['(null = 1 or 1 = 1) and not (null = 1 and 1 = 2)', true],
  ])('evaluates %s with three-valued logic: %s', (text, expected) => {
    for (const caller of [ANON, MEMBER]) expect(fold(text, caller)).toBe(expected);
  });

  it('compares constants exactly: code points, int8 digits, timestamps', () => {
    expect(fold("'b' > 'a'", ANON)).toBe(true);
    expect(fold("'B' < 'a'", ANON)).toBe(true);
    expect(fold("'\uffff' < '😀'", ANON)).toBe(true);
    expect(fold('1 = 1.0', ANON)).toBe(true);
    expect(fold('9223372036854775807 > 9223372036854775806', ANON)).toBe(true);
    expect(fold('9223372036854775807 = 9223372036854775806', ANON)).toBe(false);
    expect(fold("@now > '2026-01-01'", ANON)).toBe(true);
    expect(fold("@now <= '2026-01-09T11:59:59.999Z'", ANON)).toBe(false);
    expect(fold("@now = '2026-01-09T12:00:00Z'", ANON)).toBe(true);
  });

  it('substitutes every caller value', () => {
    expect(fold('@auth.key = true', KEY)).toBe(true);
    expect(fold('@auth.key = true', MEMBER)).toBe(false);
    expect(fold('@auth.key = false', ANON)).toBe(true);
    expect(fold('@auth.aal >= 2', MEMBER)).toBe(false);
    expect(fold('@auth.aal >= 2', { ...MEMBER, aal: 2 })).toBe(true);
    expect(refusesEveryRow(fold('@auth.aal >= 1', ANON))).toBe(true);
    expect(fold('@auth.verified = true', MEMBER)).toBe(true);
    expect(refusesEveryRow(fold('@auth.verified = true', ANON))).toBe(true);
    expect(fold("@auth.email like '*@example.com'", MEMBER)).toBe(true);
    expect(fold("@auth.email ilike '*@EXAMPLE.COM'", MEMBER)).toBe(true);
    expect(fold("@auth.email like '*@EXAMPLE.COM'", MEMBER)).toBe(false);
    expect(fold("@auth.email like '*@example.com'", ANON)).toBe(null);
    expect(fold("@auth.role in ('owner', 'member')", MEMBER)).toBe(true);
    expect(fold("@auth.role in ('owner', 'admin')", MEMBER)).toBe(false);
    expect(fold('@auth.id is null', ANON)).toBe(true);
    expect(fold('@auth.id is not null', ANON)).toBe(false);
    expect(fold('@auth.id is null', MEMBER)).toBe(false);
    expect(fold('created_at < @now', MEMBER)).toBe("created_at < '2026-01-09T12:00:00.000Z'");
    expect(fold('author_id in (null, null)', MEMBER)).toBe(null);
  });

  it('never folds a comparison involving a column, except against null', () => {
    expect(fold('title = title', MEMBER)).toBe('title = title');
    expect(fold('views = views and published is null', ANON)).toBe('and(views = views, published is null)');
    expect(fold("title like '*'", ANON)).toBe("title like '*'");
    expect(fold('big in (9223372036854775807, null)', ANON)).toBe('big in (9223372036854775807, null)');
    expect(fold('published = null', MEMBER)).toBe(null);
  });

  it('folds an EXISTS whose condition cannot hold to false, and NOT EXISTS of it to true', () => {
    const user = 'project.memberships.user_id = @auth.id';
    expect(fold(user, ANON, 'tasks')).toBe(false);
    expect(fold(`${user} and project.memberships.role = 'admin'`, ANON, 'tasks')).toBe(false);
    expect(fold(`${user} or done = false`, ANON, 'tasks')).toBe('done = false');
    expect(fold(`not (${user})`, ANON, 'tasks')).toBe(true);
    expect(fold('project.memberships.user_id = null', MEMBER, 'tasks')).toBe(false);
    expect(fold(user, MEMBER, 'tasks')).toBe("exists project(exists memberships(project.memberships.user_id = 'u1'))");
    expect(fold(`${user} and project.memberships.role = 'admin'`, MEMBER, 'tasks')).toBe(
      "exists project(exists memberships(and(project.memberships.user_id = 'u1', project.memberships.role = 'admin')))",
    );
  });

  it('does not merge EXISTS that an or kept apart once the or folds away', () => {
    expect(fold(`project.memberships.role = 'admin' and (project.memberships.user_id = @auth.id or @auth.role = 'owner')`, MEMBER, 'tasks')).toBe(
      "and(exists project(exists memberships(project.memberships.role = 'admin')), exists project(exists memberships(project.memberships.user_id = 'u1')))",
    );
  });
});

describe('foldExpressionForDescription', () => {
  const SIGNED_IN: DescribedCaller = { anon: false, role: 'member', key: false };
  const WITH_KEY: DescribedCaller = { anon: false, role: 'member', key: true };
  const ANON_DESCRIBED: DescribedCaller = { anon: true };

  it("folds anon's values", () => {
    expect(refusesEveryRow(describeFor('author_id = @auth.id', ANON_DESCRIBED))).toBe(true);
    expect(refusesEveryRow(describeFor("@auth.role = 'owner'", ANON_DESCRIBED))).toBe(true);
    expect(describeFor('true', ANON_DESCRIBED)).toBe(true);
    expect(describeFor('@auth.key = false', ANON_DESCRIBED)).toBe(true);
    expect(describeFor('published = true', ANON_DESCRIBED)).toBe('published = true');
    expect(describeFor('author_id = @auth.id or published = true', ANON_DESCRIBED)).toBe('published = true');
  });

  it('leaves the clock unknown', () => {
    expect(describeFor('created_at < @now', ANON_DESCRIBED)).toBe('created_at < @now');
    expect(describeFor("@now > '2000-01-01'", SIGNED_IN)).not.toBe(false);
  });

  it('knows the role and the key kind of a signed-in caller', () => {
    expect(describeFor("@auth.role = 'owner'", SIGNED_IN)).toBe(false);
    expect(describeFor("@auth.role = 'member'", SIGNED_IN)).toBe(true);
    expect(describeFor('@auth.key = true', SIGNED_IN)).toBe(false);
    expect(describeFor('@auth.key = true', WITH_KEY)).toBe(true);
  });

  it('takes @auth.id and @auth.email as unknown but non-null', () => {
    expect(describeFor('@auth.id is not null', SIGNED_IN)).toBe(true);
    expect(describeFor('@auth.id is null', SIGNED_IN)).toBe(false);
    expect(describeFor('@auth.email is not null', SIGNED_IN)).toBe(true);
    expect(describeFor('author_id = @auth.id', SIGNED_IN)).toBe('author_id = @auth.id');
    expect(describeFor("@auth.role = 'owner' or author_id = @auth.id", SIGNED_IN)).toBe('author_id = @auth.id');
    expect(describeFor("@auth.email = 'a@example.com'", SIGNED_IN)).not.toBe(false);
    expect(describeFor("@auth.role = 'owner' and author_id = @auth.id", SIGNED_IN)).toBe(false);
  });
});

/** The template's variables replaced by the caller's values, as the server binds them when it compiles. */
function bind(node: ResolvedExpression, caller: ExpressionCaller): ResolvedExpression {
  const operand = <T extends { kind: string }>(value: T): T =>
    value.kind === 'variable'
      ? ({ ...value, kind: 'value', value: (value as unknown as { name: string }).name === '@now' ? NOW : caller.id } as unknown as T)
      : value;
  switch (node.kind) {
    case 'and':
    case 'or':
      return { ...node, operands: node.operands.map((child) => bind(child, caller)) };
    case 'not':
      return { ...node, operand: bind(node.operand, caller) };
    case 'exists':
      return { ...node, condition: bind(node.condition, caller) };
    case 'compare':
      return { ...node, left: operand(node.left), right: operand(node.right) };
    default:
      return node;
  }
}

describe('foldExpressionLeavingId with no clock: one fold per kind of caller', () => {
  const RULES: Array<[string, string]> = [
    ['author_id = @auth.id', 'posts'],
    ["author_id = @auth.id or published = true and @auth.role = 'member'", 'posts'],
    ['created_at <= @now and not (author_id = @auth.id)', 'posts'],
    ['project.memberships.user_id = @auth.id and done = false', 'tasks'],
    ["@auth.id = 'u1'", 'posts'],
    ["@now > '2000-01-01' and author_id = @auth.id", 'posts'],
    ["@auth.id in ('u1', 'u2') or published = true", 'posts'],
    ['@auth.id is not null and author_id != @auth.id', 'posts'],
    ["@auth.key = true or author_id like 'u%'", 'posts'],
  ];
  it.each(RULES)('%s: where every variable left is compared with a column, binding gives the full fold', (text, from) => {
    for (const caller of [MEMBER, OWNER, KEY, ANON]) {
      const template = foldExpressionLeavingId(resolved(text, from), caller, null);
      const full = outcome(foldExpression(resolved(text, from), caller, NOW));
      if (template.kind === 'constant') {
        // The same decision: 403 whatever the row (false and null alike), or every row.
        expect(refusesEveryRow(template.value) ? refusesEveryRow(full) : full === template.value).toBe(true);
        continue;
      }
      if (!boundOnlyToColumns(template.condition)) continue;
      expect(summary(bind(template.condition, caller))).toBe(full);
    }
  });

  it('says which templates a caller value would fold differently', () => {
    const template = (text: string) => foldExpressionLeavingId(resolved(text, 'posts'), MEMBER, null);
    const shared = (text: string) => {
      const folded = template(text);
      return folded.kind === 'constant' || boundOnlyToColumns(folded.condition);
    };
    expect(shared('author_id = @auth.id')).toBe(true);
    expect(shared('created_at <= @now')).toBe(true);
    expect(shared("@auth.id = 'u1'")).toBe(false);
    expect(shared("@now > '2000-01-01'")).toBe(false);
    expect(shared("@auth.id in ('u1', 'u2')")).toBe(false);
    expect(shared("@auth.id like 'u%'")).toBe(false);
    expect(shared('@auth.id is not null')).toBe(true);
  });
});
