import { APIKEY_HEADER, laterLsn, LSN_HEADER, MIN_LSN_HEADER, REQUEST_ID_HEADER } from '@basalt/contract';
import { ApiError, NetworkError, errorFromResponse, parseRetryAfter } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type QueryValue = string | number | boolean | Date;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Starts with `/`; segments taken from user input must already be encoded (see `segment`). */
  path: string;
  query?: Record<string, QueryValue | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is instead of `body`, with its media type (a CSV import). */
  content?: { type: string; text: string } | undefined;
  /**
   * The media type the answer is asked in when it is not JSON (`text/csv`): a 2xx body is then answered as its text,
   * unparsed. Error answers are the JSON envelope either way.
   */
  accept?: string | undefined;
  /** Access token, or undefined for an anonymous call (then the anon key alone, if any, is sent). */
  accessToken?: string | undefined;
  /** Auth endpoints ignore credentials; sending none keeps a stale token from ever mattering there. */
  credentials?: boolean;
  signal?: AbortSignal;
}

/** A request whose body or answer is not JSON (files): sent with the same credentials and read-your-writes header. */
export interface RawRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT';
  path: string;
  query?: HttpRequest['query'];
  headers?: Record<string, string>;
  /** A stream is sent with `duplex: 'half'` (fetch's rule for request streams). */
  body?: Blob | ReadableStream<Uint8Array> | null;
  accessToken?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface HttpResponse<T> {
  status: number;
  body: T;
  /** The answer's headers (`Link`, `X-Total-Count`, ...). */
  headers: Headers;
}

/** Encodes one path segment (a table name, an id), so `a/b` or `?` in an id cannot change the route. */
export function segment(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** A body parsed as JSON, or undefined when it is empty or not JSON (a proxy's page). */
export function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export function formatQueryValue(value: QueryValue): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * The one place that speaks HTTP: builds the URL and headers, sends, and turns every failure into either an ApiError
 * (the server answered) or a NetworkError (it did not). It knows nothing about sessions or refresh.
 */
export class Http {
  private readonly baseUrl: string;
  /**
   * The latest `Basalt-Lsn` a write answered (a server with read replicas sends it): every later request carries it
   * as `Basalt-Min-Lsn`, so this client always reads its own writes, whichever process or standby answers.
   */
  private lsn: string | null = null;

  constructor(
    baseUrl: string,
    private readonly anonKey: string | undefined,
    /** The fetch every request goes through (resumable uploads use it too, outside browsers). */
    readonly fetchImpl: FetchLike,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** The log position this client's reads ask for (`Basalt-Min-Lsn`), or null before any write answered one. */
  get minLsn(): string | null {
    return this.lsn;
  }

  url(path: string, query?: HttpRequest['query']): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.append(key, formatQueryValue(value));
    }
    const search = params.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  /** A long-lived GET whose body the caller reads as a stream (realtime): the raw response, or a NetworkError. */
  async open(path: string, query: HttpRequest['query'], accessToken: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.anonKey) headers[APIKEY_HEADER] = this.anonKey;
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    try {
      return await this.fetchImpl(this.url(path, query), { method: 'GET', headers, signal });
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new NetworkError(`GET ${path} failed: ${reason}`, { cause });
    }
  }

  /** What every request carries: the read-your-writes position and, unless told otherwise, the credentials. */
  headers(accessToken: string | undefined, credentials = true): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.lsn) headers[MIN_LSN_HEADER] = this.lsn;
    if (credentials) {
      if (this.anonKey) headers[APIKEY_HEADER] = this.anonKey;
      if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    }
    return headers;
  }

  /** Remembers a write's `Basalt-Lsn` (requests that do not go through `send`: uploads by XHR or tus). */
  noteLsn(written: string | null | undefined): void {
    if (written) this.lsn = laterLsn(this.lsn, written);
  }

  /**
   * A request whose body or answer is not JSON: the Response itself when it is a 2xx; an ApiError from the envelope
   * otherwise; a NetworkError when no answer came. Aborting through `signal` rejects with the signal's reason.
   */
  async raw(request: RawRequest): Promise<Response> {
    const headers = { ...this.headers(request.accessToken), ...request.headers };
    const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers, signal: request.signal };
    if (request.body) {
      init.body = request.body;
      if (!(request.body instanceof Blob)) init.duplex = 'half';
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.url(request.path, request.query), init);
    } catch (cause) {
      if (request.signal?.aborted) throw request.signal.reason;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new NetworkError(`${request.method} ${request.path} failed: ${reason}`, { cause });
    }
    this.noteLsn(response.headers.get(LSN_HEADER));
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    throw errorFromResponse(response.status, parseJson(text), response.headers.get(REQUEST_ID_HEADER) ?? undefined, parseRetryAfter(response.headers.get('retry-after')));
  }

  async send<T>(request: HttpRequest): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { accept: request.accept ?? 'application/json', ...this.headers(request.accessToken, request.credentials !== false) };
    let body: string | undefined;
    if (request.content) {
      headers['content-type'] = request.content.type;
      body = request.content.text;
    } else if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.url(request.path, request.query), {
        method: request.method,
        headers,
        body,
        signal: request.signal,
      });
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new NetworkError(`${request.method} ${request.path} failed: ${reason}`, { cause });
    }
    const requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
    this.noteLsn(response.headers.get(LSN_HEADER));
    let text: string;
    try {
      text = await response.text();
    } catch (cause) {
      throw new NetworkError(`${request.method} ${request.path}: reading the response failed`, { cause });
    }
    if (response.ok && request.accept !== undefined) return { status: response.status, body: text as T, headers: response.headers };
    // A body that is not JSON is the server's (or a proxy's) answer, not a network failure.
    const parsed = parseJson(text);
    if (!response.ok) throw errorFromResponse(response.status, parsed, requestId, parseRetryAfter(response.headers.get('retry-after')));
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ApiError(response.status, 'INTERNAL_ERROR', 'The server answered without a JSON body', undefined, requestId);
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }
}
