import { expect } from 'vitest';

/**
 * HTTP calls through the Prism proxy, each checked for what Prism says about it (`sl-violations`, or its own 422/500
 * problem documents) and counted against the operations of the document, so a run can show that it used every one.
 */

export type Document = { paths: Record<string, Record<string, { operationId: string }>> };

export interface Answer {
  status: number;
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
  private readonly routes: Route[];

  constructor(
    private readonly base: string,
    document: Document,
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

  /** Sends a request the document refuses: Prism must answer it itself (422, a problem document), never the service. */
  async refusedByDocument(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<void> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    expect(response.status, `${method} ${path}: the document admits it: ${text.slice(0, 400)}`).toBe(422);
    expect(response.headers.get('content-type') ?? '', `${method} ${path}: ${text.slice(0, 400)}`).toMatch(/^application\/problem\+json/);
  }

  /** Sends one request through the proxy and expects `status`; a violation Prism reports fails the test. */
  async call(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; status: number }): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    const violations = response.headers.get('sl-violations');
    const contentType = response.headers.get('content-type') ?? '';
    expect(violations, `${method} ${path}: Prism reports ${violations}`).toBeNull();
    expect(contentType.startsWith('application/problem+json'), `${method} ${path}: Prism refused it: ${text}`).toBe(false);
    expect(response.status, `${method} ${path}: ${text.slice(0, 400)}`).toBe(options.status);
    const operation = this.operationOf(method, new URL(path, this.base).pathname);
    expect(operation, `${method} ${path} is not an operation of the document`).toBeDefined();
    let statuses = this.seen.get(operation!);
    if (!statuses) this.seen.set(operation!, (statuses = new Set()));
    statuses.add(response.status);
    return { status: response.status, body: contentType.includes('json') ? JSON.parse(text) : text, headers: response.headers };
  }
}
