import { describe, expect, it } from 'vitest';
import { refusal } from '../../../test/fixtures/refusal.js';
import { column, counters, table, todos } from '../../../test/fixtures/tables.js';
import type { Access, Authorized } from '../authorize.js';
import { planRequest, type Plan } from './index.js';
import type { RecordRequest } from '../parse.js';
import { cursorKeyFrom } from '../query/cursor.js';
import type { ListParams } from '../query/parse.js';

const memberAccess: Access = { scope: { kind: 'owner', ownerColumn: 'user_id', userId: 'member-1' }, surface: 'api', writer: 'member-1' };
const ownerTools: Access = { scope: null, surface: 'admin', writer: null };
const asMember = (): Authorized => ({ table: todos(), access: memberAccess });


const list = (params: Partial<ListParams>): RecordRequest => ({ action: 'list', table: 'todos', params: { limit: 20, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null, ...params } });
const KEY = cursorKeyFrom('plan-test-secret');
const planOf = <K extends Plan['kind']>(plan: Plan, kind: K) => {
  expect(plan.kind).toBe(kind);
  return plan as Extract<Plan, { kind: K }>;
};

describe('plan: lists', () => {
  it('binds the list query to the table (the query language has its own tests in query/)', () => {
    const plan = planOf(planRequest(list({ filters: [{ key: 'score', column: 'score', op: 'eq', value: '3' }] }), asMember(), KEY), 'list');
    expect(plan.query.conditions).toEqual([{ kind: 'compare', column: expect.objectContaining({ name: 'score' }), op: 'eq', value: 3 }]);
    expect(plan.scope).toEqual(memberAccess.scope);
  });
});

describe('plan: single records', () => {
  it('coerces the path id, and an id that cannot be one is 404', () => {
    const authorized = { table: counters(), access: ownerTools };
    expect(planOf(planRequest({ action: 'get', table: 'counters', id: '42' }, authorized, KEY), 'get').id).toBe(42);
    expect(refusal(() => planRequest({ action: 'delete', table: 'counters', id: 'abc' }, authorized, KEY)).status).toBe(404);
  });

  it('carries the scope and the writer of a delete', () => {
    const plan = planOf(planRequest({ action: 'delete', table: 'todos', id: 'a' }, asMember(), KEY), 'delete');
    expect([plan.scope, plan.writer]).toEqual([memberAccess.scope, 'member-1']);
  });
});

describe('plan: create', () => {
  it('generates a text id, forces the owner column to the caller and ignores what the body said', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'todos', body: { title: 'x', user_id: 'someone-else' } }, asMember(), KEY), 'create');
    expect(plan.values).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), title: 'x', user_id: 'member-1' });
    expect(plan.writer).toBe('member-1');
  });

  it('leaves the owner column to the owner tools', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'todos', body: { id: 'k', title: 'x', user_id: 'u-2' } }, { table: todos(), access: ownerTools }, KEY), 'create');
    expect(plan.values).toEqual({ id: 'k', title: 'x', user_id: 'u-2' });
  });

  it('lets the database fill an id that has a default', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'counters', body: { n: 1 } }, { table: counters(), access: ownerTools }, KEY), 'create');
    expect(plan.values).toEqual({ n: 1 });
  });

  it('asks for an id the table cannot fill', () => {
    const keyed = table('keyed', [], 'private');
    const integerId = { ...keyed, columns: new Map([...keyed.columns, ['id', column('id', 'integer', { nullable: false, unique: true })]]) };
    expect(refusal(() => planRequest({ action: 'create', table: 'keyed', body: {} }, { table: integerId, access: ownerTools }, KEY))).toEqual({ status: 400, details: { field: 'id' } });
  });

  it.each([
    [{}, 'title'],
    [{ title: 'x', nope: 1 }, 'nope'],
    [{ title: 'x', createdAt: '2026-01-01' }, 'createdAt'],
    [{ title: 'x', score: 'many' }, 'score'],
    [{ title: null }, 'title'],
    [{ title: 'x', ['__proto__']: 1 }, '__proto__'],
  ])('%o is 400 naming %s', (body, field) => {
    expect(refusal(() => planRequest({ action: 'create', table: 'todos', body: JSON.parse(JSON.stringify(body)) as Record<string, unknown> }, asMember(), KEY))).toEqual({
      status: 400,
      details: { field },
    });
  });
});

describe('plan: upsert', () => {
  it('is one statement when the body can create the record', () => {
    const plan = planOf(planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { title: 'x', user_id: 'other' } }, asMember(), KEY), 'upsert');
    expect(plan.insertValues).toEqual({ id: 'a', title: 'x', user_id: 'member-1' });
    // The owner column never changes on update under a scope.
    expect(plan.changes).toEqual({ title: 'x' });
  });

  it('updates first when the body could not create the record, keeping what it lacks', () => {
    const plan = planOf(planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { score: 2 } }, asMember(), KEY), 'update-or-create');
    expect([plan.id, plan.changes, plan.missing]).toEqual(['a', { score: 2 }, ['title']]);
  });

  it('refuses a body id other than the path id', () => {
    expect(refusal(() => planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { id: 'b', title: 'x' } }, asMember(), KEY))).toEqual({
      status: 400,
      details: { field: 'id' },
    });
  });
});
