import { describe, expect, it } from 'vitest';
import type { ColumnInfo, ColumnType } from '@basalt/contract';
import { OP_LABELS, operatorsFor, placeholderOf, splitListText, takesValue, toFilter } from './filters';

function column(name: string, type: ColumnType): ColumnInfo {
  return { name, type, nullable: true, unique: false, primaryKey: false, default: null, readOnly: false };
}

describe("the grid's filter operators", () => {
  // What the grid offered before the operators came from the contract: the same choices, in the same order.
  it.each([
    ['text', ['=', '≠', '>', '≥', '<', '≤', 'in', 'not in', 'like', 'ilike', 'search', 'is null', 'is not null']],
    ['integer', ['=', '≠', '>', '≥', '<', '≤', 'in', 'not in', 'is null', 'is not null']],
    ['real', ['=', '≠', '>', '≥', '<', '≤', 'in', 'not in', 'is null', 'is not null']],
    ['timestamp', ['=', '≠', '>', '≥', '<', '≤', 'in', 'not in', 'is null', 'is not null']],
    ['boolean', ['=', '≠', 'is null', 'is not null']],
    ['json', ['=', 'is null', 'is not null']],
  ] as const)('a %s column offers %j', (type, labels) => {
    expect(operatorsFor(type).map((op) => OP_LABELS[op])).toEqual(labels);
  });

  it('asks a value of every operator but the null tests, and hints at lists and patterns', () => {
    expect(takesValue('eq')).toBe(true);
    expect(takesValue('null')).toBe(false);
    expect(takesValue('notnull')).toBe(false);
    expect([placeholderOf('in'), placeholderOf('nin'), placeholderOf('like'), placeholderOf('ilike'), placeholderOf('eq')]).toEqual(['a, b, c', 'a, b, c', 'a*', 'a*', '']);
  });
});

describe('toFilter', () => {
  const columns = [column('title', 'text'), column('score', 'integer'), column('done', 'boolean'), column('meta', 'json')];

  it('turns drafts into the client filter: null tests as `is`, lists split on commas', () => {
    expect(
      toFilter(
        { title: { op: 'ilike', value: 'a*' }, score: { op: 'in', value: '1, 2,3' }, done: { op: 'notnull', value: '' }, meta: { op: 'null', value: 'ignored' } },
        columns,
      ),
    ).toEqual({ title: { ilike: 'a*' }, score: { in: ['1', '2', '3'] }, done: { is: 'notnull' }, meta: { is: 'null' } });
  });

  it('leaves out empty values, operators the type does not take, and columns that are gone', () => {
    expect(
      toFilter({ title: { op: 'eq', value: '' }, meta: { op: 'gt', value: '1' }, dropped: { op: 'eq', value: 'x' }, score: { op: 'gte', value: '5' } }, columns),
    ).toEqual({ score: { gte: '5' } });
  });
});

describe('splitListText', () => {
  it('splits a typed list at commas, trimming each value', () => {
    expect(splitListText('a, b ,c')).toEqual(['a', 'b', 'c']);
    expect(splitListText('one')).toEqual(['one']);
  });

  it('reads a value in double quotes whole, a doubled quote as one', () => {
    expect(splitListText('"a,1", "say ""hi""", t4')).toEqual(['a,1', 'say "hi"', 't4']);
    expect(splitListText('" padded "')).toEqual([' padded ']);
  });

  it('keeps empty values where the list has them, for the server to judge', () => {
    expect(splitListText('a,,b')).toEqual(['a', '', 'b']);
    expect(splitListText('a,')).toEqual(['a', '']);
  });

  it('gives the client the values it quotes again', () => {
    const columns = [column('id', 'text')];
    expect(toFilter({ id: { op: 'in', value: '"a,1", b' } }, columns)).toEqual({ id: { in: ['a,1', 'b'] } });
  });
});
