import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '@basalt/contract';
import { previewCsv } from './csvPreview';

const column = (name: string, extra: Partial<ColumnInfo> = {}): ColumnInfo =>
  ({ name, type: 'text', nullable: true, unique: false, primaryKey: false, default: null, ...extra }) as ColumnInfo;
const columns = [column('id', { primaryKey: true, nullable: false }), column('title', { nullable: false }), column('score', { type: 'integer' })];

describe('previewCsv', () => {
  it('shows the header against the table and the first records', () => {
    const text = 'title,score,colour\n' + Array.from({ length: 8 }, (_, i) => `t${i},${i},red`).join('\n') + '\n';
    const preview = previewCsv(text, columns);
    expect(preview.header).toEqual([
      { name: 'title', known: true },
      { name: 'score', known: true },
      { name: 'colour', known: false },
    ]);
    expect(preview.rows).toHaveLength(5);
    expect(preview.rows[0]).toEqual(['t0', '0', 'red']);
    expect(preview.records).toBe(8);
    expect(preview.missing).toEqual([]);
    expect(preview.problem).toBeUndefined();
  });

  it('names required columns the header lacks, never the generated id', () => {
    expect(previewCsv('score\n1\n', columns).missing).toEqual(['title']);
  });

  it('reads quoted cells, CRLF and a byte order mark', () => {
    const preview = previewCsv('\uFEFFtitle,score\r\n"a, ""b""",1\r\n"two\nlines",\r\n', columns);
    expect(preview.header.map((h) => h.name)).toEqual(['title', 'score']);
    expect(preview.rows).toEqual([
      ['a, "b"', '1'],
      ['two\nlines', ''],
    ]);
  });

  it('says when the file does not read as CSV, keeping what it could', () => {
    const preview = previewCsv('title,score\na,1\n"unclosed,2\n', columns);
    expect(preview.problem).toBeTruthy();
    expect(preview.header.map((h) => h.name)).toEqual(['title', 'score']);
  });

  it('answers an empty file with no columns', () => {
    expect(previewCsv('', columns)).toMatchObject({ header: [], rows: [], records: 0, missing: ['title'] });
  });
});
