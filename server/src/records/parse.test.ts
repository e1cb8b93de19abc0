import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { operationOf, parseListParams, parseRequest, parseTarget, takesBody } from './parse.js';

function refusal(run: () => unknown): { status: number; details: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseTarget: method and path -> what they name', () => {
  it.each([
    ['GET', '/items', { action: 'list', table: 'items' }],
    ['GET', '/items/', { action: 'list', table: 'items' }],
    ['HEAD', '/items', { action: 'list', table: 'items' }],
    ['GET', '/items/abc', { action: 'get', table: 'items', id: 'abc' }],
    ['GET', '/items/abc/', { action: 'get', table: 'items', id: 'abc' }],
    ['POST', '/items', { action: 'create', table: 'items' }],
    ['POST', '/items/', { action: 'create', table: 'items' }],
    ['PUT', '/items/abc', { action: 'upsert', table: 'items', id: 'abc' }],
    ['DELETE', '/items/abc', { action: 'delete', table: 'items', id: 'abc' }],
    ['GET', '/odd%20name/a%2Fb', { action: 'get', table: 'odd name', id: 'a/b' }],
  ])('%s %s', (method, path, expected) => {
    expect(parseTarget(method, path)).toEqual(expected);
  });

  it.each([
    ['POST', '/items/abc'],
    ['PUT', '/items'],
    ['DELETE', '/items'],
    ['PATCH', '/items/abc'],
    ['GET', '/'],
    ['GET', ''],
    ['GET', '//abc'],
    ['GET', '/items//'],
    ['GET', '/items/a/b'],
  ])('%s %s names no record route', (method, path) => {
    expect(parseTarget(method, path)).toBeNull();
  });

  it('refuses bad percent-encoding in the table or the id with a 400', () => {
    expect(refusal(() => parseTarget('GET', '/items/%zz')).status).toBe(400);
    expect(refusal(() => parseTarget('DELETE', '/%E0%A4/x')).status).toBe(400);
  });

  it('knows which actions read a body and which operation each is', () => {
    expect(['list', 'get', 'create', 'upsert', 'delete'].map((action) => [takesBody(action as 'list'), operationOf(action as 'list')])).toEqual([
      [false, 'read'],
      [false, 'read'],
      [true, 'write'],
      [true, 'write'],
      [false, 'write'],
    ]);
  });
});

describe('parseListParams: the query string as sent, no schema', () => {
  it('defaults to 20 rows from 0, no order and no filters', () => {
    expect(parseListParams({})).toEqual({ limit: 20, offset: 0, order: [], filters: [] });
  });

  it('clamps limit to 100 and keeps order terms and filters as written', () => {
    expect(parseListParams({ limit: '500', offset: '40', order: 'score.desc,title.asc', score: '3', title: 'x' })).toEqual({
      limit: 100,
      offset: 40,
      order: [
        { column: 'score', direction: 'desc' },
        { column: 'title', direction: 'asc' },
      ],
      filters: [
        { column: 'score', value: '3' },
        { column: 'title', value: 'x' },
      ],
    });
  });

  it('keeps a dotted column name whole: the direction is after the last dot', () => {
    expect(parseListParams({ order: 'a.b.desc' }).order).toEqual([{ column: 'a.b', direction: 'desc' }]);
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
  ])('%o is 400 naming %s', (params, parameter) => {
    expect(refusal(() => parseListParams(params))).toEqual({ status: 400, details: { parameter } });
  });
});

describe('parseRequest', () => {
  it('parses a list query, carries a body, and ignores the query of a single record', () => {
    expect(parseRequest({ action: 'list', table: 't' }, { limit: '5' }, undefined)).toEqual({
      action: 'list',
      table: 't',
      params: { limit: 5, offset: 0, order: [], filters: [] },
    });
    expect(parseRequest({ action: 'create', table: 't' }, {}, { a: 1 })).toEqual({ action: 'create', table: 't', body: { a: 1 } });
    expect(parseRequest({ action: 'upsert', table: 't', id: '7' }, {}, { a: 1 })).toEqual({ action: 'upsert', table: 't', id: '7', body: { a: 1 } });
    expect(parseRequest({ action: 'get', table: 't', id: '7' }, { limit: 'nonsense' }, undefined)).toEqual({ action: 'get', table: 't', id: '7' });
    expect(parseRequest({ action: 'delete', table: 't', id: '7' }, {}, undefined)).toEqual({ action: 'delete', table: 't', id: '7' });
  });
});
