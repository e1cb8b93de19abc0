/**
 * Webhooks (API.md, "Webhooks: changes delivered to other services"): the shapes the admin API answers, shared by the
 * server, the client library and the console.
 */

/** What a webhook may be sent: the changes of its tables; `truncate` only when named. */
export const WEBHOOK_EVENTS = ['insert', 'update', 'delete', 'truncate'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['insert', 'update', 'delete'];

/** pending: not tried yet (or being tried); failed: tried, tried again later; delivered: a 2xx; dead: given up. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** At most this many extra headers per webhook; never these names. */
export const MAX_WEBHOOK_HEADERS = 10;
export const RESERVED_WEBHOOK_HEADER = /^(webhook-.*|host|content-.*)$/i;

export interface Webhook {
  id: string;
  url: string;
  /** The tables it follows, or "*" for every table (later ones too). */
  tables: string[] | '*';
  events: WebhookEvent[];
  /** An expression of the rules language about its one table, evaluated when a change is queued. */
  filter: string | null;
  headers: Record<string, string>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** While a rotated secret still signs (24 h after the rotation), when it stops. */
  previousSecretUntil: string | null;
}

/** The answer of creating a webhook or rotating its secret: the secret, shown this once. */
export type WebhookWithSecret = Webhook & { secret: string };

export interface WebhookInput {
  url: string;
  tables: string[] | '*';
  events?: WebhookEvent[];
  filter?: string | null;
  headers?: Record<string, string>;
  enabled?: boolean;
}

/** The body a receiver gets. */
export interface WebhookPayload<Row = Record<string, unknown>> {
  type: WebhookEvent;
  table: string;
  record: Row | null;
  old: Row | null;
  changedAt: string;
}

export interface WebhookDelivery {
  /** The `webhook-id` header: the same on every attempt. */
  id: string;
  webhookId: string;
  table: string;
  type: WebhookEvent;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  latencyMs: number | null;
  changedAt: string;
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  payload: WebhookPayload;
}
