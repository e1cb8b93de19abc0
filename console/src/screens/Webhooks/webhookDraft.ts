import {
  DEFAULT_WEBHOOK_EVENTS,
  MAX_WEBHOOK_HEADERS,
  RESERVED_WEBHOOK_HEADER,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookEvent,
  type WebhookInput,
} from '@basalt/contract';
import { fieldOfError, splitError, type FieldErrors } from '../../errors';

/** A webhook as its form holds it: the tables as a choice, the headers as rows (a name may be typed before its value). */
export interface WebhookDraft {
  url: string;
  everyTable: boolean;
  tables: string[];
  events: WebhookEvent[];
  filter: string;
  headers: HeaderDraft[];
  enabled: boolean;
}

export interface HeaderDraft {
  /** React's key: rows are added and removed in the middle. */
  key: number;
  name: string;
  value: string;
}

/** The fields of a webhook, as the server names them in `details.field`. */
export const WEBHOOK_FIELDS = ['url', 'tables', 'events', 'filter', 'headers', 'enabled'] as const;
export type WebhookField = (typeof WEBHOOK_FIELDS)[number];

let keys = 0;
export const newHeaderDraft = (name = '', value = ''): HeaderDraft => ({ key: ++keys, name, value });

/** A new webhook: one to be chosen tables, the default events (truncate only when asked for), enabled. */
export function newWebhookDraft(): WebhookDraft {
  return { url: '', everyTable: false, tables: [], events: [...DEFAULT_WEBHOOK_EVENTS], filter: '', headers: [], enabled: true };
}

export function draftOf(webhook: Webhook): WebhookDraft {
  return {
    url: webhook.url,
    everyTable: webhook.tables === '*',
    tables: webhook.tables === '*' ? [] : [...webhook.tables],
    events: [...webhook.events],
    filter: webhook.filter ?? '',
    headers: Object.entries(webhook.headers).map(([name, value]) => newHeaderDraft(name, value)),
    enabled: webhook.enabled,
  };
}

/** Events in their usual order (insert, update, delete, truncate), whatever order they were ticked in. */
export function toggleEvent(events: readonly WebhookEvent[], event: WebhookEvent): WebhookEvent[] {
  const next = events.includes(event) ? events.filter((e) => e !== event) : [...events, event];
  return WEBHOOK_EVENTS.filter((e) => next.includes(e));
}

function urlProblem(text: string): string | undefined {
  if (!text) return 'Enter the URL the changes are sent to.';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Enter a whole address, such as https://hooks.example.com/basalt.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Use an http:// or https:// address.';
  if (url.username || url.password) return 'Leave the user name and password out of the URL: send credentials as a header.';
  return undefined;
}

function headersProblem(rows: readonly HeaderDraft[]): string | undefined {
  const named = rows.filter((row) => row.name.trim() !== '' || row.value !== '');
  if (named.length > MAX_WEBHOOK_HEADERS) return `At most ${MAX_WEBHOOK_HEADERS} headers.`;
  const seen = new Set<string>();
  for (const row of named) {
    const name = row.name.trim();
    if (!name) return 'Give every header a name (or remove its row).';
    if (RESERVED_WEBHOOK_HEADER.test(name)) return `${name} is set by Basalt (webhook-*, host and content-* are).`;
    if (seen.has(name.toLowerCase())) return `${name} is named twice.`;
    seen.add(name.toLowerCase());
    if (/[\r\n]/.test(row.value)) return `The value of ${name} may not hold a line break.`;
  }
  return undefined;
}

/** The form's own checks, then what it sends: the errors by field, or the input. */
export function checkWebhook(draft: WebhookDraft): { errors: FieldErrors; input?: WebhookInput } {
  const url = draft.url.trim();
  const filter = draft.filter.trim();
  const errors: FieldErrors = {};
  const urlError = urlProblem(url);
  if (urlError) errors.url = urlError;
  if (!draft.everyTable && draft.tables.length === 0) errors.tables = 'Choose at least one table, or every table.';
  if (draft.events.length === 0) errors.events = 'Choose at least one kind of change.';
  if (filter && (draft.everyTable || draft.tables.length !== 1)) errors.filter = 'A filter is about one table: choose exactly one.';
  const headersError = headersProblem(draft.headers);
  if (headersError) errors.headers = headersError;
  if (Object.keys(errors).length > 0) return { errors };
  const headers = Object.fromEntries(draft.headers.filter((row) => row.name.trim() !== '').map((row) => [row.name.trim(), row.value]));
  return {
    errors,
    input: { url, tables: draft.everyTable ? '*' : [...draft.tables], events: [...draft.events], filter: filter || null, headers, enabled: draft.enabled },
  };
}

/** What an edit changes, field by field (an empty object: nothing to send). */
export function changeOf(webhook: Webhook, input: WebhookInput): Partial<WebhookInput> {
  const before: WebhookInput = { url: webhook.url, tables: webhook.tables, events: webhook.events, filter: webhook.filter, headers: webhook.headers, enabled: webhook.enabled };
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const sorted = (tables: WebhookInput['tables']) => (tables === '*' ? tables : [...tables].sort());
  const change: Partial<WebhookInput> = {};
  if (input.url !== before.url) change.url = input.url;
  if (!same(sorted(input.tables), sorted(before.tables))) change.tables = input.tables;
  if (!same(input.events, before.events)) change.events = input.events;
  if ((input.filter ?? null) !== before.filter) change.filter = input.filter ?? null;
  const headers = input.headers ?? {};
  if (!same(Object.entries(headers).sort(), Object.entries(before.headers ?? {}).sort())) change.headers = headers;
  if (input.enabled !== undefined && input.enabled !== before.enabled) change.enabled = input.enabled;
  return change;
}

/** A server refusal on the field it names (`events.1` is the events' field), else about the whole form. */
export function webhookErrors(error: unknown): { fields: FieldErrors; form: string | undefined } {
  const field = fieldOfError(error);
  return splitError(error, WEBHOOK_FIELDS, field ? { [field]: field.split('.')[0]! } : {});
}

/** How a webhook's tables read: "every table" or the names. */
export function tablesText(tables: Webhook['tables']): string {
  return tables === '*' ? 'every table' : tables.join(', ');
}
