import { describe, expect, it } from 'vitest';
import type { ColumnType } from '../schema.js';
import { dependenciesOf } from './dependencies.js';
import { printExpression } from './print.js';
import type { ExpressionRelation, ExpressionSchema, ExpressionTable, ResolvedExpression } from './resolved.js';
import { checkExpression } from './resolve.js';

/**
 * Paths as EXISTS (API.md, "Part 2 in detail", Access rules): a condition through a to-many step is EXISTS (a related
 * row where ...); conditions joined by `and` (at any depth of `and`) through the same to-many path prefix hold for one
 * and the same related row; `or` and `not` never merge; `not (p.c = x)` is NOT EXISTS; `p.c != x` and `p.c is null`
 * mean "some related row where ...".
 */

const table = (columns: Record<string, ColumnType>, relations: ExpressionRelation[] = []): ExpressionTable => ({
  columns: Object.entries(columns).map(([name, type]) => ({ name, type })),
  relations,
});

const TABLES: Record<string, ExpressionTable> = {
  projects: table({ id: 'text', name: 'text', owner_id: 'text' }, [
    { name: 'memberships', kind: 'many', table: 'memberships', column: 'project_id' },
    { name: 'tasks', kind: 'many', table: 'tasks', column: 'project_id' },
  ]),
  memberships: table({ id: 'text', project_id: 'text', user_id: 'text', role: 'text' }, [{ name: 'project', kind: 'one', table: 'projects', column: 'project_id' }]),
  tasks: table({ id: 'text', project_id: 'text', title: 'text', assignee_id: 'text', priority: 'integer', done: 'boolean' }, [
    { name: 'project', kind: 'one', table: 'projects', column: 'project_id' },
  ]),
};
const SCHEMA: ExpressionSchema = { table: (name) => TABLES[name] };

function resolved(text: string, from = 'tasks'): ResolvedExpression {
  const result = checkExpression(text, SCHEMA, from);
  if (!result.ok) throw new Error(`${JSON.stringify(text)} did not resolve: ${result.error.message}`);
  return result.value.resolved;
}

/** The tree's structure in one line: each EXISTS with its step and level, comparisons as printed. */
function summary(node: ResolvedExpression): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `${node.kind}(${node.operands.map(summary).join(', ')})`;
    case 'not':
      return `not(${summary(node.operand)})`;
    case 'exists':
      return `exists ${node.step.written}@${node.level}(${summary(node.condition)})`;
    default:
      return printExpression(node);
  }
}

const grouped = (text: string, from = 'tasks') => summary(resolved(text, from));

const USER = 'project.memberships.user_id = @auth.id';
const ADMIN = "project.memberships.role = 'admin'";

describe('grouping paths into EXISTS', () => {
  it('leaves conditions on the row itself alone', () => {
    expect(grouped("done = false and title = 'x' or priority > 3")).toBe("or(and(done = false, title = 'x'), priority > 3)");
  });

  it('makes every step of a path an EXISTS, one level deeper each', () => {
    expect(grouped(USER)).toBe(`exists project@1(exists memberships@2(${USER}))`);
    expect(resolved(USER)).toMatchObject({
      kind: 'exists',
      level: 1,
      step: { kind: 'one', from: 'tasks', table: 'projects', column: 'project_id' },
      condition: { kind: 'exists', level: 2, step: { kind: 'many', from: 'projects', table: 'memberships', column: 'project_id' } },
    });
  });

  it('puts comparisons joined by and through the same to-many prefix in ONE exists: one membership row with both', () => {
    expect(grouped(`${USER} and ${ADMIN}`)).toBe(`exists project@1(exists memberships@2(and(${USER}, ${ADMIN})))`);
  });

  it('merges through and at any depth of and', () => {
    expect(grouped(`${USER} and (done = false and ${ADMIN})`)).toBe(`and(exists project@1(exists memberships@2(and(${USER}, ${ADMIN}))), done = false)`);
    expect(grouped(`(${USER} and ((${ADMIN})))`)).toBe(`exists project@1(exists memberships@2(and(${USER}, ${ADMIN})))`);
  });

  it('never merges across or', () => {
    expect(grouped(`${USER} or ${ADMIN}`)).toBe(`or(exists project@1(exists memberships@2(${USER})), exists project@1(exists memberships@2(${ADMIN})))`);
    // An or inside an and is its own group, even beside a comparison of the same path.
    expect(grouped(`${ADMIN} and (${USER} or done = true)`)).toBe(
      `and(exists project@1(exists memberships@2(${ADMIN})), or(exists project@1(exists memberships@2(${USER})), done = true))`,
    );
  });

  it('never merges across not, and not (p.c = x) is NOT EXISTS', () => {
    expect(grouped(`not (${ADMIN})`)).toBe(`not(exists project@1(exists memberships@2(${ADMIN})))`);
    expect(grouped(`${ADMIN} and not ${USER}`)).toBe(`and(exists project@1(exists memberships@2(${ADMIN})), not(exists project@1(exists memberships@2(${USER}))))`);
    expect(grouped(`not (${USER} and ${ADMIN})`)).toBe(`not(exists project@1(exists memberships@2(and(${USER}, ${ADMIN}))))`);
  });

  it('reads p.c != x and p.c is null as "some related row where ..."', () => {
    expect(grouped('project.memberships.user_id != @auth.id')).toBe('exists project@1(exists memberships@2(project.memberships.user_id != @auth.id))');
    expect(grouped('project.memberships.role is null')).toBe('exists project@1(exists memberships@2(project.memberships.role is null))');
  });

  it('shares a common prefix and splits where the paths part', () => {
    expect(grouped(`project.owner_id = @auth.id and ${USER}`)).toBe(`exists project@1(and(project.owner_id = @auth.id, exists memberships@2(${USER})))`);
    expect(grouped(`project.tasks.done = false and ${USER}`)).toBe(
      `exists project@1(and(exists tasks@2(project.tasks.done = false), exists memberships@2(${USER})))`,
    );
  });

  it('groups every kind of comparison by the path of its column', () => {
    expect(grouped("project.memberships.role in ('admin', 'owner') and project.memberships.role like 'a*' and project.name search 'x'")).toBe(
      "exists project@1(and(exists memberships@2(and(project.memberships.role in ('admin', 'owner'), project.memberships.role like 'a*')), project.name search 'x'))",
    );
    // A comparison with the row's own column beside the path's stays inside the EXISTS, reading the outer row.
    expect(grouped('project.owner_id = assignee_id')).toBe('exists project@1(project.owner_id = assignee_id)');
  });

  it('keeps the first appearance order of groups and conditions', () => {
    expect(grouped(`done = false and ${USER} and priority > 1 and ${ADMIN}`)).toBe(
      `and(done = false, exists project@1(exists memberships@2(and(${USER}, ${ADMIN}))), priority > 1)`,
    );
  });

  it('groups inside each or branch on its own', () => {
    expect(grouped(`(${USER} and ${ADMIN}) or project.owner_id = @auth.id`)).toBe(
      `or(exists project@1(exists memberships@2(and(${USER}, ${ADMIN}))), exists project@1(project.owner_id = @auth.id))`,
    );
  });

  it('groups a to-many first step from the other side', () => {
    expect(grouped("memberships.user_id = @auth.id and memberships.role = 'admin'", 'projects')).toBe(
      "exists memberships@1(and(memberships.user_id = @auth.id, memberships.role = 'admin'))",
    );
  });
});

describe('dependenciesOf', () => {
  it('lists every table and column a rule reads, the referencing columns of its paths included', () => {
    const dependencies = dependenciesOf(resolved(`${USER} and title = 'x'`), 'tasks');
    expect([...dependencies.tables].sort()).toEqual(['memberships', 'projects', 'tasks']);
    expect([...dependencies.columns].sort()).toEqual(['memberships.project_id', 'memberships.user_id', 'tasks.project_id', 'tasks.title']);
  });

  it('lists the table alone for a constant', () => {
    expect(dependenciesOf(resolved('true'), 'tasks')).toEqual({ tables: ['tasks'], columns: [] });
  });
});
