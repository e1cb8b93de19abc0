import http from 'node:http';
import Joi from 'joi';
import { DEFAULT_WEBHOOK_EVENTS, MAX_WEBHOOK_HEADERS, RESERVED_WEBHOOK_HEADER, WEBHOOK_EVENTS, type Webhook, type WebhookInput } from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import { firstProblem } from '../admin/definitions.js';
import { invalidField } from '../errors.js';
import { planWebhookFilter } from './filter.js';
import { targetProblem } from './delivery/targets.js';

/**
 * The owner's webhook bodies (API.md, Webhooks): `POST` takes `{ url, tables, events?, filter?, headers?, enabled? }`,
 * `PATCH` any of them. Problems are 400 naming the field: a target that is not `http:`/`https:`, has userinfo or
 * resolves to an address that is not public (`url`); a table that is not served or whose changes cannot be captured
 * (`tables`); a filter on other than exactly one table, naming `@auth`, or not of the language (`filter`).
 */

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

const tablesSchema = Joi.alternatives(Joi.string().valid('*'), Joi.array().items(Joi.string().min(1).max(200)).min(1).max(100).unique());
const fields = {
  url: Joi.string().max(2048),
  tables: tablesSchema,
  events: Joi.array()
    .items(Joi.string().valid(...WEBHOOK_EVENTS))
    .min(1)
    .unique(),
  filter: Joi.string().max(2000).allow(null),
  headers: Joi.object().pattern(Joi.string(), Joi.string().max(1000)),
  enabled: Joi.boolean(),
};
const createSchema = Joi.object({ ...fields, url: fields.url.required(), tables: fields.tables.required() }).unknown(false);
const patchSchema = Joi.object(fields).unknown(false).min(1);

/** A webhook's settings, every one decided (the contract's shape of a webhook, without what the service keeps). */
export type WebhookSettings = Pick<Webhook, 'url' | 'tables' | 'events' | 'filter' | 'headers' | 'enabled'>;

export interface InputContext {
  cache: SchemaCache;
  /** Why a table's changes cannot be captured (tracking/place.ts), or undefined. */
  captureProblem(table: string): string | undefined;
  allowPrivateTargets: boolean;
}

/** Joi drops a `__proto__` key without a word: a header by that name is refused instead of vanishing. */
function refuseProtoHeader(body: unknown): void {
  const headers = (body as { headers?: unknown } | null)?.headers;
  if (headers !== null && typeof headers === 'object' && Object.prototype.hasOwnProperty.call(headers, '__proto__')) {
    throw invalidField('headers', 'headers: "__proto__" is not a header name');
  }
}

export function parseCreate(body: unknown): WebhookInput {
  refuseProtoHeader(body);
  const { value, error } = createSchema.validate(body, { abortEarly: true, convert: false });
  if (error) firstProblem(error, '');
  return value as WebhookInput;
}

export function parsePatch(body: unknown): Partial<WebhookInput> {
  refuseProtoHeader(body);
  const { value, error } = patchSchema.validate(body, { abortEarly: true, convert: false });
  if (error) firstProblem(error, '');
  return value as Partial<WebhookInput>;
}

/** A webhook's settings with the change applied, checked as a whole (a filter against the tables it ends up with). */
export async function settle(current: WebhookSettings | null, change: Partial<WebhookInput>, context: InputContext): Promise<WebhookSettings> {
  const settings: WebhookSettings = {
    url: change.url ?? current!.url,
    tables: change.tables ?? current!.tables,
    events: change.events ?? current?.events ?? [...DEFAULT_WEBHOOK_EVENTS],
    filter: change.filter !== undefined ? change.filter : (current?.filter ?? null),
    headers: change.headers ?? current?.headers ?? {},
    enabled: change.enabled ?? current?.enabled ?? true,
  };
  if (change.url !== undefined) await checkUrl(settings.url, context.allowPrivateTargets);
  if (change.tables !== undefined) checkTables(settings.tables, context);
  if (change.headers !== undefined) checkHeaders(settings.headers);
  if (settings.filter !== null && (change.filter !== undefined || change.tables !== undefined)) checkFilter(settings, context);
  return settings;
}

async function checkUrl(text: string, allowPrivate: boolean): Promise<void> {
  let url: URL;
  // Control characters (NUL above all, which no text column takes) are no part of a URL a webhook is sent to.
  if ([...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) throw invalidField('url', 'url may not hold control characters');
  try {
    url = new URL(text);
  } catch {
    throw invalidField('url', 'url must be an absolute http: or https: URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField('url', 'url must be an http: or https: URL');
  if (url.username || url.password) throw invalidField('url', 'url may not carry a user name or password: send credentials in headers');
  const problem = await targetProblem(url, allowPrivate);
  if (problem) throw invalidField('url', `url is refused: ${problem}`);
}

function checkTables(tables: string[] | '*', context: InputContext): void {
  if (tables === '*') return;
  for (const table of tables) {
    if (!context.cache.served(table)) throw invalidField('tables', `tables: ${table} is not a table of the API`);
    const problem = context.captureProblem(table);
    if (problem) throw invalidField('tables', `tables: the changes of ${table} are not captured: ${problem}`);
  }
}

function checkHeaders(headers: Record<string, string>): void {
  const names = Object.keys(headers);
  if (names.length > MAX_WEBHOOK_HEADERS) throw invalidField('headers', `headers: at most ${MAX_WEBHOOK_HEADERS}`);
  for (const name of names) {
    if (!HEADER_NAME.test(name)) throw invalidField('headers', `headers: ${JSON.stringify(name)} is not a header name`);
    if (RESERVED_WEBHOOK_HEADER.test(name)) throw invalidField('headers', `headers: ${name} is set by Basalt (webhook-*, host, content-*)`);
    try {
      // What Node refuses to send (line breaks, other control characters, characters past U+00FF) is refused here,
      // rather than stored and failing every attempt.
      http.validateHeaderValue(name, headers[name]!);
    } catch {
      throw invalidField('headers', `headers: the value of ${name} holds characters a header cannot carry (line breaks, control characters, or past U+00FF)`);
    }
  }
}

function checkFilter(settings: WebhookSettings, context: InputContext): void {
  if (settings.tables === '*' || settings.tables.length !== 1) throw invalidField('filter', 'filter needs exactly one table in tables');
  const table = context.cache.served(settings.tables[0]!)!;
  planWebhookFilter(context.cache, table, settings.filter!);
}
