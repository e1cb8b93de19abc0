import { isApiError, isNetworkError } from '@basalt/client';
import { API_URL } from './apiUrl';
import { conflictMessage } from './conflicts';
import { waitText } from './waitText';

export const MFA_REQUIRED_TEXT =
  'This needs a session signed in with your two-step code, and this one was opened without it: sign out and sign in again with your code to change this.';

/** One sentence a person can act on, for any failure the client can throw. */
export function describeError(error: unknown): string {
  if (isNetworkError(error)) return `Cannot reach the API at ${API_URL}. Check that the server is running and reachable.`;
  if (isApiError(error)) {
    if (error.code === 'UNAVAILABLE') return 'The API is up but its database is unavailable. Try again shortly.';
    // With two-step sign-in on, a session opened without the code may not change what guards the account.
    if (error.code === 'MFA_REQUIRED') return MFA_REQUIRED_TEXT;
    if (error.code === 'RATE_LIMITED') return `Too many attempts. Try again in ${waitText(error.retryAfter)}.`;
    if (error.code === 'INTERNAL_ERROR') {
      // The request id is what an operator needs to find the failure in the server's log.
      return `The server failed to answer${error.requestId ? ` (request ${error.requestId})` : ''}.`;
    }
    // A 409 reference conflict names the column still pointing at the row (or table) being deleted.
    if (error.code === 'CONFLICT') return conflictMessage(error.message, error.details);
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function isUnauthorized(error: unknown): boolean {
  return isApiError(error) && error.status === 401;
}

/**
 * The form field a server error is about: `details.field` for a body, `details.parameter` for a query, and the column
 * of a 409 (`<table>.<column>`). Undefined when the error is about the request as a whole.
 */
export function fieldOfError(error: unknown): string | undefined {
  if (!isApiError(error) || !error.details) return undefined;
  const { field, parameter, column } = error.details;
  if (typeof field === 'string') return field;
  if (typeof parameter === 'string') return parameter;
  if (error.code === 'CONFLICT' && typeof column === 'string') return column.split('.').pop();
  return undefined;
}

/** Field errors keyed by field name, as both the console's checks and the server's answers produce them. */
export type FieldErrors = Record<string, string>;

/** Splits a server error into "on a field" and "about the whole form", so each shows where the user looks. */
export function splitError(error: unknown, fieldNames: readonly string[], alias: Record<string, string> = {}): {
  fields: FieldErrors;
  form: string | undefined;
} {
  if (!error) return { fields: {}, form: undefined };
  const raw = fieldOfError(error);
  const field = raw === undefined ? undefined : (alias[raw] ?? raw);
  if (field !== undefined && fieldNames.includes(field)) return { fields: { [field]: describeError(error) }, form: undefined };
  return { fields: {}, form: describeError(error) };
}
