import type { ColumnType } from '@basalt/contract';
import { stringify } from 'csv-stringify/sync';
import { invalidParameter } from '../../errors.js';
import type { Plan, Row } from '../plan/index.js';

/**
 * A page as CSV (API.md, "Part 2 in detail", Query language, part 2): RFC 4180 through csv-stringify, a header row of
 * the page's keys, then one line per record. Cells: null empty, the empty string `""`, booleans `true`/`false`,
 * timestamps as the API prints them (ISO, milliseconds), json as its JSON text; a text or json cell starting with
 * `= + - @`, a tab or a carriage return gets a leading `'`, so a spreadsheet shows it rather than running it.
 */

export interface CsvColumn {
  key: string;
  type: ColumnType;
}

const FORMULA = /^[=+\-@\t\r]/;

/** The columns a list's CSV has, in order; embeds have no CSV form (400 naming `select`). */
export function csvColumns(plan: Plan): CsvColumn[] | null {
  if (plan.kind === 'aggregate') return plan.query.outputs.map((each) => ({ key: each.key, type: each.output.type }));
  if (plan.kind !== 'list') return null;
  const { select } = plan.query;
  if (select.embeds.length > 0) throw invalidParameter('select', 'select: embeds have no CSV form; ask for JSON, or select columns only');
  return (select.columns ?? plan.table.columnList).map((column) => ({ key: column.name, type: column.type }));
}

function cell(value: unknown, type: ColumnType): string | null {
  if (value === null || value === undefined) return null;
  let text: string;
  if (type === 'json') text = JSON.stringify(value);
  else if (typeof value === 'string') text = value;
  else if (value instanceof Date) text = value.toISOString();
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return (type === 'text' || type === 'json') && FORMULA.test(text) ? `'${text}` : text;
}

export function csvOf(columns: CsvColumn[], rows: Row[]): string {
  const records = [columns.map((column) => column.key), ...rows.map((row) => columns.map((column) => cell(row[column.key], column.type)))];
  // Only a real empty string is quoted: an empty unquoted cell is null (and, imported, "absent").
  return stringify(records, { cast: { string: (value) => (value === '' ? { value: '', quoted_empty: true } : value) } });
}
