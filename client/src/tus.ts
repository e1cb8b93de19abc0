import { LSN_HEADER, RECORD_ID_HEADER, REQUEST_ID_HEADER, UPLOADS_SEGMENT } from '@basalt/contract';
import type { DetailedError, HttpRequest, HttpResponse, HttpStack, UploadOptions } from 'tus-js-client';
import { ApiError, NetworkError, errorFromResponse, parseRetryAfter } from './errors.js';
import { parseJson, segment, type FetchLike } from './http.js';
import type { FilesContext } from './files.js';
import { counted } from './progress.js';
import { isTokenExpired } from './transport.js';

/**
 * Resumable uploads: the tus 1.0 protocol at `/files/:table/uploads` (API.md, Files) through tus-js-client, loaded
 * only when an upload is resumable. A dropped connection or a 5xx is retried (after 0, 1, 3 and 5 s) from the offset
 * the server holds; an expired token is refreshed once. Browsers send with tus-js-client's XMLHttpRequest stack
 * (upload progress); elsewhere (Node) with the client's fetch, whose progress counts the bytes fetch has taken.
 */

/** A Blob read slice by slice: a slice of a file-backed Blob (a File, Node's `fs.openAsBlob`) is never held whole. */
const blobReader = {
  openFile: async (input: Blob) => ({
    size: input.size,
    slice: async (start: number, end: number) => ({ value: input.slice(start, Math.min(end, input.size)), done: end >= input.size }),
    close: () => undefined,
  }),
};

/** tus-js-client's HTTP stack on fetch: sends Blob slices with their length and reports the bytes taken. */
class FetchRequest implements HttpRequest {
  private readonly headers: Record<string, string> = {};
  private readonly controller = new AbortController();
  private progress: (sent: number) => void = () => undefined;

  constructor(
    private readonly fetchImpl: FetchLike,
    private readonly method: string,
    private readonly url: string,
  ) {}

  getMethod(): string {
    return this.method;
  }

  getURL(): string {
    return this.url;
  }

  setHeader(header: string, value: string): void {
    this.headers[header] = value;
  }

  getHeader(header: string): string | undefined {
    return this.headers[header];
  }

  setProgressHandler(handler: (sent: number) => void): void {
    this.progress = handler;
  }

  async send(body?: Blob | null): Promise<HttpResponse> {
    const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers: { ...this.headers }, signal: this.controller.signal };
    if (body) {
      init.body = counted(body.stream(), this.progress);
      init.duplex = 'half';
      (init.headers as Record<string, string>)['content-length'] = String(body.size);
    }
    const response = await this.fetchImpl(this.url, init);
    const text = await response.text();
    return {
      getStatus: () => response.status,
      getHeader: (name) => response.headers.get(name) ?? undefined,
      getBody: () => text,
      getUnderlyingObject: () => response,
    };
  }

  async abort(): Promise<void> {
    this.controller.abort();
  }

  getUnderlyingObject(): unknown {
    return this.controller;
  }
}

class FetchStack implements HttpStack {
  constructor(private readonly fetchImpl: FetchLike) {}

  createRequest(method: string, url: string): HttpRequest {
    return new FetchRequest(this.fetchImpl, method, url);
  }

  getName(): string {
    return 'BasaltFetchStack';
  }
}

/** The error a failed tus request means: the server's envelope as an ApiError, or a NetworkError without an answer. */
function errorOf(error: Error | DetailedError): Error {
  const response = (error as DetailedError).originalResponse;
  if (response) {
    const header = (name: string) => response.getHeader(name) ?? undefined;
    return errorFromResponse(response.getStatus(), parseJson(response.getBody()), header(REQUEST_ID_HEADER), parseRetryAfter(header('retry-after')));
  }
  if ((error as DetailedError).originalRequest) return new NetworkError(error.message, { cause: (error as DetailedError).causingError ?? error });
  return error;
}

/** tus-js-client's own rule (retry without an answer, on 5xx, 409 and 423; never offline), and the token's refresh. */
function retryable(error: ApiError | Error): boolean {
  const offline = typeof navigator !== 'undefined' && (navigator as { onLine?: boolean }).onLine === false;
  if (offline) return false;
  if (!(error instanceof ApiError)) return true;
  return error.status >= 500 || error.status === 423 || (error.status === 409 && error.details?.constraint === undefined);
}

/** The row an upload made, from its HEAD. */
async function recordIdOf(context: FilesContext, url: string | null): Promise<string> {
  const missing = () => new ApiError(500, 'INTERNAL_ERROR', `The upload finished without a ${RECORD_ID_HEADER} header (is it exposed to this origin?)`);
  if (!url) throw missing();
  let response: Response;
  try {
    const headers = { 'tus-resumable': '1.0.0', ...context.http.headers(await context.credentials.token()) };
    response = await context.http.fetchImpl(url, { method: 'HEAD', headers });
  } catch (cause) {
    throw new NetworkError(`HEAD ${url} failed`, { cause });
  }
  const id = response.headers.get(RECORD_ID_HEADER);
  if (!response.ok) throw errorFromResponse(response.status, undefined, response.headers.get(REQUEST_ID_HEADER) ?? undefined);
  if (!id) throw missing();
  return id;
}

export interface ResumableOptions {
  onProgress: (sent: number) => void;
  signal?: AbortSignal | undefined;
  chunkSize?: number | undefined;
}

/** Uploads `blob` by tus and answers the id of the row made when its last byte arrived. */
export async function resumableUpload(context: FilesContext, table: string, blob: Blob, metadata: Record<string, string>, options: ResumableOptions): Promise<string> {
  const { signal } = options;
  if (signal?.aborted) throw signal.reason;
  const tus = await import('tus-js-client');
  const { http, credentials } = context;
  // tus-js-client's Node build sends Buffers and Node streams only; its browser build sends Blobs by XMLHttpRequest.
  const inNode = tus.defaultOptions.httpStack.getName() === 'NodeHttpStack';
  let token: string | undefined;
  let refreshing: Promise<boolean> | null = null;
  let refreshedFor: string | undefined;
  let recordId: string | undefined;

  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const settings: UploadOptions = {
      endpoint: http.url(`/files/${segment(table)}/${UPLOADS_SEGMENT}`),
      metadata,
      fileReader: blobReader,
      ...(inNode ? { httpStack: new FetchStack(http.fetchImpl) } : {}),
      ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
      storeFingerprintForResuming: false,
      onBeforeRequest: async (request) => {
        if (refreshing) await refreshing;
        token = await credentials.token();
        for (const [name, value] of Object.entries(http.headers(token))) request.setHeader(name, value);
      },
      onAfterResponse: (_request, response) => {
        http.noteLsn(response.getHeader(LSN_HEADER));
        const id = response.getHeader(RECORD_ID_HEADER);
        if (id) recordId = id;
      },
      onShouldRetry: (error) => {
        const cause = errorOf(error);
        if (isTokenExpired(cause)) {
          // Once per token: a long upload may outlive several.
          if (!token || refreshedFor === token) return false;
          refreshedFor = token;
          refreshing = credentials.refresh(token).catch(() => false);
          return true;
        }
        return retryable(cause);
      },
      onProgress: (sent) => options.onProgress(sent),
      onSuccess: () => {
        if (recordId) return finish(() => resolve(recordId!));
        // The upload's HEAD names the row too (after an empty file's creation, say).
        void recordIdOf(context, upload.url).then(
          (id) => finish(() => resolve(id)),
          (error: unknown) => finish(() => reject(error)),
        );
      },
      onError: (error) => finish(() => reject(errorOf(error))),
    };
    const upload = new tus.Upload(blob, settings);
    const onAbort = () => {
      // Deleting the server's partial copy is best effort: the server deletes unfinished uploads after 24 h anyway.
      void upload.abort(true).catch(() => undefined);
      finish(() => reject(signal!.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    upload.start();
  });
}
