import { describe, expect, it } from 'vitest';
import { csvRowCount, joinCsvPages, nextCursor } from './csvPages';

describe('joinCsvPages', () => {
  it('keeps the header row once', () => {
    expect(joinCsvPages(['id,title\n1,a\n2,b\n', 'id,title\n3,c\n', 'id,title\n4,d\n'])).toBe('id,title\n1,a\n2,b\n3,c\n4,d\n');
  });

  it('keeps CRLF line breaks and ends every page with one', () => {
    expect(joinCsvPages(['id,title\r\n1,a', 'id,title\r\n2,b\r\n'])).toBe('id,title\r\n1,a\r\n2,b\r\n');
  });

  it('keeps quoted line breaks inside cells', () => {
    expect(joinCsvPages(['id,note\n1,"two\nlines"\n', 'id,note\n2,"x,\n""y"""\n'])).toBe('id,note\n1,"two\nlines"\n2,"x,\n""y"""\n');
  });

  it('reads a page of the header alone as no rows', () => {
    expect(joinCsvPages(['id,title\n1,a\n', 'id,title\n'])).toBe('id,title\n1,a\n');
    expect(joinCsvPages(['id,title\n'])).toBe('id,title\n');
    expect(joinCsvPages([])).toBe('');
  });

  it('drops a byte order mark of a later page', () => {
    expect(joinCsvPages(['id\n1\n', '\uFEFFid\n2\n'])).toBe('id\n1\n2\n');
  });

  it('refuses pages whose headers differ', () => {
    expect(() => joinCsvPages(['id,title\n1,a\n', 'id,name\n2,b\n'])).toThrow(/page 1/);
  });
});

describe('nextCursor', () => {
  it('reads the after parameter of the next link', () => {
    expect(nextCursor('</admin/tables/t/records?limit=100&after=abc%2Bdef>; rel="next"')).toBe('abc+def');
    expect(nextCursor('<http://host/api/t?after=xyz&limit=100>; rel=next')).toBe('xyz');
  });

  it('skips other relations and answers null without a next page', () => {
    expect(nextCursor('</api/t?after=p>; rel="prev", </api/t?after=n>; rel="next"')).toBe('n');
    expect(nextCursor('</api/t?after=p>; rel="prev"')).toBeNull();
    expect(nextCursor(null)).toBeNull();
    expect(nextCursor('')).toBeNull();
  });
});

describe('csvRowCount', () => {
  it('counts the records after the header, quoted line breaks not counted', () => {
    expect(csvRowCount('id,note\n1,a\n2,"b\nc"\n')).toBe(2);
    expect(csvRowCount('id,note\r\n1,a\r\n2,b')).toBe(2);
    expect(csvRowCount('id,note\n')).toBe(0);
    expect(csvRowCount('id')).toBe(0);
    expect(csvRowCount('')).toBe(0);
  });
});
