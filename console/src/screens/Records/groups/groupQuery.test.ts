import { describe, expect, it } from 'vitest';
import { countKeyFor, filterOfGroup, groupCounts } from './groupQuery';

describe('groupCounts', () => {
  it('counts each group of the column, largest first', () => {
    expect(groupCounts('status')).toEqual({ aggregates: { groupBy: ['status'], count: true }, order: 'count.desc', countKey: 'count' });
  });

  it('names the count apart from a column called count', () => {
    expect(countKeyFor('count')).toBe('records');
    expect(groupCounts('count')).toEqual({ aggregates: { groupBy: ['count'], count: 'records' }, order: 'records.desc', countKey: 'records' });
  });
});

describe('filterOfGroup', () => {
  it('filters the grid by the group value', () => {
    expect(filterOfGroup('open')).toEqual({ op: 'eq', value: 'open' });
    expect(filterOfGroup(3)).toEqual({ op: 'eq', value: '3' });
    expect(filterOfGroup(false)).toEqual({ op: 'eq', value: 'false' });
  });

  it('filters the group of nulls with is null', () => {
    expect(filterOfGroup(null)).toEqual({ op: 'null', value: '' });
  });
});
