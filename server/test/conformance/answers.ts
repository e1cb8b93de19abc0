import { expect } from 'vitest';
import type { DocumentSchemas } from './validator.js';

/**
 * A request and its answer checked against the document without Prism, for the calls Prism's proxy cannot carry: the
 * 302s of the redirect flow (`/auth/oauth/*`), which its proxy follows (node-fetch's default) instead of passing on,
 * and uploads of bytes that are not text (it forwards a body as the text it decoded). What Prism checks, checked here
 * with the suite's validators: the operation, its parameters, form body and the media type of a raw body, the status
 * among its responses, the headers it documents (a 302's `Location`), the body by the schema of its media type (a
 * range such as `*\/*` included).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

export interface Located {
  template: string;
  operation: Json;
  /** The path's parameters by name, decoded. */
  values: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  location: string | null;
  contentType: string;
  text: string;
  /** The answer's headers, when the caller has them: each the document gives the status is checked. */
  header?: (name: string) => string | null;
}

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** The document's operation for a method and a path: a literal path wins over a template, as in OpenAPI. */
export function locate(document: Json, method: string, pathname: string): Located | undefined {
  const found: Array<Located & { literal: number }> = [];
  for (const [template, item] of Object.entries(document.paths as Json)) {
    const operation = (item as Json)[method.toLowerCase()];
    if (!operation) continue;
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const match = new RegExp(`^${template.split(/\{[^}]+\}/).map(escape).join('([^/]+)')}$`).exec(pathname);
    if (!match) continue;
    const values = Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
    found.push({ template, operation, values, literal: template.replace(/\{[^}]+\}/g, '').length });
  }
  return found.sort((a, b) => b.literal - a.literal)[0];
}

const resolve = (document: Json, value: Json): Json => (value.$ref ? (value.$ref as string).slice(2).split('/').reduce((node: Json, key) => node[key], document) : value);

/** The document's entry of a media type in `content`: exact, else `type/*`, else `*\/*`. */
export function mediaEntry(content: Json | undefined, type: string): Json | undefined {
  if (!content) return undefined;
  return content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*'];
}

/**
 * The request fits the operation: path and query parameters (each once, required ones present), a form body, or a raw
 * body of a media type it takes (`rawType`).
 */
export function checkRequest(document: Json, schemas: DocumentSchemas, located: Located, url: URL, form?: Record<string, string>, rawType?: string): void {
  const where = `${located.template} ${url.search}`;
  for (const parameter of ((located.operation.parameters ?? []) as Json[]).map((entry) => resolve(document, entry))) {
    const given = parameter.in === 'path' ? [located.values[parameter.name]!] : parameter.in === 'query' ? url.searchParams.getAll(parameter.name) : [];
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    if (given.length === 0) {
      expect(parameter.required, `${where}: ${parameter.name} is required`).not.toBe(true);
      continue;
    }
    expect(given, `${where}: ${parameter.name} more than once`).toHaveLength(1);
    const validate = schemas.of(parameter.schema);
    expect(validate(given[0]), `${where}: ${parameter.name}: ${schemas.errors(validate)}`).toBe(true);
  }
  const formSchema = located.operation.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
  if (form !== undefined) {
    expect(formSchema, `${where} takes no form`).toBeDefined();
    const validate = schemas.of(formSchema);
    expect(validate(form), `${where}: the form: ${schemas.errors(validate)}`).toBe(true);
  } else if (rawType !== undefined) {
    const type = rawType.split(';')[0]!.trim();
    expect(mediaEntry(located.operation.requestBody?.content, type), `${where} takes no ${type || 'untyped'} body`).toBeDefined();
  } else if (located.operation.requestBody?.required) {
    expect.fail(`${where}: the body is required`);
  }
}

/** A header's text as its schema reads it (simple style: a number as a number). */
function headerValue(schema: Json, text: string): unknown {
  return (schema.type === 'integer' || schema.type === 'number') && /^-?[0-9]+(?:\.[0-9]+)?$/.test(text) ? Number(text) : text;
}

/** The answer is one the operation documents, and matches what it says of that status. */
export function checkAnswer(document: Json, schemas: DocumentSchemas, located: Located, answer: RawAnswer, where: string): void {
  const documented = located.operation.responses[String(answer.status)] as Json | undefined;
  expect(documented, `${where}: ${answer.status} is not a response of ${located.operation.operationId}: ${answer.text.slice(0, 300)}`).toBeDefined();
  const response = resolve(document, documented!);
  // A redirect (not a 304, which names nothing) carries its Location.
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) {
    const header = response.headers?.Location as Json | undefined;
    expect(header?.required, `${where}: the document gives a ${answer.status} no Location`).toBe(true);
    expect(answer.location, `${where}: no Location`).not.toBeNull();
    const validate = schemas.of(header!.schema);
    expect(validate(answer.location), `${where}: Location ${answer.location}: ${schemas.errors(validate)}`).toBe(true);
  }
  if (answer.header) {
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      const value = answer.header(name);
      if (value === null) {
        expect(header.required, `${where}: no ${name}`).not.toBe(true);
        continue;
      }
      const validate = schemas.of(header.schema);
      expect(validate(headerValue(header.schema, value)), `${where}: ${name}: ${value}: ${schemas.errors(validate)}`).toBe(true);
    }
  }
  const type = answer.contentType.split(';')[0]!.trim();
  if (answer.text === '' && !type) return;
  const content = mediaEntry(response.content, type);
  expect(content, `${where}: ${answer.status} as ${type || 'no type'} is not documented`).toBeDefined();
  const validate = schemas.of(content!.schema);
  const body: unknown = type === 'application/json' ? JSON.parse(answer.text) : answer.text;
  expect(validate(body), `${where}: ${answer.text.slice(0, 300)}: ${schemas.errors(validate)}`).toBe(true);
}
