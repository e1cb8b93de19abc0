import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { operationOf, parseRequest, parseTarget, queryBytesOf, takesArrayBody, takesBody } from './parse.js';


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
    ['PATCH', '/items/abc', { action: 'update', table: 'items', id: 'abc' }],
    ['PATCH', '/items', { action: 'update-where', table: 'items' }],
    ['DELETE', '/items', { action: 'delete-where', table: 'items' }],
    ['GET', '/odd%20name/a%2Fb', { action: 'get', table: 'odd name', id: 'a/b' }],
  ])('%s %s', (method, path, expected) => {
    expect(parseTarget(method, path)).toEqual(expected);
  });

  it.each([
    ['POST', '/items/abc'],
    ['PUT', '/items'],
    ['OPTIONS', '/items'],
    ['PATCH', '/items/a/b'],
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
    expect(['list', 'get', 'create', 'upsert', 'delete'].filter((action) => takesArrayBody(action as 'list'))).toEqual(['create']);
  });
});

describe('parseRequest', () => {
  it('measures the query string of a URL', () => {
    expect([queryBytesOf('/t'), queryBytesOf('/t?'), queryBytesOf('/t?a=1&b=2')]).toEqual([0, 0, 7]);
  });

  it('parses a list query and carries a body', () => {
    expect(parseRequest({ action: 'list', table: 't' }, { limit: '5' }, undefined)).toEqual({
      action: 'list',
      table: 't',
      params: { limit: 5, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null },
    });
    expect(parseRequest({ action: 'create', table: 't' }, {}, { a: 1 })).toEqual({ action: 'create', table: 't', body: { a: 1 } });
    expect(parseRequest({ action: 'upsert', table: 't', id: '7' }, {}, { a: 1 })).toEqual({ action: 'upsert', table: 't', id: '7', body: { a: 1 } });
    expect(parseRequest({ action: 'get', table: 't', id: '7' }, {}, undefined)).toEqual({ action: 'get', table: 't', id: '7' });
    expect(parseRequest({ action: 'delete', table: 't', id: '7' }, {}, undefined)).toEqual({ action: 'delete', table: 't', id: '7' });
  });

  it('takes select and embed options on a single record, nothing else; a delete takes nothing', () => {
    expect(parseRequest({ action: 'get', table: 't', id: '7' }, { select: 'id,c(id)', 'c.limit': '2' }, undefined)).toMatchObject({ action: 'get', embedOptions: { c: { limit: 2 } } });
    expect(parseRequest({ action: 'upsert', table: 't', id: '7' }, { select: 'id' }, {})).toMatchObject({ action: 'upsert', select: { select: [expect.anything()] } });
    expect(parseRequest({ action: 'create', table: 't' }, { select: 'id' }, [{}])).toMatchObject({ action: 'create-many' });
    for (const [action, query] of [
      ['get', { limit: 'nonsense' }],
      ['get', { 'c.limit[eq]': '1' }],
      ['upsert', { selct: 'id' }],
      ['create', { title: 'x' }],
      ['delete', { select: 'id' }],
    ] as const) {
      const target = action === 'create' ? { action, table: 't' } : { action, table: 't', id: '7' };
      const key = Object.keys(query)[0]!;
      expect(refusal(() => parseRequest(target, query, {}))).toMatchObject({ status: 400, details: { parameter: key } });
    }
  });

  it('refuses an array for PUT and an empty or oversized bulk insert, naming the body', () => {
    expect(refusal(() => parseRequest({ action: 'upsert', table: 't', id: '7' }, {}, [{}]))).toMatchObject({ status: 400, details: { field: 'body' } });
    expect(refusal(() => parseRequest({ action: 'create', table: 't' }, {}, []))).toMatchObject({ status: 400, details: { field: 'body' } });
  });
});
