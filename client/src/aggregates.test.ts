import { describe, expect, it } from 'vitest';
import { aggregateSelect } from './aggregates.js';

describe('aggregateSelect', () => {
  it('writes the group columns, then count() and each aggregate under its alias', () => {
    expect(aggregateSelect({ groupBy: ['status', 'kind'], count: true, sum: { total: 'score' }, avg: { mean: 'score' }, min: { first: 'createdAt' }, max: { last: 'createdAt' } })).toBe(
      'status,kind,count(),total:sum(score),mean:avg(score),first:min(createdAt),last:max(createdAt)',
    );
  });

  it('names the count when asked, and groups nothing without groupBy', () => {
    expect(aggregateSelect({ count: 'rows' })).toBe('rows:count()');
    expect(aggregateSelect({ sum: { a: 'x', b: 'y' } })).toBe('a:sum(x),b:sum(y)');
  });

  it('refuses a query that computes nothing (it would be a plain list)', () => {
    expect(() => aggregateSelect({ groupBy: ['status'] })).toThrow(TypeError);
    expect(() => aggregateSelect({})).toThrow(TypeError);
  });
});
