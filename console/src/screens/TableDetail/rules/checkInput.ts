import type { RuleCheckInput, RuleCheckOperation as CheckOperation } from '@basalt/contract';

/** `as`: a user's id, or anon. */
type Caller = string;

/** The "view as" check form's fields, as typed. */
export interface CheckForm {
  as: Caller;
  operation: CheckOperation;
  id: string;
  record: string;
}

export type CheckInputResult = { ok: true; input: RuleCheckInput } | { ok: false; field: 'id' | 'record'; problem: string };

/** Whether an operation is about an existing row (its id) and whether it takes the values written (a record). */
export const takesId = (operation: CheckOperation) => operation !== 'create';
export const takesRecord = (operation: CheckOperation) => operation === 'create' || operation === 'update';

/**
 * The body of `POST /admin/tables/:name/rules/check` from the form, or the field to fix first: an id for read, update
 * and delete (as text, whatever the id's type: the server coerces it as a path id), and for create and update an
 * optional record as a JSON object (for update, the values written over the row, which `updateCheck` sees).
 */
export function checkInputOf(form: CheckForm): CheckInputResult {
  const input: RuleCheckInput = { as: form.as, operation: form.operation };
  if (takesId(form.operation)) {
    const id = form.id.trim();
    if (id === '') return { ok: false, field: 'id', problem: 'Which row? Type its id, or use Check beside a row above.' };
    input.id = id;
  }
  if (takesRecord(form.operation) && form.record.trim() !== '') {
    let record: unknown;
    try {
      record = JSON.parse(form.record);
    } catch {
      return { ok: false, field: 'record', problem: 'The record is not valid JSON: write an object, e.g. {"title": "Hello"}.' };
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      return { ok: false, field: 'record', problem: 'The record is one JSON object of column values, e.g. {"title": "Hello"}.' };
    }
    input.record = record as Record<string, unknown>;
  }
  return { ok: true, input };
}
