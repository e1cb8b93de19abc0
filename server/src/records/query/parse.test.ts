import { describe, expect, it } from 'vitest';
import { refusal } from '../../../test/fixtures/refusal.js';
import { parseListParams, parseValueList } from './parse.js';


describe('parseListParams: the query string as sent, no schema', () => {
  it('defaults to 20 rows, no offset, no order, every column, an exact count', () => {
    expect(parseListParams({})).toEqual({ limit: 20, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null });
  });

  it('clamps limit to 100 and keeps order terms, select and filters as written', () => {
    expect(parseListParams({ limit: '500', offset: '40', order: 'score.desc,title.asc', select: 'id,title', count: 'none', score: '3', 'title[like]': 'a*' })).toEqual({
      limit: 100,
      offset: 40,
      order: [
        { column: 'score', direction: 'desc' },
        { column: 'title', direction: 'asc' },
      ],
      select: [
        { kind: 'column', name: 'id' },
        { kind: 'column', name: 'title' },
      ],
      embedOptions: {},
      after: null,
      count: 'none',
      filter: null,
      filters: [
        { key: 'score', column: 'score', op: 'eq', value: '3' },
        { key: 'title[like]', column: 'title', op: 'like', value: 'a*' },
      ],
    });
  });

  it('reads every operator, in-lists and is values', () => {
    const { filters } = parseListParams({ 'a[neq]': '1', 'b[in]': 'x,"y,z",""', 'c[nin]': '1', 'd[is]': 'notnull', 'e[search]': 'big cat', 'limit[eq]': '3' });
    expect(filters).toEqual([
      { key: 'a[neq]', column: 'a', op: 'neq', value: '1' },
      { key: 'b[in]', column: 'b', op: 'in', values: ['x', 'y,z', ''] },
      { key: 'c[nin]', column: 'c', op: 'nin', values: ['1'] },
      { key: 'd[is]', column: 'd', op: 'is', value: 'notnull' },
      { key: 'e[search]', column: 'e', op: 'search', value: 'big cat' },
      // A column named like a reserved parameter is filtered through an operator.
      { key: 'limit[eq]', column: 'limit', op: 'eq', value: '3' },
    ]);
  });

  it('keeps a dotted column name whole: the direction is after the last dot', () => {
    expect(parseListParams({ order: 'a.b.desc' }).order).toEqual([{ column: 'a.b', direction: 'desc' }]);
  });

  it('reads select=* as every column, and embeds with their options', () => {
    expect(parseListParams({ select: '*' }).select).toBeNull();
    const { select, embedOptions } = parseListParams({ select: 'id,author(*),comments.post_id(body,post(id))', 'comments.order': 'id.desc', 'comments.limit': '3' });
    expect(select).toEqual([
      { kind: 'column', name: 'id' },
      { kind: 'embed', name: 'author', column: null, items: [{ kind: 'star' }] },
      { kind: 'embed', name: 'comments', column: 'post_id', items: [{ kind: 'column', name: 'body' }, { kind: 'embed', name: 'post', column: null, items: [{ kind: 'column', name: 'id' }] }] },
    ]);
    expect(embedOptions).toEqual({ comments: { order: [{ column: 'id', direction: 'desc' }], limit: 3 } });
  });

  it.each([
    [{ limit: '-1' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ offset: '0x10' }, 'offset'],
    [{ offset: '99999999999999999999' }, 'offset'],
    [{ limit: ['1', '2'] }, 'limit'],
    [{ order: 'score' }, 'order'],
    [{ order: '.asc' }, 'order'],
    [{ order: 'score.up' }, 'order'],
    [{ order: 'score.asc,' }, 'order'],
    [{ order: ['id.asc', 'id.desc'] }, 'order'],
    [{ title: ['a', 'b'] }, 'title'],
    [{ 'score[gte]': ['1', '2'] }, 'score[gte]'],
    [{ 'score[between]': '1' }, 'score[between]'],
    [{ 'score[GT]': '1' }, 'score[GT]'],
    [{ 'score[]': '1' }, 'score[]'],
    [{ 'done[is]': 'maybe' }, 'done[is]'],
    [{ 'a[in]': '"unterminated' }, 'a[in]'],
    [{ 'a[in]': '"x"y' }, 'a[in]'],
    [{ 'a[in]': 'x"y' }, 'a[in]'],
    [{ 'a[in]': Array.from({ length: 101 }, (_, i) => i).join(',') }, 'a[in]'],
    [{ select: '' }, 'select'],
    [{ select: 'a,,b' }, 'select'],
    [{ select: 'a(b' }, 'select'],
    [{ select: 'a(b(c(d(e))))' }, 'select'],
    [{ select: 'a b' }, 'select'],
    [{ count: 'some' }, 'count'],
    [{ after: 'c', offset: '0' }, 'after'],
    [{ after: ['a', 'b'] }, 'after'],
  ])('%o is 400 naming %s', (params, parameter) => {
    expect(refusal(() => parseListParams(params))).toEqual({ status: 400, details: { parameter } });
  });

  it('allows 30 filters, and names the 31st', () => {
    const thirty = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`c${i}`, '1']));
    expect(parseListParams({ ...thirty, limit: '1', order: 'id.asc' }).filters).toHaveLength(30);
    expect(refusal(() => parseListParams({ ...thirty, c30: '1' }))).toEqual({ status: 400, details: { parameter: 'c30' } });
  });

  it('refuses a query string over 8 KiB', () => {
    expect(parseListParams({}, 8192).limit).toBe(20);
    expect(refusal(() => parseListParams({}, 8193))).toEqual({ status: 400, details: { parameter: 'query' } });
  });
});

describe('parseValueList', () => {
  it.each([
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    [',', ['', '']],
    ['"a,b",c', ['a,b', 'c']],
    ['"say ""hi"""', ['say "hi"']],
    ['""', ['']],
    ["it's,ok", ["it's", 'ok']],
  ])('%s -> %o', (text, values) => {
    expect(parseValueList('k', text)).toEqual(values);
  });
});
