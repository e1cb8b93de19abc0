import { EPOCH_MILLIS_TEXT, REAL_TEXT, TIMESTAMP_COLUMNS, type ColumnInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';

/** How a value shows in a grid cell: one line, JSON for structures, `null` set apart from an empty string. */
export function formatCell(value: unknown): { text: string; isNull: boolean } {
  if (value === null || value === undefined) return { text: 'null', isNull: true };
  if (typeof value === 'string') return { text: value, isNull: false };
  return { text: JSON.stringify(value), isNull: false };
}

/** The text an edit form starts from for a stored value. */
export function toInputText(value: unknown, column: ColumnInfo): string {
  if (value === null || value === undefined) return '';
  if (column.type === 'json') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : String(value);
}


/**
 * Turns what was typed into the JSON value to send. The server is the judge of values (ranges, dates, uniqueness):
 * text that does not look like the column's type is sent as typed, so the server's own message lands on the field.
 * Only JSON is checked here, because any text is also a valid JSON string and would be stored instead of refused.
 */
export function fromInputText(text: string, column: ColumnInfo): { ok: true; value: unknown } | { ok: false; problem: string } {
  switch (column.type) {
    case 'integer':
    case 'real':
      return { ok: true, value: REAL_TEXT.test(text.trim()) && Number.isFinite(Number(text)) ? Number(text) : text };
    case 'boolean':
      return { ok: true, value: text === 'true' ? true : text === 'false' ? false : text };
    case 'timestamp':
      return { ok: true, value: EPOCH_MILLIS_TEXT.test(text.trim()) ? Number(text) : text.trim() };
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return { ok: false, problem: `${column.name} must be valid JSON, e.g. {"a": 1}, [1, 2] or "text"` };
      }
    case 'text':
      return { ok: true, value: text };
  }
}

/** Columns a form writes: all but the timestamps the server sets itself. */
export function writableColumns(columns: readonly ColumnInfo[]): ColumnInfo[] {
  return columns.filter((column) => !(TIMESTAMP_COLUMNS as readonly string[]).includes(column.name));
}

/** A column an insert must name: not null, no default, and not the id (which the server generates). */
export function isRequired(column: ColumnInfo): boolean {
  return !column.nullable && (column.default === null || column.default === undefined) && !column.primaryKey;
}

export function recordId(row: UntypedRow): string | number {
  const id = row.id;
  return typeof id === 'number' ? id : String(id);
}
