import { ApiError, conflict, referenceConflict, referenceRefused } from '../errors.js';

/** The fields of a node-postgres DatabaseError this translator reads. */
interface PgErrorLike {
  code?: string;
  table?: string;
  column?: string;
  constraint?: string;
  detail?: string;
}

const VALUE_ERRORS: Record<string, string> = {
  '23502': 'is required',
  '23514': 'fails a check constraint',
  '22P02': 'has an invalid value',
  '22P05': 'has a value that cannot be stored',
  '22003': 'is out of range',
  '22001': 'is too long',
  '22007': 'has an invalid date or time',
  '22008': 'has an out-of-range date or time',
  '22021': 'has an invalid character',
  '54001': 'is too deeply nested',
};

const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Knex: Timeout acquiring a connection',
];

/** `Key (email)=(a@b.c) already exists.` -> `email` (the column names of the first key). */
function columnFromDetail(detail: string | undefined): string | undefined {
  const match = detail ? /^Key \(([^)]+)\)=/.exec(detail) : null;
  return match?.[1]?.split(',')[0]?.trim().replace(/^"|"$/g, '');
}

export function isConnectionFailure(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message, severity } = error as { code?: unknown; message?: unknown; severity?: unknown };
  // A FATAL error ends the session (the server refused or dropped the connection); class 08 is "connection exception".
  if (severity === 'FATAL') return true;
  if (typeof code === 'string' && (CONNECTION_ERRORS.has(code) || UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return typeof message === 'string' && CONNECTION_MESSAGES.some((text) => message.includes(text));
}

/**
 * Turns a database error into the documented envelope. Driver text never reaches a response; what is not recognised
 * is left for the error handler to answer as a generic 500.
 */
export function translateDatabaseError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (isConnectionFailure(error)) return new ApiError('UNAVAILABLE', 'The database is unavailable; try again shortly');
  if (!error || typeof error !== 'object') return undefined;
  const pgError = error as PgErrorLike;
  // 57014: cancelled, here by STATEMENT_TIMEOUT (the service cancels nothing else).
  if (pgError.code === '57014') return new ApiError('TIMEOUT', 'The query ran longer than the statement timeout; narrow it or add an index');
  // A deadlock's victim or a serialization failure (record statements are retried once first): nothing was written.
  if (pgError.code === '40P01' || pgError.code === '40001') return new ApiError('UNAVAILABLE', 'The database was busy with a conflicting change; try again');
  if (typeof pgError.code !== 'string' || pgError.code.length !== 5) return undefined;
  const column = pgError.column ?? columnFromDetail(pgError.detail);
  if (pgError.code === '23505') {
    return conflict(`${pgError.table ?? 'record'}.${column ?? 'id'}`);
  }
  if (pgError.code === '23503') {
    if (pgError.detail?.includes('is still referenced')) {
      // The record pipeline names the referencing column; anything else that reaches here names its table.
      return referenceConflict(pgError.table ?? 'record', 'The record is still referenced by another record');
    }
    return column ? referenceRefused(column) : new ApiError('VALIDATION_ERROR', 'A column refers to a record that does not exist');
  }
  const problem = VALUE_ERRORS[pgError.code];
  if (problem) {
    return new ApiError('VALIDATION_ERROR', `${column ?? 'A value'} ${problem}`, column ? { field: column } : undefined);
  }
  return undefined;
}
