import { describe, expect, it } from 'vitest';
import { appendCsvPage, nextCursor } from './csv.js';

describe('nextCursor', () => {
  it('takes after= from the link whose rel is next, absolute or relative', () => {
    expect(nextCursor('<http://api.test/api/t?limit=100&after=abc%3D%3D>; rel="next"')).toBe('abc==');
    expect(nextCursor('</api/t?after=x1&select=id,title>; rel=next')).toBe('x1');
    expect(nextCursor('<http://a/t?after=p>; rel="prev", <http://a/t?after=n>; title="x"; rel="next last"')).toBe('n');
  });

  it('is null without a next link', () => {
    expect(nextCursor(null)).toBeNull();
    expect(nextCursor('')).toBeNull();
    expect(nextCursor('<http://a/t?after=p>; rel="prev"')).toBeNull();
    expect(nextCursor('<http://a/t?limit=1>; rel="next"')).toBeNull();
  });
});

describe('appendCsvPage', () => {
  it('keeps the first header and drops the header row of every later page', () => {
    let csv = appendCsvPage('', 'id,title\n1,a\n2,"b\nc"\n');
    csv = appendCsvPage(csv, 'id,title\n3,"x,y"\n');
    csv = appendCsvPage(csv, 'id,title\n');
    expect(csv).toBe('id,title\n1,a\n2,"b\nc"\n3,"x,y"\n');
  });

  it('ends an unterminated page with its own line break before the next', () => {
    let csv = appendCsvPage('', 'id\r\n1\r\n2');
    csv = appendCsvPage(csv, 'id\r\n3');
    expect(csv).toBe('id\r\n1\r\n2\r\n3\r\n');
    expect(appendCsvPage('', 'id,title')).toBe('id,title\n');
  });
});
