import { parse } from 'csv-parse/browser/esm/sync';
import type { ColumnInfo } from '@basalt/contract';
import { isRequired } from '../values';

/**
 * What the console shows of a CSV file before it is sent: its header's columns against the table's, the first records,
 * and how many there are. The server is the judge of values (and of the file: it names the line at fault); the
 * preview only warns of what it will certainly refuse or fill in.
 */

export const PREVIEW_ROWS = 5;

export interface HeaderColumn {
  name: string;
  /** A column of the table: the server refuses the file for any other. */
  known: boolean;
}

export interface CsvPreview {
  header: HeaderColumn[];
  /** The first records, as text. */
  rows: string[][];
  records: number;
  /** Columns an insert must name that the header lacks. */
  missing: string[];
  /** The browser's own parse failure, e.g. an unclosed quote: the server will say where. */
  problem?: string | undefined;
}

export function previewCsv(text: string, columns: readonly ColumnInfo[]): CsvPreview {
  const names = new Set(columns.map((column) => column.name));
  let records: string[][];
  let problem: string | undefined;
  const options = { bom: true, relax_column_count: true, skip_empty_lines: true };
  try {
    records = parse(text, options) as string[][];
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
    // The records before the one at fault still read: the preview shows them.
    const before = typeof (error as { records?: unknown }).records === 'number' ? (error as { records: number }).records : 0;
    records = before > 0 ? (parse(text, { ...options, to: before }) as string[][]) : [];
  }
  const [head = [], ...body] = records;
  const header = head.map((name) => ({ name, known: names.has(name) }));
  const present = new Set(head);
  const missing = columns.filter((column) => isRequired(column) && !present.has(column.name)).map((column) => column.name);
  return { header, rows: body.slice(0, PREVIEW_ROWS), records: body.length, missing, problem };
}
