import dns from 'node:dns';
import http from 'node:http';
import express from 'express';
import fc from 'fast-check';
import supertest from 'supertest';
import { MAX_EXPRESSION_LENGTH, parseExpression } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorHandler } from '../http/handler.js';
import { jsonObjectBody } from '../http/body.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { Deliveries } from '../webhooks/deliveries.js';
import { parseCreate, settle } from '../webhooks/input.js';
import { webhookRoutes } from '../webhooks/routes.js';
import type { WebhookService } from '../webhooks/service.js';
import { CURSOR_PATTERN, DELIVERY_LIMIT_PATTERN, FILTER_PATTERN, HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, SINCE_PATTERN, TABLE_ITEM_PATTERN, URL_PATTERN, WEBHOOK_ID_PATTERN } from './webhookValues.js';

/**
 * The webhooks' patterns (issue 29) held to the service's own functions, as the other *Patterns tests hold theirs:
 * a body through `parseCreate` and `settle` (every name resolving to loopback, which `allowPrivateTargets` lets through,
 * so what decides is the URL's form alone), the path's ids and the deliveries' parameters through the routes with a
 * stand-in service (200 taken, 400 naming it refused), `since` through the replay's own check (the database stood in).
 * Exact where the rule is ASCII (ids, header names, limit, cursor); else what the pattern admits is taken.
 */

const modes = (pattern: string) => [new RegExp(pattern, 'u'), new RegExp(pattern)];
const textOf = (units: readonly string[], minLength: number, maxLength: number) =>
  fc.integer({ min: minLength, max: maxLength }).chain((length) => fc.array(fc.constantFrom(...units), { minLength: length, maxLength: length }).map((parts) => parts.join('')));
const context = { cache: {} as SchemaCache, captureProblem: () => undefined, allowPrivateTargets: true };
/** Text without NUL or a surrogate, where a pattern read without the `u` flag is exact in UTF-16 code units. */
const plain = (text: string) => !text.includes('\u0000') && ![...text].some((character) => character.length > 1 || /[\ud800-\udfff]/.test(character));

/** Whether the service takes a webhook with this body (over `{ url, tables: "*" }`): else the field it names. */
async function takes(body: Record<string, unknown>): Promise<true | string> {
  try {
    await settle(null, parseCreate({ url: 'http://127.0.0.1/hook', tables: '*', ...body }), context);
    return true;
  } catch (error) {
    return ((error as { details?: { field?: string } }).details?.field) ?? String(error);
  }
}

const standIn = {
  get: async () => ({}),
  listDeliveries: async () => ({ data: [], next: null }),
  retry: async () => ({}),
} as unknown as WebhookService;
const app = express();
app.set('query parser', 'simple');
app.use(webhookRoutes(standIn, jsonObjectBody(1_000_000)));
app.use(errorHandler(() => undefined));
const agent = supertest(app);

/** Whether the route takes the request: 200, or 400 naming `parameter` (anything else fails the test). */
async function routeTakes(path: string, parameter: string, method: 'get' | 'post' = 'get'): Promise<boolean> {
  const response = await agent[method](path).ok(() => true);
  if (response.status === 200) return true;
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(400);
  expect(response.body.error.details, path).toEqual({ parameter });
  return false;
}

beforeAll(() => {
  // Every name resolves to loopback: the URL's form is what is tested, not the network.
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async () => [{ address: '127.0.0.1', family: 4 }]) as never);
});
afterAll(() => vi.restoreAllMocks());

describe('webhook texts', () => {
  it('url: what the pattern admits the service takes (http or https, a host, no credentials, at most 2048 units)', async () => {
    const patterns = modes(URL_PATTERN);
    const label = fc.oneof(textOf(['a', 'Z', '0', '9', '-'], 1, 6), fc.constantFrom('xn--a', 'XN--ls8h', 'xn--ls8h', '0x1f', '0X', '09', '1e'));
    const name = fc.array(label, { minLength: 1, maxLength: 4 }).chain((labels) => fc.constantFrom('', '.').map((dot) => labels.join('.') + dot));
    const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', '0x7f'));
    const ipv4 = fc.array(octet, { minLength: 3, maxLength: 5 }).map((parts) => parts.join('.'));
    const group = fc.oneof(fc.constantFrom('', '0', 'ffff', 'FFFF', 'fffff', 'g'), fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16)));
    const ipv6 = fc.array(group, { minLength: 1, maxLength: 9 }).map((groups) => `[${groups.join(':')}]`);
    const host = fc.oneof(name, ipv4, ipv6, fc.constantFrom('', 'a b', 'a@b', 'user:pw@a', '@a', 'a%41', 'é.test', 'a_b'));
    const port = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 70000 }).chain((n) => fc.constantFrom(`:${n}`, `:000${n}`)), fc.constantFrom(':', ':x', ':-1'));
    const rest = fc.oneof(fc.constant(''), textOf(['/', '?', '#', 'a', ' ', '%', '\\', '@', 'é', '\ud83d\ude00', '\u0000', '\n'], 0, 8));
    const scheme = fc.constantFrom('http://', 'https://', 'HTTP://', 'hTtPs://', 'ftp://', 'http:/', 'http:', 'https//', ' http://');
    const url = fc.tuple(scheme, host, port, rest).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(url, async (text) => {
        const taken = await takes({ url: text });
        for (const regex of patterns) if (regex.test(text)) expect(taken, JSON.stringify(text)).toBe(true);
      }),
      { numRuns: 4000 },
    );
    // Long ones: at the 2048 units the service counts (a character beyond the BMP is two).
    for (const filler of ['x', 'é', '\ud83d\ude00']) {
      for (const length of [2047, 2048, 2049]) {
        const text = `http://a.test/${filler.repeat(Math.ceil((length - 14) / filler.length))}`.slice(0, length);
        const taken = await takes({ url: text });
        for (const regex of patterns) if (regex.test(text)) expect(taken, `${text.length} units of ${filler}`).toBe(true);
      }
    }
  });

  it('header names: HTTP tokens of 1 to 100 characters but webhook-*, host and content-*, exactly', async () => {
    const patterns = modes(HEADER_NAME_PATTERN);
    const reserved = fc.constantFrom('webhook-', 'WebHook-', 'host', 'HOST', 'content-', 'Content-', 'x-', '');
    const name = fc.oneof(
      fc.tuple(reserved, textOf(['a', 'Z', '0', '-', '!', '~', '`', '|', "'"], 0, 4)).map((parts) => parts.join('')),
      textOf(['a', 'Z', '0', '-', ' ', ':', '\u00e9', '(', '"', '\t', '/'], 1, 6),
      fc.integer({ min: 98, max: 102 }).map((length) => 'h'.repeat(length)),
    );
    await fc.assert(
      fc.asyncProperty(name, async (header) => {
        const taken = (await takes({ headers: { [header]: 'v' } })) === true;
        for (const regex of patterns) expect(regex.test(header), JSON.stringify(header)).toBe(taken);
        // What the pattern admits, Node's HTTP client sends.
        if (taken) expect(() => http.validateHeaderName(header)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('header values: 1 to 1000 characters the service takes and Node\'s HTTP client can send, exactly', async () => {
    const patterns = modes(HEADER_VALUE_PATTERN);
    const units = ['a', ' ', '\t', '~', '\u00e9', '\u00ff', '\u0080', '\n', '\r', '\u0000', '\u0001', '\u007f', '\u0100', '\ud83d\ude00'];
    const value = fc.oneof(textOf(units, 0, 6), fc.tuple(fc.integer({ min: 998, max: 1002 }), fc.constantFrom('a', '\u00e9', '\u0100')).map(([length, unit]) => unit.repeat(length)));
    await fc.assert(
      fc.asyncProperty(value, async (text) => {
        const taken = (await takes({ headers: { 'X-Value': text } })) === true;
        let sendable = true;
        try {
          http.validateHeaderValue('X-Value', text);
        } catch {
          sendable = false;
        }
        for (const regex of patterns) expect(regex.test(text), JSON.stringify(text.slice(0, 20))).toBe(taken && sendable);
      }),
      { numRuns: 2000 },
    );
  });

  it('tables: what the pattern admits of a name, the body takes (whether it is served is the project\'s)', async () => {
    const patterns = modes(TABLE_ITEM_PATTERN);
    await fc.assert(
      fc.property(fc.oneof(textOf(['a', '_', '\u00e9', '\ud83d\ude00', '\u0000'], 0, 6), textOf(['a', '\ud83d\ude00'], 95, 205)), (table) => {
        let taken = true;
        try {
          parseCreate({ url: 'http://a.test/', tables: [table] });
        } catch {
          taken = false;
        }
        for (const regex of patterns) if (regex.test(table)) expect(taken, `${table.length} units`).toBe(true);
        if (plain(table)) expect(patterns[1]!.test(table), `${table.length} units`).toBe(taken);
      }),
      { numRuns: 1000 },
    );
  });

  it(`filter: 1 to ${MAX_EXPRESSION_LENGTH} units, the rules language's limit`, async () => {
    const patterns = modes(FILTER_PATTERN);
    const filter = fc.oneof(textOf(['x', '\u00e9', '\ud83d\ude00'], 1990, 2010), textOf(['x', '\u00e9', '\ud83d\ude00', '\u0000'], 0, 4)).map((body) => `a = '${body}'`);
    await fc.assert(
      fc.property(filter, (text) => {
        let joi = true;
        try {
          parseCreate({ url: 'http://a.test/', tables: ['a'], filter: text });
        } catch {
          joi = false;
        }
        const parsed = parseExpression(text);
        const withinLength = parsed.ok || !parsed.error.message.startsWith('an expression is at most');
        for (const regex of patterns) if (regex.test(text)) expect(joi && withinLength, `${text.length} units`).toBe(true);
        if (plain(text)) expect(patterns[1]!.test(text), `${text.length} units`).toBe(joi && withinLength);
      }),
      { numRuns: 1000 },
    );
  });

  it('since: what the pattern admits, the replay reads', async () => {
    const standInDatabase = { raw: async () => ({ rows: [{ trimmed: false, oldest: null }] }), transaction: async () => 0 };
    const deliveries = new Deliveries(standInDatabase as never, {} as never, {} as SchemaCache);
    const webhook = { id: 'w', url: 'http://a.test/', tables: '*' as const, events: [], filter: null, headers: {}, since: 0n };
    const patterns = modes(SINCE_PATTERN);
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const since = fc
      .tuple(fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')), two(13), two(32), fc.constantFrom('T', 't', ' ', ''), two(24), two(60), two(61), fc.constantFrom('', '.5', '.123456789', '.1234567890', '.'), fc.constantFrom('Z', 'z', '', '+05:30', '-00:00', '+24:00', '+0530', '+05'))
      .map(([year, month, day, t, hour, minute, second, fraction, offset]) => `${year}-${month}-${day}${t}${hour}:${minute}:${second}${fraction}${offset}`);
    await fc.assert(
      fc.asyncProperty(since, async (text) => {
        let taken = true;
        try {
          await deliveries.replay(webhook, text);
        } catch {
          taken = false;
        }
        for (const regex of patterns) if (regex.test(text)) expect(taken, text).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('the path\'s ids: 1 to 64 of A-Z a-z 0-9 _ -, exactly', async () => {
    const patterns = modes(WEBHOOK_ID_PATTERN);
    const id = fc.oneof(textOf(['a', 'Z', '0', '_', '-', '.', ' ', '\u00e9', '%', '/', '~'], 1, 4), fc.integer({ min: 62, max: 66 }).map((length) => 'i'.repeat(length)));
    await fc.assert(
      fc.asyncProperty(id, async (value) => {
        const taken = await routeTakes(`/webhooks/${encodeURIComponent(value)}/deliveries`, 'id');
        expect(await routeTakes(`/webhooks/w/deliveries/${encodeURIComponent(value)}/retry`, 'delivery', 'post'), JSON.stringify(value)).toBe(taken);
        for (const regex of patterns) expect(regex.test(value), JSON.stringify(value)).toBe(taken);
      }),
      { numRuns: 500 },
    );
  });

  it('deliveries: limit from 1 to 200 in digits, and before a position up to 2^63 - 1, exactly; status one of four', async () => {
    const limits = modes(DELIVERY_LIMIT_PATTERN);
    await fc.assert(
      fc.asyncProperty(fc.oneof(textOf(['0', '1', '2', '9'], 1, 5), textOf(['0', '5', ' ', '.', 'e', 'x', '+', '-'], 0, 4)), async (limit) => {
        const taken = await routeTakes(`/webhooks/w/deliveries?limit=${encodeURIComponent(limit)}`, 'limit');
        for (const regex of limits) {
          if (regex.test(limit)) expect(taken, JSON.stringify(limit)).toBe(true);
          // In digits the pattern is exact; the service also reads other spellings of a number (` 5`, `1e2`, `0x10`).
          if (/^[0-9]+$/.test(limit)) expect(regex.test(limit), JSON.stringify(limit)).toBe(taken);
        }
      }),
      { numRuns: 1000 },
    );
    const cursors = modes(CURSOR_PATTERN);
    const largest = 2n ** 63n - 1n;
    const near = fc.bigInt({ min: largest - 3n, max: largest * 2n }).map(String);
    await fc.assert(
      fc.asyncProperty(fc.oneof(near, textOf(['0', '1', '9', '-', 'x'], 0, 4), fc.integer({ min: 18, max: 21 }).map((length) => '9'.repeat(length))), async (before) => {
        const taken = await routeTakes(`/webhooks/w/deliveries?before=${encodeURIComponent(before)}`, 'before');
        // The route reads `^[1-9][0-9]{0,18}$`; past 2^63 - 1 the database's bigint refuses it (unnamed: reported).
        const fits = taken && BigInt(before) <= largest;
        for (const regex of cursors) expect(regex.test(before), before).toBe(fits);
      }),
      { numRuns: 1000 },
    );
    for (const status of ['pending', 'delivered', 'failed', 'dead']) expect(await routeTakes(`/webhooks/w/deliveries?status=${status}`, 'status')).toBe(true);
    for (const status of ['', 'DEAD', 'gone']) expect(await routeTakes(`/webhooks/w/deliveries?status=${status}`, 'status')).toBe(false);
  });
});
