import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { column, counters, table, todos } from '../../test/fixtures/tables.js';
import type { Access, Authorized } from './authorize.js';
import { planRequest, type Plan } from './plan.js';
import type { ListParams, RecordRequest } from './parse.js';

const memberAccess: Access = { scope: { ownerColumn: 'user_id', userId: 'member-1' }, surface: 'api', writer: 'member-1' };
const ownerTools: Access = { scope: null, surface: 'admin', writer: null };
const asMember = (): Authorized => ({ table: todos(), access: memberAccess });

function refusal(run: () => unknown): { status: number; details: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

const list = (params: Partial<ListParams>): RecordRequest => ({ action: 'list', table: 'todos', params: { limit: 20, offset: 0, order: [], filters: [], ...params } });
const planOf = <K extends Plan['kind']>(plan: Plan, kind: K) => {
  expect(plan.kind).toBe(kind);
  return plan as Extract<Plan, { kind: K }>;
};

describe('plan: lists', () => {
  it('binds order and filters to columns, coerces values, and ends the order with the id', () => {
    const plan = planOf(planRequest(list({ order: [{ column: 'score', direction: 'desc' }], filters: [{ column: 'score', value: '3' }, { column: 'done', value: 'true' }] }), asMember()), 'list');
    expect(plan.query.order.map((term) => [term.column.name, term.direction])).toEqual([
      ['score', 'desc'],
      ['id', 'asc'],
    ]);
    expect(plan.query.filters.map((filter) => [filter.column.name, filter.value])).toEqual([
      ['score', 3],
      ['done', true],
    ]);
    expect(plan.scope).toEqual(memberAccess.scope);
  });

  it('does not add the id twice', () => {
    const plan = planOf(planRequest(list({ order: [{ column: 'id', direction: 'desc' }] }), asMember()), 'list');
    expect(plan.query.order.map((term) => term.column.name)).toEqual(['id']);
  });

  it.each([
    [{ order: [{ column: 'nope', direction: 'asc' as const }] }, 'order'],
    [{ filters: [{ column: 'nope', value: '1' }] }, 'nope'],
    [{ filters: [{ column: 'score', value: '1.5' }] }, 'score'],
    [{ filters: [{ column: 'score', value: '0x10' }] }, 'score'],
    [{ filters: [{ column: 'done', value: 'yes' }] }, 'done'],
    [{ filters: [{ column: 'createdAt', value: 'infinity' }] }, 'createdAt'],
  ])('%o is 400 naming %s', (params, parameter) => {
    expect(refusal(() => planRequest(list(params), asMember()))).toEqual({ status: 400, details: { parameter } });
  });
});

describe('plan: single records', () => {
  it('coerces the path id, and an id that cannot be one is 404', () => {
    const authorized = { table: counters(), access: ownerTools };
    expect(planOf(planRequest({ action: 'get', table: 'counters', id: '42' }, authorized), 'get').id).toBe(42);
    expect(refusal(() => planRequest({ action: 'delete', table: 'counters', id: 'abc' }, authorized)).status).toBe(404);
  });

  it('carries the scope and the writer of a delete', () => {
    const plan = planOf(planRequest({ action: 'delete', table: 'todos', id: 'a' }, asMember()), 'delete');
    expect([plan.scope, plan.writer]).toEqual([memberAccess.scope, 'member-1']);
  });
});

describe('plan: create', () => {
  it('generates a text id, forces the owner column to the caller and ignores what the body said', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'todos', body: { title: 'x', user_id: 'someone-else' } }, asMember()), 'create');
    expect(plan.values).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), title: 'x', user_id: 'member-1' });
    expect(plan.writer).toBe('member-1');
  });

  it('leaves the owner column to the owner tools', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'todos', body: { id: 'k', title: 'x', user_id: 'u-2' } }, { table: todos(), access: ownerTools }), 'create');
    expect(plan.values).toEqual({ id: 'k', title: 'x', user_id: 'u-2' });
  });

  it('lets the database fill an id that has a default', () => {
    const plan = planOf(planRequest({ action: 'create', table: 'counters', body: { n: 1 } }, { table: counters(), access: ownerTools }), 'create');
    expect(plan.values).toEqual({ n: 1 });
  });

  it('asks for an id the table cannot fill', () => {
    const keyed = table('keyed', [], 'private');
    const integerId = { ...keyed, columns: new Map([...keyed.columns, ['id', column('id', 'integer', { nullable: false, unique: true })]]) };
    expect(refusal(() => planRequest({ action: 'create', table: 'keyed', body: {} }, { table: integerId, access: ownerTools }))).toEqual({ status: 400, details: { field: 'id' } });
  });

  it.each([
    [{}, 'title'],
    [{ title: 'x', nope: 1 }, 'nope'],
    [{ title: 'x', createdAt: '2026-01-01' }, 'createdAt'],
    [{ title: 'x', score: 'many' }, 'score'],
    [{ title: null }, 'title'],
    [{ title: 'x', ['__proto__']: 1 }, '__proto__'],
  ])('%o is 400 naming %s', (body, field) => {
    expect(refusal(() => planRequest({ action: 'create', table: 'todos', body: JSON.parse(JSON.stringify(body)) as Record<string, unknown> }, asMember()))).toEqual({
      status: 400,
      details: { field },
    });
  });
});

describe('plan: upsert', () => {
  it('is one statement when the body can create the record', () => {
    const plan = planOf(planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { title: 'x', user_id: 'other' } }, asMember()), 'upsert');
    expect(plan.insertValues).toEqual({ id: 'a', title: 'x', user_id: 'member-1' });
    // The owner column never changes on update under a scope.
    expect(plan.changes).toEqual({ title: 'x' });
  });

  it('updates first when the body could not create the record, keeping what it lacks', () => {
    const plan = planOf(planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { score: 2 } }, asMember()), 'update-or-create');
    expect([plan.id, plan.changes, plan.missing]).toEqual(['a', { score: 2 }, ['title']]);
  });

  it('refuses a body id other than the path id', () => {
    expect(refusal(() => planRequest({ action: 'upsert', table: 'todos', id: 'a', body: { id: 'b', title: 'x' } }, asMember()))).toEqual({
      status: 400,
      details: { field: 'id' },
    });
  });
});
