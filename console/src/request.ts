import { ApiError, NetworkError } from '@basalt/client';
import { REQUEST_ID_HEADER, type ErrorCode } from '@basalt/contract';
import { API_URL } from './apiUrl';

/**
 * A public JSON request (no credentials) outside the console's client, failing the way the client fails: an ApiError
 * when the server answered, a NetworkError when it did not, so `describeError` and the forms' field errors treat both
 * alike. The confirm page uses it: it must not construct the console's client (which reads the stored session and
 * may refresh it on load), and the client library has no method for `POST /auth/otp/code`.
 */
export interface JsonRequest {
  method: 'GET' | 'POST';
  /** Starts with `/`; segments taken from data must already be encoded. */
  path: string;
  body?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'UNAVAILABLE',
};

/** The ApiError of a non-2xx answer from its parsed body (undefined when it was not JSON). */
export function errorOfAnswer(status: number, body: unknown, requestId?: string, retryAfter?: string | null): ApiError {
  const seconds = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
  const envelope = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (envelope && typeof envelope.code === 'string') {
    const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`;
    const details = isRecord(envelope.details) ? envelope.details : undefined;
    return new ApiError(status, envelope.code as ErrorCode, message, details, requestId, seconds);
  }
  // The code the status most plausibly means, as the client library decides it.
  const code = STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
  return new ApiError(status, code, `Unexpected response from the server (HTTP ${status})`, undefined, requestId, seconds);
}

/** Sends the request and answers its parsed body (`{ data }`, or `{ data, total }` for a list). */
export async function requestJson<T>(request: JsonRequest): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${API_URL}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (cause) {
    throw new NetworkError(`${request.method} ${request.path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  const text = await response.text().catch((cause: unknown) => {
    throw new NetworkError(`${request.method} ${request.path}: reading the response failed`, { cause });
  });
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
  if (!response.ok) throw errorOfAnswer(response.status, parsed, requestId, response.headers.get('retry-after'));
  if (!isRecord(parsed)) throw new ApiError(response.status, 'INTERNAL_ERROR', 'The server answered without a JSON body', undefined, requestId);
  return parsed as T;
}
