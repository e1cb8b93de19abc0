import type { RecordAction } from './parse.js';
import type { Outcome } from './execute/index.js';

/** Stage 6 of the record pipeline: what happened -> the status and the `{ data }` body. */

export interface Answer {
  status: number;
  body: { data: unknown; total?: number; totalExact?: boolean; next?: string | null };
}

export function respond(action: RecordAction, outcome: Outcome): Answer {
  if (outcome.kind === 'page') {
    const body: Answer['body'] = { data: outcome.rows };
    if (outcome.total !== undefined) body.total = outcome.total;
    if (outcome.totalExact !== undefined) body.totalExact = outcome.totalExact;
    body.next = outcome.next;
    return { status: 200, body };
  }
  if (outcome.kind === 'records') return { status: 201, body: { data: outcome.rows } };
  // POST always creates; PUT says which it did; reads and deletes answer the record as it is (or was).
  const status = action === 'create' || (action === 'upsert' && outcome.created) ? 201 : 200;
  return { status, body: { data: outcome.row } };
}
