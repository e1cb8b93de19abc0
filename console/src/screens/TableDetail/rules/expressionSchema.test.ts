import { describe, expect, it } from 'vitest';
import { checkExpression, presetRules, type ColumnInfo, type TableInfo } from '@basalt/contract';
import { expressionSchemaOf, sourceOf, withTable } from './expressionSchema';

/**
 * The schema the rule editor checks names against, from the console's table list: relations as the server's
 * expressionSchema (server/src/policies/rules.ts) builds them, so a rule the editor accepts is one the server accepts.
 */

const column = (name: string, type: ColumnInfo['type'] = 'text', references?: string): ColumnInfo => ({
  name,
  type,
  nullable: true,
  unique: false,
  primaryKey: name === 'id',
  default: null,
  readOnly: false,
  ...(references ? { references: { table: references, onDelete: 'cascade' as const } } : {}),
});

const table = (name: string, columns: ColumnInfo[]): TableInfo => ({
  name,
  policy: 'private',
  rules: presetRules('private', null),
  ownerColumn: null,
  effectivePolicy: 'private',
  rowCount: { value: 0, exact: true },
  columns: [column('id', 'integer'), ...columns],
  indexes: [],
  realtime: { captured: true, streamed: false },
  kind: 'records',
});

// The tasks app of docs/api.md: tasks -> projects <- memberships, and a post with an author and an editor.
const projects = table('projects', [column('name')]);
const memberships = table('memberships', [column('user_id'), column('role'), column('project_id', 'integer', 'projects')]);
const tasks = table('tasks', [column('title'), column('done', 'boolean'), column('project_id', 'integer', 'projects'), column('parentId', 'integer', 'tasks')]);
const people = table('people', [column('name')]);
const posts = table('posts', [column('title'), column('author_id', 'integer', 'people'), column('editor_id', 'integer', 'people')]);
const TABLES = [projects, memberships, tasks, people, posts];
const schema = expressionSchemaOf(TABLES);

describe('the expression schema of the table list', () => {
  it('has every listed table with its columns, and no other', () => {
    expect(schema.table('tasks')?.columns.map((c) => c.name)).toEqual(['id', 'title', 'done', 'project_id', 'parentId']);
    expect(schema.table('users')).toBeUndefined();
    expect(schema.table('nope')).toBeUndefined();
  });

  it('relates to-one by the reference column’s embed name and to-many by the referencing table’s name', () => {
    expect(schema.table('tasks')?.relations).toEqual([
      { name: 'project', kind: 'one', table: 'projects', column: 'project_id' },
      { name: 'parent', kind: 'one', table: 'tasks', column: 'parentId' },
      // A self reference is both ways.
      { name: 'tasks', kind: 'many', table: 'tasks', column: 'parentId' },
    ]);
    expect(schema.table('projects')?.relations).toEqual([
      { name: 'memberships', kind: 'many', table: 'memberships', column: 'project_id' },
      { name: 'tasks', kind: 'many', table: 'tasks', column: 'project_id' },
    ]);
    // Two references from one table: two to-many relations of one name, told apart by "table"."column".
    expect(schema.table('people')?.relations).toEqual([
      { name: 'posts', kind: 'many', table: 'posts', column: 'author_id' },
      { name: 'posts', kind: 'many', table: 'posts', column: 'editor_id' },
    ]);
  });

  it('leaves out a reference to a table the list does not have', () => {
    const orphan = table('orphans', [column('gone_id', 'integer', 'gone')]);
    expect(expressionSchemaOf([orphan]).table('orphans')?.relations).toEqual([]);
  });

  it('resolves the rules of the worked examples, and refuses what the server refuses, at the same position', () => {
    const ok = (text: string, on: string) => expect(checkExpression(text, schema, on).ok, text).toBe(true);
    ok('project.memberships.user_id = @auth.id', 'tasks');
    ok("project.memberships.user_id = @auth.id and project.memberships.role = 'admin'", 'tasks');
    ok('memberships.user_id = @auth.id', 'projects');
    ok('parent.done = false', 'tasks');
    ok('"posts"."author_id".title = \'x\'', 'people');

    const refused = (text: string, on: string) => {
      const checked = checkExpression(text, schema, on);
      return checked.ok ? undefined : { problem: checked.error.problem, position: checked.error.position };
    };
    expect(refused('project.owner = @auth.id', 'tasks')).toEqual({ problem: expect.stringContaining('no column owner'), position: 8 });
    expect(refused('done = 1', 'tasks')?.position).toBe(7);
    expect(refused('posts.title = 1', 'people')).toEqual({ problem: expect.stringContaining('ambiguous'), position: 0 });
    expect(refused('author.name = @auth.id', 'tasks')).toEqual({ problem: expect.stringContaining('tasks has no relation author'), position: 0 });
  });
});

describe('integer columns of unknown size', () => {
  it('take any 64-bit number in the browser: the server, which knows the size, refuses one out of range on save', () => {
    const scored = table('scores', [column('points', 'integer')]);
    expect(checkExpression('points > 3000000000', expressionSchemaOf([scored]), 'scores').ok).toBe(false);
    expect(checkExpression('points > 3000000000', expressionSchemaOf([sourceOf(scored)]), 'scores').ok).toBe(true);
    expect(checkExpression('points > 99999999999999999999', expressionSchemaOf([sourceOf(scored)]), 'scores').ok).toBe(false);
  });
});

describe('the table list with the table being edited', () => {
  it('takes the table’s own, fresher description in place of the listed one', () => {
    const fresher = table('tasks', [column('title'), column('priority', 'integer')]);
    const merged = withTable(TABLES, fresher);
    expect(merged).toHaveLength(TABLES.length);
    expect(expressionSchemaOf(merged).table('tasks')?.columns.map((c) => c.name)).toEqual(['id', 'title', 'priority']);
  });

  it('adds a table the list does not know yet', () => {
    const fresh = table('notes', [column('body')]);
    expect(withTable(TABLES, fresh).map((t) => t.name)).toEqual([...TABLES.map((t) => t.name), 'notes']);
  });
});
