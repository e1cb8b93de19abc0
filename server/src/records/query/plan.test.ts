import { describe, expect, it } from 'vitest';
import type { ColumnType } from '@basalt/contract';
import { refusalOrNull } from '../../../test/fixtures/refusal.js';
import { column, table } from '../../../test/fixtures/tables.js';
import { cursorKeyFrom, encodeCursor } from './cursor.js';
import { parseListParams, type QueryParams } from './parse.js';
import { likePattern, planListQuery } from './plan.js';

const KEY = cursorKeyFrom('query-plan-test');
const things = table('things', [
  column('score', 'integer'),
  column('ratio', 'real'),
  column('dueAt', 'timestamp'),
  column('title', 'text'),
  column('done', 'boolean'),
  column('meta', 'json'),
  column('ref', 'text', { pgType: 'uuid', sqlType: 'uuid' }),
]);
const plan = (params: QueryParams) => planListQuery(things, parseListParams(params), KEY);


const SAMPLES: Record<string, [ColumnType, string]> = {
  score: ['integer', '3'],
  ratio: ['real', '1.5'],
  dueAt: ['timestamp', '2026-01-01T00:00:00Z'],
  title: ['text', 'a'],
  done: ['boolean', 'true'],
  meta: ['json', '{"a":1}'],
};
const ALL = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'search', 'is'] as const;
const TAKES: Record<ColumnType, readonly string[]> = {
  integer: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  real: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  timestamp: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  text: ALL,
  boolean: ['eq', 'neq', 'is'],
  json: ['eq', 'is'],
};
const matrix = Object.entries(SAMPLES).flatMap(([name, [type, sample]]) =>
  ALL.map((op) => [name, type, op, op === 'is' ? 'null' : sample, TAKES[type].includes(op)] as const),
);

describe('operators x column types', () => {
  it.each(matrix)('%s (%s) [%s]=%s allowed: %s', (name, _type, op, value, allowed) => {
    const key = `${name}[${op}]`;
    const outcome = refusalOrNull(() => plan({ [key]: value }));
    if (allowed) expect(outcome).toBeNull();
    else expect(outcome).toEqual({ status: 400, details: { parameter: key } });
  });

  it('takes is true/false on boolean columns only', () => {
    expect(plan({ 'done[is]': 'false' }).conditions).toEqual([{ kind: 'is', column: expect.objectContaining({ name: 'done' }), value: 'false' }]);
    expect(refusalOrNull(() => plan({ 'score[is]': 'true' }))).toEqual({ status: 400, details: { parameter: 'score[is]' } });
  });

  it('compares uuid and other text-like types as text, patterns included', () => {
    expect(refusalOrNull(() => plan({ 'ref[like]': '0a*', 'ref[gt]': 'x' }))).toBeNull();
  });
});

describe('values', () => {
  it.each([
    ['score[gt]', '1.5'],
    ['score[in]', '1,x'],
    ['score[lt]', '99999999999'],
    ['ratio[gte]', 'NaN'],
    ['dueAt[lt]', 'infinity'],
    ['dueAt[in]', '2026-01-01,tomorrow'],
    ['title[eq]', 'nul \u0000'],
    ['done[neq]', 'yes'],
    ['nope[eq]', '1'],
    ['nope', '1'],
  ])('%s=%s is 400 naming it', (key, value) => {
    expect(refusalOrNull(() => plan({ [key]: value }))).toEqual({ status: 400, details: { parameter: key } });
  });

  it('coerces every value of a list', () => {
    expect(plan({ 'score[in]': '1,2,3' }).conditions[0]).toMatchObject({ kind: 'list', values: [1, 2, 3], negate: false });
    expect(plan({ 'title[nin]': '"a,b",c' }).conditions[0]).toMatchObject({ kind: 'list', values: ['a,b', 'c'], negate: true });
  });

  it('compares timestamps at millisecond precision', () => {
    const at = new Date('2026-01-01T00:00:00.123Z');
    const next = new Date('2026-01-01T00:00:00.124Z');
    const one = (op: string) => plan({ [`dueAt[${op}]`]: at.toISOString() }).conditions[0];
    expect(one('eq')).toMatchObject({ kind: 'range', from: at, to: next, negate: false });
    expect(one('neq')).toMatchObject({ kind: 'range', from: at, to: next, negate: true });
    expect(one('gt')).toMatchObject({ kind: 'compare', op: 'gte', value: next });
    expect(one('gte')).toMatchObject({ kind: 'compare', op: 'gte', value: at });
    expect(one('lt')).toMatchObject({ kind: 'compare', op: 'lt', value: at });
    expect(one('lte')).toMatchObject({ kind: 'compare', op: 'lt', value: next });
    // The seed's plain equality form means the same as [eq].
    expect(plan({ dueAt: at.toISOString() }).conditions[0]).toEqual(one('eq'));
  });

  it.each([
    ['a*', 'a%'],
    ['*b*', '%b%'],
    ['100%', '100\\%'],
    ['a_b', 'a\\_b'],
    ['back\\slash', 'back\\\\slash'],
  ])('like %s -> %s', (value, pattern) => {
    expect(likePattern(value)).toBe(pattern);
  });
});

describe('order, select and cursor', () => {
  const orderOf = (order: string) => plan({ order }).order.map((term) => `${term.column.name}.${term.direction}`);

  it('ends the order with the id in the direction of the last key', () => {
    expect(orderOf('dueAt.desc')).toEqual(['dueAt.desc', 'id.desc']);
    expect(orderOf('score.asc,dueAt.desc')).toEqual(['score.asc', 'dueAt.desc', 'id.desc']);
    expect(plan({}).order.map((term) => `${term.column.name}.${term.direction}`)).toEqual(['id.asc']);
    expect(orderOf('id.desc,score.asc')).toEqual(['id.desc']);
  });

  it('binds select to columns and names an unknown one', () => {
    expect(plan({ select: 'title,id' }).select.columns?.map((entry) => entry.name)).toEqual(['title', 'id']);
    expect(refusalOrNull(() => plan({ select: 'title,secret' }))).toEqual({ status: 400, details: { parameter: 'select' } });
    expect(refusalOrNull(() => plan({ order: 'secret.asc' }))).toEqual({ status: 400, details: { parameter: 'order' } });
  });

  it('reads a cursor of the same query, and refuses one of another order or filter', () => {
    const query = plan({ order: 'score.desc', 'title[like]': 'a*' });
    const cursor = encodeCursor(KEY, query.binding, ['5', 'x']);
    expect(plan({ order: 'score.desc', 'title[like]': 'a*', after: cursor }).position).toEqual(['5', 'x']);
    expect(refusalOrNull(() => plan({ order: 'score.asc', 'title[like]': 'a*', after: cursor }))).toEqual({ status: 400, details: { parameter: 'after' } });
    expect(refusalOrNull(() => plan({ order: 'score.desc', 'title[like]': 'b*', after: cursor }))).toEqual({ status: 400, details: { parameter: 'after' } });
    expect(refusalOrNull(() => planListQuery(table('others', [column('score', 'integer'), column('title', 'text')]), parseListParams({ order: 'score.desc', 'title[like]': 'a*', after: cursor }), KEY))).toEqual({
      status: 400,
      details: { parameter: 'after' },
    });
  });
});
