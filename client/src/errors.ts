import type { ErrorBody, ErrorCode } from '@basalt/contract';

/**
 * Every error the service answers with, as one class: the HTTP status and the envelope's `code`, `message` and
 * `details`. Callers branch on `code` (stable) rather than on `message` (human text).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** The `x-request-id` the server answered with, to find the request in its logs. */
  readonly requestId: string | undefined;
  /** On a 429 RATE_LIMITED: whole seconds to wait before trying again (the `Retry-After` header). */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: ErrorCode, message: string, details?: Record<string, unknown>, requestId?: string, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
  }
}

/**
 * The request never got an HTTP answer: offline, DNS, connection refused, CORS refusal, or a timeout. Kept apart from
 * `ApiError` because the right reaction differs: retry later, and never treat it as "signed out".
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export function isNetworkError(error: unknown): error is NetworkError {
  return error instanceof NetworkError;
}

/**
 * A response that is not the service's envelope (a proxy's HTML 502, say) still becomes an ApiError, with the code
 * that the status most plausibly means, so callers need only one error type for every HTTP failure.
 */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 429:
      return 'RATE_LIMITED';
    case 502:
    case 503:
    case 504:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `Retry-After` as seconds: a whole number, or an HTTP date (as a proxy may send); anything else is ignored. */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date: `Wed, 21 Oct 2015 07:28:00 GMT`.
  if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Builds the ApiError for a non-2xx response from its parsed body (or `undefined` when it was not JSON). */
export function errorFromResponse(status: number, body: unknown, requestId?: string, retryAfter?: number): ApiError {
  // Checked field by field: a proxy's page or an older server may send anything, typed or not.
  const envelope: Partial<Record<keyof ErrorBody['error'], unknown>> | undefined = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  // A code this version does not know yet is passed through: a newer server may add codes.
  if (envelope && typeof envelope.code === 'string') {
    const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`;
    const details = isRecord(envelope.details) ? envelope.details : undefined;
    return new ApiError(status, envelope.code as ErrorCode, message, details, requestId, retryAfter);
  }
  return new ApiError(status, codeForStatus(status), `Unexpected response from the server (HTTP ${status})`, undefined, requestId, retryAfter);
}
