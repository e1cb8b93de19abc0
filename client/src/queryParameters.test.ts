import { describe, expect, it } from 'vitest';
import { changeParameters, listParameters, selectText } from './queryParameters.js';

describe('listParameters', () => {
  it('maps paging, ordering, select, cursor, count and equality filters onto the list endpoint’s parameters', () => {
    expect(
      listParameters({
        limit: 5,
        offset: 10,
        order: ['score.desc', 'title.asc'],
        select: ['id', 'title'],
        count: 'none',
        filter: { done: true, score: 3, at: new Date(0), skip: undefined },
      }),
    ).toEqual({
      limit: 5,
      offset: 10,
      order: 'score.desc,title.asc',
      select: 'id,title',
      after: undefined,
      count: 'none',
      done: true,
      score: 3,
      at: new Date(0),
    });
    expect(listParameters({ order: 'id.asc', after: 'abc' })).toMatchObject({ order: 'id.asc', after: 'abc' });
    expect(listParameters()).toEqual({ limit: undefined, offset: undefined, order: undefined, select: undefined, after: undefined, count: undefined });
  });

  it('writes operators as column[op], lists quoted where a value holds a comma or a quote', () => {
    expect(
      listParameters({
        filter: {
          score: { gte: 10, lt: 20, nin: [1, 2] },
          title: { like: 'a*', in: ['plain', 'a,b', 'say "hi"', ''] },
          due: { gt: new Date(0), is: 'notnull' },
          done: { is: false },
          gone: null,
        },
      }),
    ).toMatchObject({
      'score[gte]': 10,
      'score[lt]': 20,
      'score[nin]': '1,2',
      'title[like]': 'a*',
      'title[in]': 'plain,"a,b","say ""hi""",',
      'due[gt]': new Date(0),
      'due[is]': 'notnull',
      'done[is]': 'false',
      'gone[is]': 'null',
    });
  });

  it('filters a column named like a reserved parameter through [eq]', () => {
    expect(listParameters({ filter: { limit: 5, order: 'x' } })).toMatchObject({ limit: undefined, 'limit[eq]': 5, order: undefined, 'order[eq]': 'x' });
  });

  it('refuses what the server would: unknown operators, empty or oversized lists', () => {
    expect(() => listParameters({ filter: { a: { between: 1 } } })).toThrow(/Unknown operator/);
    expect(() => listParameters({ filter: { a: { in: [] } } })).toThrow(/1 to 100/);
    expect(() => listParameters({ filter: { a: { in: Array.from({ length: 101 }, (_, i) => i) } } })).toThrow(/1 to 100/);
    expect(() => listParameters({ filter: { a: { eq: { nested: true } } } })).toThrow(/takes a string/);
  });
});

describe('selectText', () => {
  it('writes columns and nested embeds as the server reads them', () => {
    expect(selectText(['id', { author: ['name'], 'comments.post_id': '*' }, 'title'])).toBe('id,author(name),comments.post_id(*),title');
    expect(selectText(['id', { posts: ['title', { comments: ['body'] }] }])).toBe('id,posts(title,comments(body))');
    expect(selectText('*')).toBe('*');
    expect(listParameters({ select: [{ tags: '*' }], embedOptions: { tags: { order: 'name.desc', limit: 2 } } })).toMatchObject({
      select: 'tags(*)',
      'tags.order': 'name.desc',
      'tags.limit': 2,
    });
  });
});

describe('changeParameters', () => {
  it('selects rows as a list does, with the guards of a change by filter and its select', () => {
    expect(
      changeParameters({ filter: { score: { lt: 3 }, done: false }, where: "title = 'x'" }, { limit: 50, dryRun: true, select: ['id', 'title'] }),
    ).toEqual({ 'score[lt]': 3, done: false, filter: "title = 'x'", limit: 50, dryRun: true, select: 'id,title' });
    expect(changeParameters({}, { all: true })).toEqual({ all: true });
    // The server's defaults are left out rather than sent.
    expect(changeParameters({ filter: { id: { in: ['a', 'b'] } } }, { all: false, dryRun: false })).toEqual({ 'id[in]': 'a,b' });
  });

  it('filters a column named like a write parameter through [eq]', () => {
    expect(changeParameters({ filter: { all: true, dryRun: 1, onConflict: 'x' } })).toEqual({ 'all[eq]': true, 'dryRun[eq]': 1, 'onConflict[eq]': 'x' });
  });
});

describe('write parameters of a list query', () => {
  it('sends onConflict beside select, as upserts take them', () => {
    expect(listParameters({ select: ['id'] }, { onConflict: 'email' })).toEqual({ select: 'id', onConflict: 'email' });
  });
});
