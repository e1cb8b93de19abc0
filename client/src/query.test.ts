import { describe, expect, it } from 'vitest';
import { listParameters } from './query.js';

describe('listParameters', () => {
  it('maps paging, ordering and filters onto the list endpoint’s parameters', () => {
    expect(listParameters({ limit: 5, offset: 10, order: ['score.desc', 'title.asc'], filter: { done: true, score: 3, at: new Date(0), skip: undefined } })).toEqual({
      limit: 5,
      offset: 10,
      order: 'score.desc,title.asc',
      done: true,
      score: 3,
      at: new Date(0),
    });
    expect(listParameters({ order: 'id.asc' }).order).toBe('id.asc');
    expect(listParameters()).toEqual({ limit: undefined, offset: undefined, order: undefined });
  });

  it('refuses a filter that would be read as a paging parameter, or on null', () => {
    expect(() => listParameters({ filter: { limit: 5 } })).toThrow(/reserves/);
    expect(() => listParameters({ filter: { title: null } })).toThrow(/null/);
  });
});
