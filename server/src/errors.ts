import { ERROR_STATUS, type ConflictDetails, type ErrorBody, type ErrorCode, type ForbiddenDetails, type LimitName, type RateLimitedDetails, TOKEN_EXPIRED_REASON, type ValidationDetails } from '@basalt/contract';

/**
 * The one error type of the service: a code from the contract, a message for people, optional details. A leaf:
 * domain code throws it without knowing HTTP; `http/` turns it into the envelope.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

const details = <T extends object>(value: T): Record<string, unknown> => ({ ...value }) as Record<string, unknown>;

export const invalidParameter = (parameter: string, message: string) =>
  new ApiError('VALIDATION_ERROR', message, details<ValidationDetails>({ parameter }));

export const invalidField = (field: string, message: string) => new ApiError('VALIDATION_ERROR', message, details<ValidationDetails>({ field }));

/** A refusal of the body as a whole (not JSON, not an object, too deep): it names the field `body`. */
export const invalidBody = (message: string) => invalidField('body', message);

export const unauthorized = (message = 'Missing or invalid credentials') => new ApiError('UNAUTHORIZED', message);

/** A valid access token whose account was deleted since: 401 on every write and on the signed-in /auth routes. */
export const accountGone = () => unauthorized('The account of this token no longer exists');

export const tokenExpired = () =>
  new ApiError('UNAUTHORIZED', 'The access token has expired; refresh it', { reason: TOKEN_EXPIRED_REASON });

/** A path segment that is not valid percent-encoding (`%E0%A4`, `%zz`). */
export const invalidPathEncoding = () => new ApiError('VALIDATION_ERROR', 'The path is not valid percent-encoding');

export const notFound = (message = 'Not found') => new ApiError('NOT_FOUND', message);

export const conflict = (column: string, message = `A record with this ${column.split('.').pop()} already exists`, index?: number) =>
  new ApiError('CONFLICT', message, details<ConflictDetails>(index === undefined ? { constraint: 'unique', column } : { constraint: 'unique', column, index }));

/**
 * A reference to a row that does not exist, or that the writer may not read: the same answer for both, so a write
 * never tells whether another user's row exists.
 */
export const referenceRefused = (column: string, index?: number) =>
  new ApiError(
    'VALIDATION_ERROR',
    `${index === undefined ? '' : `Record ${index}: `}${column} refers to a record that does not exist or that you cannot read`,
    details<ValidationDetails>(index === undefined ? { field: column } : { index, field: column }),
  );

/** A 409: a row or table is still referenced from `<table>.<column>`. */
export const referenceConflict = (column: string, message: string) =>
  new ApiError('CONFLICT', message, details<ConflictDetails>({ constraint: 'reference', column }));

/** A drop that would break a rule: 409 naming the rule (`<table>.rules.<member>`). */
export const ruleConflict = (rule: string, message: string) => new ApiError('CONFLICT', message, details<ConflictDetails>({ constraint: 'rule', column: rule }));

/** A 403 of the record API: which rule refused the caller. */
export const forbidden = (message: string, refusal: ForbiddenDetails) => new ApiError('FORBIDDEN', message, details<ForbiddenDetails>(refusal));

/**
 * The column and value of a unique violation (23505), from the driver's error: `Key (email)=(a@b.c) already exists.`
 * Only the first column of a composite key is named.
 */
export function uniqueKeyOf(error: unknown): { column: string; value: string } | undefined {
  const { code, detail, column } = (error ?? {}) as { code?: unknown; detail?: unknown; column?: unknown };
  if (code !== '23505' || typeof detail !== 'string') return undefined;
  const match = /^Key \(([^)]+)\)=\((.*)\) already exists\.?$/s.exec(detail);
  if (!match) return typeof column === 'string' ? { column, value: '' } : undefined;
  const name = match[1]!.split(',')[0]!.trim().replace(/^"|"$/g, '');
  return { column: typeof column === 'string' ? column : name, value: match[1]!.includes(',') ? '' : match[2]! };
}

/** A 429: `retryAfter` whole seconds go into `Retry-After` too (http/handler.ts). */
export const rateLimited = (limit: LimitName, retryAfter: number) =>
  new ApiError('RATE_LIMITED', `Too many attempts; try again in ${retryAfter} s`, details<RateLimitedDetails>({ limit, retryAfter }));
