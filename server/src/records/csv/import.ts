import { parse } from 'csv-parse/sync';
import { ApiError } from '../../errors.js';
import type { TableSchema } from '../../db/schema.js';
import type { Body } from '../parse.js';

/**
 * A CSV body (`Content-Type: text/csv` on a create): a bulk insert, through csv-parse (RFC 4180, a BOM allowed). The
 * header row names columns; an empty unquoted cell is absent (the column's default), `""` the empty string; cells are
 * text, which the record pipeline coerces as it coerces query values (json cells are JSON text). Each record keeps
 * the 1-based line it starts on, so an error names it (`details.line`).
 */

/** The line each record of a CSV body starts on, by its bodies array. */
const linesOf = new WeakMap<unknown[], number[]>();

export function csvLines(bodies: unknown): number[] | undefined {
  return Array.isArray(bodies) ? linesOf.get(bodies) : undefined;
}

interface Parsed {
  record: Array<string | undefined>;
  info: { lines: number; empty_lines: number };
}

export function csvBodies(text: string): Body[] {
  let parsed: Parsed[];
  try {
    parsed = parse(text, { bom: true, info: true, skip_empty_lines: true, cast: (value, context) => (context.quoting || value !== '' ? value : undefined) }) as unknown as Parsed[];
  } catch (error) {
    const { lines, records, message } = (error ?? {}) as { lines?: number; records?: number; message?: string };
    throw new ApiError('VALIDATION_ERROR', `The CSV is not valid: ${message ?? 'it cannot be read'}`, { field: 'body', line: lines ?? 1, index: Math.max((records ?? 1) - 1, 0) });
  }
  const [header, ...rows] = parsed;
  if (!header) throw new ApiError('VALIDATION_ERROR', 'The CSV is empty: it needs a header row of column names and at least one record', { field: 'body', line: 1 });
  const names = header.record.map((name) => name ?? '');
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new ApiError('VALIDATION_ERROR', `The CSV header names ${duplicate} twice`, { field: duplicate, line: 1 });
  const bodies: Body[] = [];
  const lines: number[] = [];
  let end = header.info.lines;
  let empty = header.info.empty_lines;
  for (const row of rows) {
    // A record starts on the line after the previous one ends, past the empty lines skipped between them.
    lines.push(end + 1 + (row.info.empty_lines - empty));
    ({ lines: end, empty_lines: empty } = row.info);
    const body: Body = {};
    row.record.forEach((value, index) => {
      if (value !== undefined) body[names[index]!] = value;
    });
    bodies.push(body);
  }
  linesOf.set(bodies, lines);
  return bodies;
}

/**
 * The bodies as the table reads them: the header's names must be its columns (400 naming the first that is not, on
 * line 1) and json cells are parsed from their JSON text. A new array (with the same lines): a retry reads them again.
 */
export function csvCells(table: TableSchema, bodies: Body[]): Body[] {
  const lines = csvLines(bodies);
  const names = new Set(bodies.flatMap((body) => Object.keys(body)));
  for (const name of names) {
    if (!table.columns.has(name)) throw new ApiError('VALIDATION_ERROR', `The CSV header names ${name}, which is not a column of ${table.name}`, { field: name, line: 1 });
  }
  const json = table.columnList.filter((column) => column.type === 'json' && names.has(column.name));
  const read = bodies.map((body, index) => {
    if (json.length === 0) return body;
    const cells = { ...body };
    for (const column of json) {
      const text = cells[column.name];
      if (typeof text !== 'string') continue;
      try {
        cells[column.name] = JSON.parse(text);
      } catch {
        throw new ApiError('VALIDATION_ERROR', `Record ${index}: ${column.name} must be JSON text`, { index, field: column.name, ...(lines ? { line: lines[index] } : {}) });
      }
    }
    return cells;
  });
  if (lines) linesOf.set(read, lines);
  return read;
}

/** An error about a CSV body's element, with the line it starts on. */
export function withCsvLine(error: unknown, bodies: unknown): unknown {
  const lines = csvLines(bodies);
  if (!lines || !(error instanceof ApiError) || typeof error.details?.index !== 'number' || error.details.line !== undefined) return error;
  return new ApiError(error.code, error.message, { ...error.details, line: lines[error.details.index] });
}
