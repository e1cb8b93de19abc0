import { expect } from 'vitest';
import { checkAnswer, checkRequest, locate } from './answers.js';
import { DocumentSchemas } from './validator.js';

/**
 * HTTP calls through the Prism proxy, each checked for what Prism says about it (`sl-violations`, or its own 422/500
 * problem documents) and counted against the operations of the document, so a run can show that it used every one.
 * The redirect flow's 302s cannot pass through Prism's proxy (it follows redirects itself): `redirect` sends those to
 * the service directly and checks them against the document here (answers.ts). So does `direct`, for uploads of
 * bytes that are not text: Prism's proxy reads every request body as text and forwards what it decoded.
 */

export type Document = { paths: Record<string, Record<string, { operationId: string }>> };

export interface Answer {
  status: number;
  /** The `Location` header: a redirect's. */
  location?: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of many shapes, checked by the proxy
  headers: Headers;
}

interface Route {
  pattern: RegExp;
  literal: number;
  method: string;
  operationId: string;
}

export class Traffic {
  /** operationId -> statuses seen. */
  readonly seen = new Map<string, Set<number>>();
  /** The operations whose answers were checked here instead of by Prism (`redirect`, `direct`). */
  readonly checkedHere = new Set<string>();
  private readonly routes: Route[];
  private schemas: DocumentSchemas | undefined;

  constructor(
    private readonly base: string,
    private readonly document: Document,
    /** The service itself, for `redirect`. */
    private readonly upstream?: string,
  ) {
    this.routes = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        pattern: new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
        // A literal path wins over a template one, as in OpenAPI.
        literal: template.replace(/\{[^}]+\}/g, '').length,
        method: method.toUpperCase(),
        operationId: operation.operationId,
      })),
    );
  }

  private operationOf(method: string, pathname: string): string | undefined {
    const matches = this.routes.filter((route) => route.method === method && route.pattern.test(pathname));
    return matches.sort((a, b) => b.literal - a.literal)[0]?.operationId;
  }

  private seeing(operation: string, status: number): void {
    let statuses = this.seen.get(operation);
    if (!statuses) this.seen.set(operation, (statuses = new Set()));
    statuses.add(status);
  }

  /** Sends a request the document refuses: Prism must answer it itself (422, a problem document), never the service. */
  async refusedByDocument(method: string, path: string, options: Sent = {}): Promise<void> {
    const response = await fetch(`${this.base}${path}`, { method, ...requestOf(options) });
    const text = await response.text();
    expect(response.status, `${method} ${path}: the document admits it: ${text.slice(0, 400)}`).toBe(422);
    expect(response.headers.get('content-type') ?? '', `${method} ${path}: ${text.slice(0, 400)}`).toMatch(/^application\/problem\+json/);
  }

  /** Sends one request through the proxy and expects `status` (or one of them); a violation Prism reports fails the test. */
  async call(method: string, path: string, options: Sent & { status: number | number[] }): Promise<Answer> {
    const response = await fetch(`${this.base}${path}`, { method, ...requestOf(options) });
    const text = await response.text();
    const violations = response.headers.get('sl-violations');
    const contentType = response.headers.get('content-type') ?? '';
    expect(violations, `${method} ${path}: Prism reports ${violations}`).toBeNull();
    expect(contentType.startsWith('application/problem+json'), `${method} ${path}: Prism refused it: ${text}`).toBe(false);
    expect([options.status].flat(), `${method} ${path}: ${response.status} ${text.slice(0, 400)}`).toContain(response.status);
    const operation = this.operationOf(method, new URL(path, this.base).pathname);
    expect(operation, `${method} ${path} is not an operation of the document`).toBeDefined();
    this.seeing(operation!, response.status);
    return { status: response.status, body: contentType.includes('json') ? JSON.parse(text) : text, headers: response.headers };
  }

  /**
   * A call of the redirect flow whose answer may be a 302, sent to the service itself (not through Prism, whose proxy
   * would follow the redirect: to the provider, or to an app that is not there) and checked against the document
   * here: the request's parameters and form, the status among the operation's, the 302's Location or the error's body.
   */
  async redirect(method: string, path: string, options: Pick<Sent, 'form'> & { status: number }): Promise<Answer> {
    return this.direct(method, path, options);
  }

  /** A call sent to the service itself (not through Prism) and checked against the document here (answers.ts). */
  async direct(method: string, path: string, options: Sent & { status: number }): Promise<Answer> {
    expect(this.upstream, 'a Traffic without the service\'s own address').toBeDefined();
    this.schemas ??= new DocumentSchemas(this.document);
    const url = new URL(path, this.upstream);
    const located = locate(this.document, method, url.pathname);
    expect(located, `${method} ${path} is not an operation of the document`).toBeDefined();
    const request = requestOf(options);
    checkRequest(this.document, this.schemas, located!, url, options.form, options.raw && (new Headers(request.headers).get('content-type') ?? ''));
    const response = await fetch(url, { method, redirect: 'manual', ...request });
    const text = await response.text();
    const location = response.headers.get('location');
    const where = `${method} ${path}`;
    expect(response.status, `${where}: ${location ?? text.slice(0, 400)}`).toBe(options.status);
    checkAnswer(this.document, this.schemas, located!, { status: response.status, location, contentType: response.headers.get('content-type') ?? '', text, header: (name) => response.headers.get(name) }, where);
    this.seeing(located!.operation.operationId as string, response.status);
    this.checkedHere.add(located!.operation.operationId as string);
    const json = (response.headers.get('content-type') ?? '').includes('json');
    return { status: response.status, location, body: json ? JSON.parse(text) : text, headers: response.headers };
  }
}

/** What a call sends: headers, and a JSON body, a form, bytes (a file) or a multipart form. */
export interface Sent {
  headers?: Record<string, string>;
  body?: unknown;
  form?: Record<string, string>;
  /** A body as it is, with its Content-Type (none: no header). */
  raw?: { type?: string; data: string | Uint8Array };
  multipart?: FormData;
}

function requestOf(options: Sent): RequestInit {
  const headers: Record<string, string> = { ...options.headers };
  if (options.raw !== undefined) {
    if (options.raw.type !== undefined) headers['content-type'] = options.raw.type;
    const { data } = options.raw;
    return { headers, body: typeof data === 'string' ? data : new Blob([data as Uint8Array<ArrayBuffer>]) };
  }
  // fetch writes the boundary into the Content-Type itself.
  if (options.multipart !== undefined) return { headers, body: options.multipart };
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { headers, body: new URLSearchParams(options.form).toString() };
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return { headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) };
}
