import type { ValidateFunction } from 'ajv';
import type supertest from 'supertest';
import { expect } from 'vitest';
import { errorOf } from '../harness.js';
import type { DocumentSchemas } from './validator.js';

/**
 * One edge case of the document (edges.test.ts, email-edges.test.ts): every value the service refuses is refused by
 * the schema the document gives it, and every value the document admits the service takes.
 */

export interface Case<T> {
  /** The document's schema of the value. */
  schema: () => ValidateFunction;
  /** Sends a request carrying the value. */
  send: (value: T) => Promise<supertest.Response>;
  /** The parameter or field a refusal names. */
  named: string;
  refused: T[];
  admitted: T[];
  /** What an admitted value may answer besides a success (an unknown table's 404: not a refusal of the value). */
  alsoFine?: number[];
}

/** Both directions of one case: refused values by the schema and by the service (400 naming it), admitted by both. */
export async function holdsIn<T>(schemas: DocumentSchemas, { schema, send, named, refused, admitted, alsoFine = [] }: Case<T>): Promise<void> {
  const validate = schema();
  for (const value of refused) {
    const shown = JSON.stringify(value);
    expect(validate(value), `the document admits ${shown}`).toBe(false);
    const response = await send(value);
    expect(response.status, `the service takes ${shown}: ${JSON.stringify(response.body)}`).toBe(400);
    const details = errorOf(response).details ?? {};
    expect(details.parameter ?? details.field, shown).toBe(named);
  }
  for (const value of admitted) {
    const shown = JSON.stringify(value);
    expect(validate(value), `the document refuses ${shown}: ${schemas.errors(validate)}`).toBe(true);
    const response = await send(value);
    expect(response.status < 300 || alsoFine.includes(response.status), `the service refuses ${shown}: ${response.status} ${JSON.stringify(response.body)}`).toBe(true);
  }
}
