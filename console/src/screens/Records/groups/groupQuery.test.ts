import { describe, expect, it } from 'vitest';
import { countKeyFor, filterOfGroup, groupParameters } from './groupQuery';

describe('groupParameters', () => {
  it('counts each group, largest first, after the filters', () => {
    expect(groupParameters('status', [['score[gte]', '3']], 20, null)).toEqual([
      ['score[gte]', '3'],
      ['select', 'status,count()'],
      ['order', 'count.desc'],
      ['limit', '20'],
    ]);
  });

  it('pages by the cursor of the previous page', () => {
    expect(groupParameters('status', [], 10, 'abc').at(-1)).toEqual(['after', 'abc']);
  });

  it('names the count apart from a column called count', () => {
    expect(countKeyFor('count')).toBe('records');
    expect(groupParameters('count', [], 20, null)).toContainEqual(['select', 'count,records:count()']);
    expect(groupParameters('count', [], 20, null)).toContainEqual(['order', 'records.desc']);
  });
});

describe('filterOfGroup', () => {
  it('filters the grid by the group value', () => {
    expect(filterOfGroup('open')).toEqual({ op: 'eq', value: 'open' });
    expect(filterOfGroup(3)).toEqual({ op: 'eq', value: '3' });
    expect(filterOfGroup(false)).toEqual({ op: 'eq', value: 'false' });
    expect(filterOfGroup('')).toEqual({ op: 'eq', value: '' });
  });

  it('filters the group of nulls with is null', () => {
    expect(filterOfGroup(null)).toEqual({ op: 'null', value: '' });
  });
});
