import type { RecordAction } from './parse.js';
import type { Outcome } from './execute/index.js';
import { csvOf, type CsvColumn } from './csv/export.js';

/**
 * Stage 6 of the record pipeline: what happened -> the status and the `{ data }` body, or a page as CSV when the
 * caller asked for it (csv/export.ts); the routes write either (routes.ts, sendAnswer).
 */

export interface Answer {
  status: number;
  body: { data: unknown; total?: number; totalExact?: boolean; next?: string | null };
  /** A page as CSV: its text (the body's `total` and `next` become headers). */
  csv?: string;
}

export function respond(action: RecordAction, outcome: Outcome, csv?: CsvColumn[] | null): Answer {
  if (outcome.kind === 'page') {
    if (csv) {
      const body: Answer['body'] = { data: null, next: outcome.next, ...(outcome.total !== undefined ? { total: outcome.total } : {}) };
      return { status: 200, body, csv: csvOf(csv, outcome.rows) };
    }
    const body: Answer['body'] = { data: outcome.rows };
    if (outcome.total !== undefined) body.total = outcome.total;
    if (outcome.totalExact !== undefined) body.totalExact = outcome.totalExact;
    body.next = outcome.next;
    return { status: 200, body };
  }
  if (outcome.kind === 'matched') return { status: 200, body: { data: { matched: outcome.matched } } };
  // A bulk insert creates (201); a change by filter answers the rows it changed or deleted (200).
  if (outcome.kind === 'records') return { status: outcome.changed ? 200 : 201, body: { data: outcome.rows } };
  // POST creates (with onConflict it may update: 200) and PUT says which it did; reads, updates and deletes answer
  // the record as it is (or was).
  const status = (action === 'create' || action === 'upsert') && outcome.created ? 201 : 200;
  return { status, body: { data: outcome.row } };
}

