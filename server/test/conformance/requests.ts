import { generateSync } from 'json-schema-faker';
import type { DocumentSchemas } from './validator.js';

/**
 * Requests made from the document's own schemas (json-schema-faker, seeded, so a failing case replays), valid or
 * with one deliberate fault: a hostile string, an unknown key, a wrong type, a repeated parameter, broken JSON.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parts of an OpenAPI document

export interface FuzzOperation {
  path: string;
  method: string;
  operation: Json;
}

export interface FuzzRequest {
  method: string;
  /** Path and query string. */
  url: string;
  /** Raw body text, or undefined for none. */
  body: string | undefined;
  /** Header parameters (tus's, a download's conditions): required ones always, others now and then. */
  headers: Record<string, string>;
  fault: string;
  /** Whether every value drawn from the document fits it (else the generator could not make one that does). */
  fits: boolean;
}

/** Draws per value before giving up on one that fits: json-schema-faker ignores lookaheads and cuts long texts. */
const ATTEMPTS = 25;

/** Sent as it is, not encoded: a percent escape that is not UTF-8. */
const BROKEN_ESCAPE = '%E0%A4%A';
const encode = (value: string) => (value === BROKEN_ESCAPE ? value : encodeURIComponent(value));

/** Strings that break naive SQL, JSON, path and pattern handling. */
export const HOSTILE = [
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  "1); SELECT pg_sleep(5); --",
  '%',
  '*',
  '\\',
  '..%2F..%2Fetc%2Fpasswd',
  '${jndi:ldap://x}',
  '\u0000',
  'a\u0000b',
  '"quoted, with comma"',
  '"unterminated',
  '9'.repeat(400),
  '-0',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  'null',
  '__proto__',
  'x'.repeat(5000),
  '😀',
  BROKEN_ESCAPE,
  '2026-02-30T25:61:00Z',
  'notnull',
];

/** A small seeded generator (mulberry32): every choice of a case follows from its seed. */
export function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

export class RequestMaker {
  private fits = true;

  constructor(
    private readonly document: Json,
    private readonly schemas: DocumentSchemas,
    /**
     * Values that name real things: path parameters by name (record ids, table names), query parameters as `?name`
     * (an empty list: leave the parameter out unless a fault puts it in).
     */
    private readonly known: Record<string, string[]>,
    /**
     * Body fields that must name real things (a webhook's `url`: a receiver of the run's, never a drawn host that may
     * resolve on the internet): a drawn object body holding one takes one of these values instead.
     */
    private readonly fields: Record<string, unknown[]> = {},
  ) {}

  private resolve(value: Json): Json {
    let current = value;
    while (current && typeof current.$ref === 'string') {
      current = (current.$ref as string)
        .slice(2)
        .split('/')
        .reduce((node: Json, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    }
    return current;
  }

  /** A value of the schema, checked against it (ajv, as the suite validates): the run's valid requests are valid. */
  private sample(schema: Json, seed: number): unknown {
    const fits = this.schemas.of(schema);
    let value: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      value = generateSync({ ...schema, components: this.document.components }, { seed: seed + attempt * 7919, maxDepth: 4, maxLength: 40, maxItems: 4 } as never);
      if (fits(value)) return value;
    }
    this.fits = false;
    return value;
  }

  private text(value: unknown): string {
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  make(target: FuzzOperation, seed: number, faultKind: number): FuzzRequest {
    const random = randomFrom(seed);
    this.fits = true;
    const parameters = ((target.operation.parameters ?? []) as Json[]).map((parameter) => this.resolve(parameter));
    let path = target.path;
    for (const parameter of parameters.filter((candidate) => candidate.in === 'path')) {
      const known = this.known[parameter.name] ?? [];
      const value = known.length && random() < 0.75 ? pick(random, known) : this.text(this.sample(parameter.schema, seed + 1));
      path = path.replace(`{${parameter.name}}`, encode(value));
    }
    const query: Array<[string, string]> = [];
    for (const parameter of parameters.filter((candidate) => candidate.in === 'query')) {
      if (!parameter.required && random() >= 0.1) continue;
      // Names the schema cannot tell from nonsense (columns in `order` and `select`, cursors) come from known values.
      const known = this.known[`?${parameter.name}`];
      if (known?.length === 0) continue;
      query.push([parameter.name, known && random() < 0.8 ? pick(random, known) : this.text(this.sample(parameter.schema, Math.floor(random() * 1e9)))]);
    }
    // Header parameters: what fetch can send (visible ASCII); a drawn value it cannot is left out, and the request is unfit.
    const headers: Record<string, string> = {};
    for (const parameter of parameters.filter((candidate) => candidate.in === 'header')) {
      if (!parameter.required && random() >= 0.1) continue;
      const value = this.text(this.sample(parameter.schema, Math.floor(random() * 1e9)));
      if (/^[\x20-\x7e]*$/.test(value)) headers[parameter.name] = value;
      else this.fits = false;
    }
    const bodySchema = target.operation.requestBody?.content?.['application/json']?.schema;
    let body: unknown = bodySchema ? this.sample(bodySchema, seed + 2) : undefined;
    if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).some((key) => this.fields[key]?.length)) {
      for (const key of Object.keys(body)) {
        const values = this.fields[key];
        if (values?.length) (body as Json)[key] = pick(random, values);
      }
      // A known value may not fit where the drawn one did (a filter needs exactly one table).
      if (!this.schemas.of(bodySchema)(body)) this.fits = false;
    }
    let raw: string | undefined;
    let fault = 'none';
    const hostile = pick(random, HOSTILE);
    switch (faultKind) {
      case 0:
        fault = 'hostile query value';
        if (query.length) query[Math.floor(random() * query.length)]![1] = hostile;
        else query.push([pick(random, ['limit', 'order', 'select', 'after', 'id[in]', 'title[like]']), hostile]);
        break;
      case 1:
        fault = 'hostile body value';
        if (body && typeof body === 'object' && !Array.isArray(body)) {
          const keys = Object.keys(body);
          (body as Json)[keys.length ? pick(random, keys) : 'title'] = random() < 0.5 ? hostile : { nested: hostile };
        } else if (bodySchema) body = hostile;
        else query.push(['select', hostile]);
        break;
      case 2:
        fault = 'unknown key';
        if (body && typeof body === 'object' && !Array.isArray(body)) Object.defineProperty(body, pick(random, ['__proto__', 'constructor', 'nope', "x'y"]), { value: 1, enumerable: true });
        else query.push([pick(random, ['nope', 'nope[eq]', 'id[bogus]', 'x.order', 'select']), hostile]);
        break;
      case 3:
        fault = 'repeated parameter';
        query.push(...query.slice(0, 1), ['limit', '1'], ['limit', '2']);
        break;
      case 4:
        if (target.method === 'get' || target.method === 'head') break;
        fault = 'broken body';
        raw = pick(random, ['{', '[]', '[1,2]', '"text"', '123', 'null', '{"a":'.repeat(80), `[${'{},'.repeat(1200)}{}]`]);
        break;
      default:
        break;
    }
    const search = query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&');
    return { method: target.method.toUpperCase(), url: `${path}${search ? `?${search}` : ''}`, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)), headers, fault, fits: this.fits };
  }
}
