import { LSN_HEADER, REQUEST_ID_HEADER, TRANSFORM_PARAMETERS, type DataResponse, type FileRecord, type TransformOptions } from '@basalt/contract';
import { NetworkError, errorFromResponse, parseRetryAfter } from './errors.js';
import { parseJson, segment, type Http, type QueryValue } from './http.js';
import { counted, progressReporter, type UploadProgress } from './progress.js';
import type { StreamCredentials } from './realtime.js';
import { isTokenExpired, type Send } from './transport.js';
import { resumableUpload } from './tus.js';
import type { UntypedRow } from './types.js';

export type { UploadProgress };

/**
 * Files (API.md, "Files: a bucket is a table whose rows are files"): the bytes of a bucket's rows through
 * `/files/:table`, for `client.from(bucket)`. The rows themselves are the record API's (`list`, `get`, `delete`, ...).
 */

/** What `upload` and `replace` take: a Blob or File, bytes, or a stream (one request, never resumable). */
export type FileBody = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

export interface ReplaceOptions<Metadata = UntypedRow> {
  /**
   * The file's name (1-255 UTF-8 bytes, no control characters, `/` or `\`). Default: a File's own name; else the
   * server's `file` on upload, and the name kept on replace.
   */
  name?: string;
  /** The `Content-Type` hint (Basalt finds the type in the bytes; the hint only refines text). Default: the Blob's type. Not sent by tus. */
  contentType?: string;
  /**
   * The bucket's own columns. Sent as text (query parameters or tus metadata): a Date as ISO 8601, an object or array
   * as JSON; a json column's string value must be JSON text (`'"red"'`). null and undefined are not sent.
   */
  metadata?: Metadata;
  onProgress?: UploadProgress;
  /** Aborting rejects with the signal's reason; a resumable upload is also deleted on the server. */
  signal?: AbortSignal;
}

export interface UploadOptions<Metadata = UntypedRow> extends ReplaceOptions<Metadata> {
  /**
   * true: the tus protocol (a dropped connection resumes where the server's copy ends, within this call); false: one
   * request. Default: resumable when the size is above the client's `resumableAbove` (6 MiB unless set).
   */
  resumable?: boolean;
  /** Resumable only: bytes per PATCH request. Default: the rest of the file in one request (set it behind proxies that cap bodies). */
  chunkSize?: number;
}

export interface DownloadOptions {
  /** An image variant (`width`, `height`, `fit`, `format`, `quality`), made once by the server and cached. */
  transform?: TransformOptions;
  /** Bytes `start` to `end` (inclusive, as HTTP counts; default: to the end): the server answers 206. */
  range?: { start: number; end?: number };
  signal?: AbortSignal;
}

export interface UrlOptions {
  transform?: TransformOptions;
  /** Seconds a signed link lives (at most 7 days, `MAX_SIGNED_LINK_SECONDS`). Default 3600. */
  expiresIn?: number;
  /**
   * true: the plain URL without asking (the bucket's read rule is `true` for anon); false: always a signed link.
   * Default: asked of the server (see `url`).
   */
  public?: boolean;
}

/** A row as the bucket answers it: the generated Row, or the file columns when the table is untyped. */
export type FileRow<Row> = string extends keyof Row ? FileRecord : Row;

/** Bytes at which `upload` turns resumable by default. */
export const DEFAULT_RESUMABLE_ABOVE = 6 * 1024 * 1024;
/** How long a link from `url()` lives when it has to be signed. */
export const DEFAULT_URL_EXPIRES_IN = 3600;
/** How long the answer "is this bucket public" is trusted before `url()` asks again. */
export const PUBLICITY_TTL_MS = 60_000;

/** What every bucket of one client shares. */
export interface FilesContext {
  http: Http;
  send: Send;
  credentials: StreamCredentials;
  resumableAbove: number;
  /** Per bucket: whether its read rule is `true` for anon (the server's `Cache-Control: public`), and until when. */
  publicity: Map<string, { answer: Promise<boolean>; until: number }>;
}

/** The body to send, whatever form it came in: a Blob where possible (sizes known, resendable), else the stream. */
interface Prepared {
  blob: Blob | null;
  stream: ReadableStream<Uint8Array> | null;
  size: number | null;
  type: string;
  name: string | undefined;
}

function prepare(file: FileBody): Prepared {
  if (file instanceof Blob) {
    const name = (file as { name?: unknown }).name;
    return { blob: file, stream: null, size: file.size, type: file.type, name: typeof name === 'string' && name ? name : undefined };
  }
  if (file instanceof Uint8Array || file instanceof ArrayBuffer) {
    const blob = new Blob([file as BlobPart]);
    return { blob, stream: null, size: blob.size, type: '', name: undefined };
  }
  if (typeof ReadableStream !== 'undefined' && file instanceof ReadableStream) return { blob: null, stream: file, size: null, type: '', name: undefined };
  throw new TypeError('A file is a Blob (or File), a Uint8Array, an ArrayBuffer or a ReadableStream');
}

/** A metadata value as the server reads it from text (json columns parse it). */
export function fieldText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `name` and the metadata columns as text; the `name` option wins over a metadata key of that name. */
export function uploadFields(name: string | undefined, metadata: object | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    const text = fieldText(value);
    if (text !== undefined) fields[key] = text;
  }
  if (name !== undefined) fields.name = name;
  return fields;
}

/** The transform's query parameters in the contract's order; undefined ones left out. */
export function transformQuery(transform: TransformOptions | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const parameter of TRANSFORM_PARAMETERS) {
    const value = transform?.[parameter];
    if (value !== undefined) query[parameter] = value;
  }
  return query;
}

/** The `{ data }` of a JSON answer. */
async function dataOf<T>(response: Response, what: string): Promise<T> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw new NetworkError(`${what}: reading the response failed`, { cause });
  }
  const parsed = parseJson(text) as DataResponse<T> | undefined;
  if (!parsed || typeof parsed !== 'object' || !('data' in parsed)) throw errorFromResponse(500, undefined, response.headers.get(REQUEST_ID_HEADER) ?? undefined);
  return parsed.data;
}

/** Whether uploads may report progress through XMLHttpRequest (browsers: fetch cannot report an upload's progress). */
function hasXhr(): boolean {
  return typeof XMLHttpRequest === 'function';
}

/** One upload request through XMLHttpRequest, for its upload progress; answers like `Http.raw` would. */
function xhrSend(
  http: Http,
  request: { method: 'POST' | 'PUT'; path: string; query: Record<string, string>; headers: Record<string, string>; body: Blob; accessToken: string | undefined; signal?: AbortSignal | undefined },
  report: (sent: number) => void,
): Promise<{ status: number; text: string; header(name: string): string | null }> {
  return new Promise((resolve, reject) => {
    const signal = request.signal;
    if (signal?.aborted) return reject(signal.reason);
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, http.url(request.path, request.query));
    for (const [name, value] of Object.entries({ ...http.headers(request.accessToken), ...request.headers })) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => report(event.loaded);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    xhr.onload = () => {
      settle();
      resolve({ status: xhr.status, text: xhr.responseText, header: (name) => xhr.getResponseHeader(name) });
    };
    xhr.onerror = () => {
      settle();
      reject(new NetworkError(`${request.method} ${request.path} failed`));
    };
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => {
      settle();
      reject(signal?.reason ?? new NetworkError(`${request.method} ${request.path} was aborted`));
    };
    xhr.send(request.body);
  });
}

/**
 * The file operations of one bucket. Requests carry the caller's credentials in headers (never in the URL); an
 * expired token is refreshed once and the request sent again, except a stream's, which cannot be sent twice.
 */
export class Bucket<Row> {
  private readonly path: string;

  constructor(
    private readonly context: FilesContext,
    private readonly table: string,
  ) {
    this.path = `/files/${segment(table)}`;
  }

  private filePath(id: string | number): string {
    return `${this.path}/${segment(id)}`;
  }

  /** Runs `attempt` with the current token; on a `token_expired` 401, once more after the shared refresh. */
  private async authorized<T>(attempt: (token: string | undefined) => Promise<T>, repeatable = true): Promise<T> {
    const { credentials } = this.context;
    const token = await credentials.token();
    try {
      return await attempt(token);
    } catch (error) {
      if (!repeatable || !isTokenExpired(error) || !(await credentials.refresh(token))) throw error;
      return attempt(await credentials.token());
    }
  }

  async upload(file: FileBody, options: UploadOptions<object> = {}): Promise<FileRow<Row>> {
    const body = prepare(file);
    const resumable = options.resumable ?? (body.size !== null && body.size > this.context.resumableAbove);
    if (!resumable) return this.sendOnce('POST', this.path, body, options);
    if (!body.blob) throw new TypeError('A stream is uploaded in one request: pass a Blob (in Node, fs.openAsBlob) for a resumable upload');
    const report = progressReporter(options.onProgress, body.size);
    const id = await resumableUpload(this.context, this.table, body.blob, uploadFields(options.name ?? body.name, options.metadata), {
      onProgress: report.sent,
      signal: options.signal,
      chunkSize: options.chunkSize,
    });
    const row = await this.context.send<DataResponse<FileRow<Row>>>({ method: 'GET', path: `/api/${segment(this.table)}/${segment(id)}` });
    report.done(body.size!);
    return row.data;
  }

  replace(id: string | number, file: FileBody, options: ReplaceOptions<object> = {}): Promise<FileRow<Row>> {
    return this.sendOnce('PUT', this.filePath(id), prepare(file), options);
  }

  /** `POST /files/:table` or `PUT /files/:table/:id` with the file as the body and the fields in the query. */
  private async sendOnce(method: 'POST' | 'PUT', path: string, body: Prepared, options: ReplaceOptions<object>): Promise<FileRow<Row>> {
    const { http } = this.context;
    const query = uploadFields(options.name ?? body.name, options.metadata);
    const type = options.contentType ?? body.type;
    const headers: Record<string, string> = { accept: 'application/json', ...(type ? { 'content-type': type } : {}) };
    const what = `${method} ${path}`;
    const attempt = async (accessToken: string | undefined): Promise<FileRow<Row>> => {
      const report = progressReporter(options.onProgress, body.size);
      const signal = options.signal;
      let row: FileRow<Row>;
      if (body.blob && options.onProgress && hasXhr()) {
        const answer = await xhrSend(http, { method, path, query, headers, body: body.blob, accessToken, signal }, report.sent);
        http.noteLsn(answer.header(LSN_HEADER));
        const parsed = parseJson(answer.text) as DataResponse<FileRow<Row>> | undefined;
        if (answer.status < 200 || answer.status > 299 || !parsed) {
          throw errorFromResponse(answer.status, parsed, answer.header(REQUEST_ID_HEADER) ?? undefined, parseRetryAfter(answer.header('retry-after')));
        }
        row = parsed.data;
      } else {
        let sent: Blob | ReadableStream<Uint8Array> = body.blob ?? body.stream!;
        if (options.onProgress) {
          // Counted as fetch takes the bytes; the length is declared so the server can refuse an oversized file at once
          // (Node's fetch sends it; browsers, which set it themselves, use XMLHttpRequest above).
          sent = counted(body.blob ? body.blob.stream() : body.stream!, report.sent);
          if (body.size !== null) headers['content-length'] = String(body.size);
        }
        row = await dataOf<FileRow<Row>>(await http.raw({ method, path, query, headers, body: sent, accessToken, signal }), what);
      }
      report.done(Number((row as { size?: unknown }).size ?? body.size ?? 0));
      return row;
    };
    return this.authorized(attempt, body.blob !== null);
  }

  /** The answer of `GET /files/:table/:id` itself, to stream the body or read `ETag`, `Content-Type`, `Content-Range`. */
  downloadResponse(id: string | number, options: DownloadOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.range) headers.range = `bytes=${options.range.start}-${options.range.end ?? ''}`;
    return this.authorized((accessToken) =>
      this.context.http.raw({ method: 'GET', path: this.filePath(id), query: transformQuery(options.transform), headers, accessToken, signal: options.signal }),
    );
  }

  async download(id: string | number, options: DownloadOptions = {}): Promise<Blob> {
    const response = await this.downloadResponse(id, options);
    try {
      return await response.blob();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new NetworkError(`GET ${this.filePath(id)}: reading the file failed`, { cause });
    }
  }

  async sign(id: string | number, expiresIn: number, transform?: TransformOptions): Promise<string> {
    const body = transform ? { expiresIn, transform: transformQuery(transform) } : { expiresIn };
    const answer = await this.context.send<DataResponse<{ url: string; expiresAt: string }>>({ method: 'POST', path: `${this.filePath(id)}/sign`, body });
    return answer.data.url;
  }

  async url(id: string | number, options: UrlOptions = {}): Promise<string> {
    const isPublic = options.public ?? (await this.isPublic(id));
    if (isPublic) return this.context.http.url(this.filePath(id), transformQuery(options.transform));
    return this.sign(id, options.expiresIn ?? DEFAULT_URL_EXPIRES_IN, options.transform);
  }

  /**
   * Whether the bucket's read rule is `true` for anon, as the server says on every download (`Cache-Control: public`
   * then, else `private`): one HEAD of this file (the caller must be able to read it, as signing needs too), shared by
   * concurrent calls and trusted for `PUBLICITY_TTL_MS`.
   */
  private isPublic(id: string | number): Promise<boolean> {
    const { publicity } = this.context;
    const known = publicity.get(this.table);
    if (known && known.until > Date.now()) return known.answer;
    const answer = this.authorized((accessToken) => this.context.http.raw({ method: 'HEAD', path: this.filePath(id), accessToken })).then((response) => {
      void response.body?.cancel().catch(() => undefined);
      return /(^|,)\s*public\s*(,|$)/i.test(response.headers.get('cache-control') ?? '');
    });
    const entry = { answer, until: Date.now() + PUBLICITY_TTL_MS };
    publicity.set(this.table, entry);
    answer.catch(() => {
      if (publicity.get(this.table) === entry) publicity.delete(this.table);
    });
    return answer;
  }
}
