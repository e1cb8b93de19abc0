import { DELIVERY_STATUSES, MAX_EXPRESSION_LENGTH, MAX_WEBHOOK_HEADERS, WEBHOOK_EVENTS } from '@basalt/contract';
import { MAX_DELIVERIES_PAGE } from '../webhooks/deliveries.js';
import { digitsAtMost, unitsText } from './patterns.js';
import { bool, dateTime, int, nullable, object, ref, str, type Schema } from './schema.js';

/**
 * The values of the owner's webhooks (issue 29, API.md "Webhooks") as patterns and schemas: a webhook's body (`url`,
 * `tables`, `events`, `filter`, `headers`, `enabled`), its answers (the secret's form, a delivery and its payload), the
 * deliveries' `status`, `limit` and `before`, a replay's `since` and the path's ids. Built from the limits the service
 * checks (server/src/webhooks/input.ts, deliveries.ts, routes.ts); server/src/openapi/webhookPatterns.test.ts holds each
 * to the service's own functions. Where a rule is the network's or the project's (a target that resolves to a public
 * address, a served table, a filter of the rules language), the schema admits the form and the description the rule.
 */

/** The path's ids, as the routes read them (`id`, `delivery`). */
export const WEBHOOK_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** `[Hh][Oo][Ss][Tt]`: an ASCII word in either case (the service compares header names case-insensitively). */
const caseless = (text: string) => text.replace(/[a-z]/g, (letter) => `[${letter.toUpperCase()}${letter}]`);

const URL_MAX_LENGTH = 2048;
/** The units of `unitsText` without its anchors: the whole URL within 1 to 2048 UTF-16 code units. */
const URL_LENGTH = unitsText(1, URL_MAX_LENGTH).slice(1, -1);
/** A label that is not IDNA (`xn--`, which must be valid punycode); the last starts with a letter (never an IPv4 number). */
const NAME = `(?:(?!${caseless('xn--')})[A-Za-z0-9-]+\\.)*(?!${caseless('xn--')})[A-Za-z][A-Za-z0-9-]*\\.?`;
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H = '[0-9A-Fa-f]{1,4}';
/** An IPv6 address in its text forms (eight groups, or fewer around one `::`), without an embedded IPv4 or a zone. */
const IPV6 = [
  `(?:${H}:){7}${H}`,
  `(?:${H}:){1,7}:`,
  `(?:${H}:){1,6}:${H}`,
  `(?:${H}:){1,5}(?::${H}){1,2}`,
  `(?:${H}:){1,4}(?::${H}){1,3}`,
  `(?:${H}:){1,3}(?::${H}){1,4}`,
  `(?:${H}:){1,2}(?::${H}){1,5}`,
  `${H}:(?::${H}){1,6}`,
  `:(?:(?::${H}){1,7}|:)`,
].join('|');
/**
 * A webhook's target as WHATWG's URL parser takes it (the service's `new URL`): `http:` or `https:` in any case, `//`, a
 * host (a name of ASCII labels, a dotted IPv4 address, or an IPv6 one in brackets), no user name or password, an
 * optional port up to 65535 (leading zeros allowed), then anything but NUL; 1 to 2048 UTF-16 code units in all. A part of
 * what the parser takes: it also reads IDNA names, other IPv4 spellings (`0x7f.1`), an empty `@` and a missing `//`.
 */
export const URL_PATTERN = `^(?=${URL_LENGTH}$)${caseless('http')}[Ss]?://(?:${NAME}|${IPV4}|\\[(?:${IPV6})\\])(?::(?:${digitsAtMost(65535n)})?)?(?:[/?#][^\\u0000-\\u001f\\u007f]*)?$`;

/** A header's name: an HTTP token of at most 100 characters, not `webhook-*`, `host` or `content-*` (Basalt sets those). */
export const HEADER_NAME_PATTERN = `^(?!${caseless('webhook-')}|${caseless('host')}$|${caseless('content-')})[!#$%&'*+.^_\`|~0-9A-Za-z-]{1,100}$`;
export const HEADER_VALUE_MAX_LENGTH = 1000;
/**
 * A header's value: 1 to 1000 characters an HTTP header can carry (tab, space, visible ASCII, Latin-1). The service
 * takes any text without a line break or NUL, but a character outside these fails every attempt (Node's HTTP client
 * refuses to send it), so the document admits these alone.
 */
export const HEADER_VALUE_PATTERN = `^[\\u0009\\u0020-\\u007E\\u0080-\\u00FF]{1,${HEADER_VALUE_MAX_LENGTH}}$`;

/** A table's name in `tables`: 1 to 200 UTF-16 code units without NUL (whether it is served is the project's). */
export const TABLE_ITEM_PATTERN = unitsText(1, 200);
/** A filter: 1 to 2000 UTF-16 code units without NUL, the rules language's own limit. */
export const FILTER_PATTERN = unitsText(1, MAX_EXPRESSION_LENGTH);

/**
 * A replay's `since`: an RFC 3339 date-time (`T` and `Z` in either case, seconds, up to 9 decimals, an offset), which
 * the service's `Date.parse` reads; it also reads other forms, which the pattern leaves out.
 */
export const SINCE_PATTERN = '^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$';

/** `limit` of the deliveries: a whole number from 1 to 200 in decimal digits (leading zeros allowed). */
export const DELIVERY_LIMIT_PATTERN = `^(?=0*[1-9])${digitsAtMost(BigInt(MAX_DELIVERIES_PAGE))}$`;
/** `before`: the `next` of a page, a position in the queue (a positive bigint, no leading zero). */
export const CURSOR_PATTERN = `^(?=[1-9])${digitsAtMost(2n ** 63n - 1n)}$`;

const TARGET_RULE =
  'An `http:` or `https:` URL without a user name or password, at most 2048 characters (UTF-16 code units). Every address its host resolves to must be a public one (not loopback, private, link-local, carrier-grade NAT, multicast, reserved or the cloud metadata address, nor an IPv4-mapped or NAT64 address of one): else 400 naming `url`, unless `webhooks.allowPrivateTargets` is set in config.json. The pattern admits a part of what the service takes (names of ASCII labels, dotted IPv4 and IPv6 addresses)';

/** What a webhook's body may hold; POST requires `url` and `tables`, PATCH any one or more. */
const fields: Record<string, Schema> = {
  url: str({ format: 'uri', pattern: URL_PATTERN, description: TARGET_RULE }),
  tables: {
    anyOf: [
      { const: '*', description: 'Every table, those made later too' },
      { type: 'array', items: str({ pattern: TABLE_ITEM_PATTERN }), minItems: 1, maxItems: 100, uniqueItems: true, description: '1 to 100 served tables (else 400 naming `tables`: a table that is not served, or whose changes cannot be captured because another database role owns it)' },
    ],
    description: 'The tables whose changes it is sent',
  },
  events: { type: 'array', items: str({ enum: [...WEBHOOK_EVENTS] }), minItems: 1, uniqueItems: true, description: 'The kinds of change it is sent (default `insert`, `update`, `delete`: `truncate` only when named)' },
  filter: nullable(
    str({
      pattern: FILTER_PATTERN,
      description: `An expression of the rules language about its one table (\`tables\` must name exactly one), at most ${MAX_EXPRESSION_LENGTH} characters (UTF-16 code units), evaluated when a change is queued; no \`@auth\` (a webhook has no caller); \`@now\` is the time the change is queued. One that is not of the language, or reads what the table does not have, is 400 naming \`filter\``,
    }),
  ),
  headers: {
    type: 'object',
    maxProperties: MAX_WEBHOOK_HEADERS,
    propertyNames: { type: 'string', pattern: HEADER_NAME_PATTERN },
    additionalProperties: str({ pattern: HEADER_VALUE_PATTERN }),
    description: `Up to ${MAX_WEBHOOK_HEADERS} headers sent with every attempt: names are HTTP tokens of at most 100 characters, not \`webhook-*\`, \`host\` or \`content-*\`; values 1 to ${HEADER_VALUE_MAX_LENGTH} characters of tab, space, visible ASCII and Latin-1 (the service takes any text without a line break or NUL, but Node's HTTP client refuses to send the others)`,
  },
  enabled: { ...bool, description: 'Default true; a webhook enabled again takes the changes from then on (those made while it was disabled are skipped)' },
};

/** A filter goes with exactly one table: when the body names both (on POST `tables` is always there). */
const filterNeedsOneTable = (required: string[]): Schema => ({
  if: { required: ['filter', ...required], properties: { filter: { type: 'string' } } },
  then: { properties: { tables: { type: 'array', maxItems: 1 } } },
});

const webhook = {
  id: str(),
  url: str(),
  tables: { anyOf: [{ const: '*' }, { type: 'array', items: str() }], description: 'The tables it follows, or `*`: every table' },
  events: { type: 'array', items: str({ enum: [...WEBHOOK_EVENTS] }) },
  filter: nullable(str()),
  headers: { type: 'object', additionalProperties: str() },
  enabled: bool,
  createdAt: dateTime,
  updatedAt: dateTime,
  previousSecretUntil: nullable({ ...dateTime, description: 'After a rotation, until when the previous secret still signs (24 hours)' }),
};

/** A row's values as /api answers them. */
const row = nullable({ type: 'object', description: 'The row, with the values /api answers' });

/** The webhook schemas; document.ts adds them to the shared ones (a document keeps those it refers to). */
export const WEBHOOK_SCHEMAS: Record<string, Schema> = {
  CreateWebhook: object(fields, ['url', 'tables'], filterNeedsOneTable([])),
  UpdateWebhook: object(fields, [], { minProperties: 1, ...filterNeedsOneTable(['tables']) }),
  Webhook: object(webhook, Object.keys(webhook), { description: 'A webhook (its secret is shown only when made or rotated)' }),
  WebhookWithSecret: object(
    {
      ...webhook,
      secret: str({ pattern: '^whsec_[A-Za-z0-9+/]{43}=$', description: 'The signing secret (Standard Webhooks: `whsec_` and 32 random bytes in base64), shown this once' }),
    },
    [...Object.keys(webhook), 'secret'],
  ),
  WebhookPayload: object({
    type: str({ enum: [...WEBHOOK_EVENTS] }),
    table: str(),
    record: { ...row, description: 'The row after the change: null on delete and truncate' },
    old: { ...row, description: 'The row before it: null on insert, truncate, and an update that changed the row\'s id' },
    changedAt: { ...dateTime, description: 'The start of the writing transaction' },
  }),
  WebhookDelivery: object({
    id: str({ description: 'The `webhook-id` header: the same on every attempt' }),
    webhookId: str(),
    table: str(),
    type: str({ enum: [...WEBHOOK_EVENTS] }),
    status: str({ enum: [...DELIVERY_STATUSES], description: '`pending`: not tried yet or being tried; `failed`: tried, waiting for the next attempt; `delivered`; `dead`: given up 24 hours after it was queued' }),
    attempts: int({ minimum: 0 }),
    lastStatus: nullable(int({ minimum: 100, maximum: 999, description: 'The receiver\'s status at the last attempt' })),
    lastError: nullable(str({ description: 'What failed, in a few words (`status 503`, `timed out`, `connection refused`, `refused target`)' })),
    latencyMs: nullable(int({ minimum: 0 })),
    changedAt: dateTime,
    createdAt: dateTime,
    nextAttemptAt: nullable({ ...dateTime, description: 'While pending or failed' }),
    deliveredAt: nullable(dateTime),
    payload: ref('WebhookPayload'),
  }),
};

/** The deliveries' query parameters. */
export const DELIVERY_PARAMETERS: Schema[] = [
  { name: 'status', in: 'query', required: false, description: 'Only deliveries of this status', schema: str({ enum: [...DELIVERY_STATUSES] }) },
  { name: 'limit', in: 'query', required: false, description: `Deliveries per page, 1 to ${MAX_DELIVERIES_PAGE} (default 50)`, schema: str({ pattern: DELIVERY_LIMIT_PATTERN }) },
  { name: 'before', in: 'query', required: false, description: 'The `next` of the page before: the deliveries after it, newest first', schema: str({ pattern: CURSOR_PATTERN }) },
];
