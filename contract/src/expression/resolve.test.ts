import { describe, expect, it } from 'vitest';
import type { ColumnType } from '../schema.js';
import type { ExpressionColumn, ExpressionRelation, ExpressionSchema, ExpressionTable, ResolvedExpression } from './resolved.js';
import { checkExpression, resolveExpression } from './resolve.js';
import { parseExpression } from './parser.js';
import { ExpressionError } from './syntax.js';

/**
 * Names and types against a schema (API.md, "Access rules": an unknown name or path, a comparison of mismatched types
 * is 400 with the position; "Part 2 in detail", Grammar: quoted literals coerce, unquoted numbers and booleans are
 * typed). Paths are grouped into EXISTS in group.test.ts.
 */

const column = (name: string, type: ColumnType, extra: Partial<ExpressionColumn> = {}): ExpressionColumn => ({ name, type, ...extra });
const one = (name: string, table: string, via: string): ExpressionRelation => ({ name, kind: 'one', table, column: via });
const many = (table: string, via: string): ExpressionRelation => ({ name: table, kind: 'many', table, column: via });

const TABLES: Record<string, ExpressionTable> = {
  authors: {
    columns: [column('id', 'text'), column('name', 'text'), column('user_id', 'text')],
    // Two references from posts: two to-many relations named `posts`.
    relations: [many('posts', 'author_id'), many('posts', 'editor_id'), one('user', 'users', 'user_id')],
  },
  posts: {
    columns: [
      column('id', 'text'),
      column('title', 'text'),
      column('Slug', 'text'),
      column('body', 'text'),
      column('author_id', 'text'),
      column('editor_id', 'text'),
      column('published', 'boolean'),
      column('views', 'integer', { pgType: 'int4' }),
      column('small', 'integer', { pgType: 'int2' }),
      column('big', 'integer', { pgType: 'int8' }),
      column('score', 'real'),
      column('created_at', 'timestamp'),
      column('meta', 'json'),
      column('code', 'text', { pgType: 'varchar', maxLength: 3 }),
    ],
    relations: [
      one('author', 'authors', 'author_id'),
      one('editor', 'authors', 'editor_id'),
      many('comments', 'post_id'),
      one('audit', '_basalt_audit', 'audit_id'),
      one('draft', 'drafts', 'draft_id'),
    ],
  },
  comments: { columns: [column('id', 'text'), column('post_id', 'text'), column('body', 'text'), column('user_id', 'text')], relations: [one('post', 'posts', 'post_id')] },
  projects: { columns: [column('id', 'text'), column('name', 'text'), column('owner_id', 'text')], relations: [many('memberships', 'project_id'), many('tasks', 'project_id')] },
  memberships: {
    columns: [column('id', 'text'), column('project_id', 'text'), column('user_id', 'text'), column('role', 'text')],
    relations: [one('project', 'projects', 'project_id'), one('user', 'users', 'user_id')],
  },
  tasks: {
    columns: [column('id', 'text'), column('project_id', 'text'), column('title', 'text'), column('assignee_id', 'text'), column('priority', 'integer'), column('done', 'boolean')],
    relations: [one('project', 'projects', 'project_id')],
  },
};

const SCHEMA: ExpressionSchema = { table: (name) => TABLES[name] };

function resolved(text: string, table = 'posts'): ResolvedExpression {
  const result = checkExpression(text, SCHEMA, table);
  if (!result.ok) throw new Error(`${JSON.stringify(text)} did not resolve: ${result.error.message}`);
  return result.value.resolved;
}

function refused(text: string, table = 'posts'): ExpressionError {
  const result = checkExpression(text, SCHEMA, table);
  if (result.ok) throw new Error(`${JSON.stringify(text)} resolved`);
  expect(result.error).toBeInstanceOf(ExpressionError);
  return result.error;
}

/** The right-hand side of a resolved comparison, with its coerced value. */
function rightValue(text: string, table = 'posts'): unknown {
  const tree = resolved(text, table);
  if (tree.kind !== 'compare') throw new Error(`not a comparison: ${text}`);
  return tree.right.kind === 'value' ? tree.right.value : tree.right;
}

describe('names', () => {
  it("binds a column of the expression's table", () => {
    expect(resolved("title = 'x'")).toMatchObject({
      kind: 'compare',
      type: 'text',
      left: { kind: 'column', path: [], table: 'posts', column: { name: 'title', type: 'text' }, written: 'title' },
      right: { kind: 'value', value: 'x', type: 'text', position: 8, end: 11 },
    });
  });

  it('refuses an unknown column at its position', () => {
    expect(refused('nope = 1')).toMatchObject({ position: 0, problem: expect.stringMatching(/posts has no column nope/) });
    expect(refused("title = 'a' and nope = 1").position).toBe(16);
    expect(refused('"first name" = 1').problem).toMatch(/no column "first name"/);
  });

  it('keeps names case-sensitive', () => {
    expect(resolved("Slug = 'a'")).toMatchObject({ left: { column: { name: 'Slug' } } });
    expect(refused("slug = 'a'").position).toBe(0);
    expect(refused("TITLE = 'a'").position).toBe(0);
    expect(resolved('"title" = \'a\' OR title = \'b\'')).toMatchObject({ kind: 'or', operands: [{ left: { column: { name: 'title' } } }, {}] });
  });

  it("refuses an unknown column through a path at the column's segment, naming the table reached", () => {
    const error = refused("author.nope = 'x'");
    expect(error.position).toBe(7);
    expect(error.problem).toMatch(/authors \(reached by author\) has no column nope/);
    expect(refused("project.memberships.nope = 'x'", 'tasks').position).toBe(20);
  });

  it('refuses an unknown relation at its step, listing the relations there', () => {
    const error = refused("auther.name = 'x'");
    expect(error.position).toBe(0);
    expect(error.problem).toMatch(/posts has no relation auther \(its relations: author, editor, "comments"\."post_id"/);
    expect(refused("project.memberz.user_id = 'x'", 'tasks').position).toBe(8);
    expect(refused('done = true and project.tasks.project.nope = 1', 'tasks').position).toBe(38);
    expect(refused("\"comments\".\"author_id\".body = 'x'")).toMatchObject({ position: 0, problem: expect.stringMatching(/no to-many relation/) });
    // A to-one relation is no reference step: `"authors"."author_id"` names rows of authors referencing this row.
    expect(refused("\"authors\".\"author_id\".name = 'x'").position).toBe(0);
  });

  it('resolves paths, to-one and to-many, as steps from table to table', () => {
    const tree = resolved('project.memberships.user_id = @auth.id', 'tasks');
    expect(tree).toMatchObject({ kind: 'exists', step: { kind: 'one', from: 'tasks', table: 'projects', column: 'project_id' } });
    const comment = resolved("\"comments\".\"post_id\".body = 'x'");
    expect(comment).toMatchObject({ kind: 'exists', step: { kind: 'many', from: 'posts', table: 'comments', column: 'post_id', written: '"comments"."post_id"' } });
  });

  it('refuses a relation name shared by two relations, and takes the explicit step', () => {
    const error = refused("posts.title = 'x'", 'authors');
    expect(error.position).toBe(0);
    expect(error.problem).toMatch(/posts is ambiguous from authors: write "posts"\."author_id", "posts"\."editor_id"/);
    expect(resolved("\"posts\".\"editor_id\".title = 'x'", 'authors')).toMatchObject({ kind: 'exists', step: { kind: 'many', table: 'posts', column: 'editor_id' } });
  });

  it.each([
    ["user.name = 'x'", 'authors', 0],
    ["user.email = 'x'", 'memberships', 0],
    ["project.memberships.user.email = 'x'", 'tasks', 20],
    ["users.email = 'x'", 'posts', 0],
    ["sessions.id = 'x'", 'posts', 0],
    ["audit.id = 'x'", 'posts', 0],
    ["_basalt_jobs.id = 'x'", 'posts', 0],
    ["\"_basalt_audit\".\"post_id\".id = 'x'", 'posts', 0],
    ["title = 'a' and pg_class.oid = 1", 'posts', 16],
  ])('refuses %s (users, sessions and system tables are never read)', (text, table, position) => {
    const error = refused(text, table);
    expect(error.position).toBe(position);
    expect(error.problem).toMatch(/expressions cannot read users, sessions or system tables/);
  });

  it('refuses a path to a table that is not served', () => {
    expect(refused("draft.id = 'x'").problem).toMatch(/reaches drafts, which is not served/);
  });

  it('refuses an unknown table at 0', () => {
    const parsed = parseExpression('true');
    if (!parsed.ok) throw parsed.error;
    expect(resolveExpression(parsed.value, SCHEMA, 'nope')).toMatchObject({ ok: false, error: { position: 0 } });
  });

  it('keeps constants as they are', () => {
    expect(resolved('true')).toMatchObject({ kind: 'constant', value: true });
  });
});

describe('types', () => {
  it('refuses an unquoted number against a text column, suggesting quotes', () => {
    const error = refused('title = 5');
    expect(error.position).toBe(8);
    expect(error.problem).toMatch(/5 is a number, title \(text\) is not \(quote it for text: '5'\)/);
    expect(refused("title in ('a', 5)").position).toBe(15);
    expect(refused('@auth.id = 5').problem).toMatch(/quote it/);
    expect(refused('5 = title').position).toBe(0);
  });

  it('coerces a quoted literal to the column type, as filter values are', () => {
    expect(rightValue("views = '5'")).toBe(5);
    expect(rightValue("score = '2.5'")).toBe(2.5);
    expect(rightValue("published = 'true'")).toBe(true);
    expect(rightValue("created_at > '2030-01-02'")).toEqual(new Date('2030-01-02T00:00:00Z'));
    expect(rightValue("created_at > '1700000000000'")).toEqual(new Date(1_700_000_000_000));
    expect(rightValue('score = 1')).toBe(1);
    expect(resolved("views in ('1', 2, null)")).toMatchObject({ kind: 'in', type: 'integer', values: [{ value: 1 }, { value: 2 }, { value: null, type: 'integer' }] });
  });

  it('keeps an int8 beyond 2^53 as its digits, and holds each integer type to its range', () => {
    expect(rightValue('big = 9223372036854775807')).toBe('9223372036854775807');
    expect(refused('big = 9223372036854775808').position).toBe(6);
    expect(refused('small = 40000').problem).toMatch(/does not fit small \(integer\)/);
    expect(refused("views = '2147483648'").position).toBe(8);
    expect(refused('views = 1.5').problem).toMatch(/must be a whole number/);
    expect(refused("code = 'abcd'").problem).toMatch(/at most 3 characters/);
  });

  it('refuses a boolean against another type and a number against a boolean', () => {
    expect(refused('views = true')).toMatchObject({ position: 8, problem: expect.stringMatching(/true is a boolean, views \(integer\) is not/) });
    expect(refused('published = 1')).toMatchObject({ position: 12, problem: expect.stringMatching(/1 is a number, published \(boolean\) is not/) });
    expect(refused("published = 'yes'").position).toBe(12);
    expect(refused("created_at > 'soon'").position).toBe(13);
    expect(refused('created_at > 1700000000000').position).toBe(13);
  });

  it('compares columns of one type, and refuses two types', () => {
    expect(resolved('title = body')).toMatchObject({ type: 'text', right: { kind: 'column', column: { name: 'body' } } });
    expect(resolved('author.name = title')).toMatchObject({ kind: 'exists' });
    expect(refused('title = views')).toMatchObject({ position: 8, problem: expect.stringMatching(/cannot compare title \(text\) with views \(integer\)/) });
    expect(refused('views < score').position).toBe(8);
    expect(refused('@auth.role = @auth.aal').position).toBe(13);
    expect(refused("author.name = comments.body").problem).toMatch(/only one side of a comparison may go through a relation/);
  });

  it('types the caller and the clock', () => {
    expect(resolved('author_id = @auth.id')).toMatchObject({ type: 'text', right: { kind: 'variable', name: '@auth.id', type: 'text' } });
    expect(resolved('@auth.aal >= 2')).toMatchObject({ type: 'integer', right: { value: 2 } });
    expect(rightValue("@auth.key = 'true'")).toBe(true);
    expect(resolved('@now > created_at')).toMatchObject({ type: 'timestamp' });
    expect(refused('@auth.verified = 1').position).toBe(17);
    expect(refused('@now > 5').position).toBe(7);
  });

  it('types literals compared with literals', () => {
    expect(resolved('null = null')).toMatchObject({ type: null, left: { value: null, type: null } });
    expect(resolved('views = null')).toMatchObject({ type: 'integer', right: { value: null, type: 'integer' } });
    expect(resolved("'a' = 'b'")).toMatchObject({ type: 'text' });
    expect(resolved('1 = 1.5')).toMatchObject({ type: 'real', left: { value: 1 }, right: { value: 1.5 } });
    expect(resolved("1 = '1'")).toMatchObject({ type: 'integer', right: { value: 1 } });
    expect(refused("true = 'x'").position).toBe(7);
  });

  it('applies each operator only to the types the query language allows it on', () => {
    expect(refused('published < true')).toMatchObject({ position: 10, problem: "'<' does not apply to published (boolean)" });
    expect(refused('@auth.key >= false').position).toBe(10);
    expect(refused('published in (true)').position).toBe(10);
    expect(refused("views like '1*'")).toMatchObject({ position: 6, problem: "'like' does not apply to views (integer)" });
    expect(refused("created_at ilike '2030*'").position).toBe(11);
    expect(refused("views search 'x'").position).toBe(6);
    expect(refused("meta < '1'").position).toBe(5);
    expect(refused("meta != '1'").position).toBe(5);
    expect(resolved("meta = '{\"a\":1}'")).toMatchObject({ type: 'json', right: { value: '{"a":1}' } });
    expect(resolved("title like 'a*'")).toMatchObject({ kind: 'like', operand: { kind: 'column' } });
    expect(resolved("@auth.email ilike '*@example.com'")).toMatchObject({ kind: 'like', operand: { kind: 'variable' } });
    expect(resolved("body search 'hello'")).toMatchObject({ kind: 'search', column: { kind: 'column', column: { name: 'body' } } });
    expect(resolved('published != false and views <= 3 and created_at >= @now')).toMatchObject({ kind: 'and' });
  });

  it('takes is null and is not null on any operand', () => {
    expect(resolved('meta is null and published is not null and @auth.id is null and null is null')).toMatchObject({ kind: 'and' });
    expect(resolved('views is not null')).toMatchObject({ kind: 'null-test', negated: true, operand: { kind: 'column' } });
  });
});
