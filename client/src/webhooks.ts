import type { DeliveryStatus, Webhook, WebhookDelivery, WebhookInput, WebhookWithSecret } from '@basalt/contract';
import { segment } from './http.js';
import { sendForData, type Send } from './transport.js';

/** `admin.webhooks.deliveries`: newest first, optionally only one status; `before` is the `next` of the page before. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  /** 1-200, default 50. */
  limit?: number;
  before?: string;
}

/** A page of deliveries: `next` goes into `before` for the page after it (null: this was the last). */
export interface DeliveryPage {
  data: WebhookDelivery[];
  next: string | null;
}

/** What `update` takes: any of a webhook's settings. */
export type WebhookChange = Partial<WebhookInput>;

/**
 * The owner's webhooks under `/admin/webhooks` (docs/api.md, "Webhooks"): every committed change of the tables a
 * webhook follows is delivered to its URL, signed the Standard Webhooks way with its secret, which only `create` and
 * `rotateSecret` answer. Problems are 400 VALIDATION_ERROR naming the field (`details.field`); a member gets 403.
 */
export class WebhooksClient {
  constructor(private readonly send: Send) {}

  private data<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return sendForData<T>(this.send, method, path, body);
  }

  private path(id: string): string {
    return `/admin/webhooks/${segment(id)}`;
  }

  /** Every webhook, without secrets. */
  list(): Promise<Webhook[]> {
    return this.data('GET', '/admin/webhooks');
  }

  get(id: string): Promise<Webhook> {
    return this.data('GET', this.path(id));
  }

  /** `events` default insert, update and delete (`truncate` only when named). The answer holds the secret, this once. */
  create(input: WebhookInput): Promise<WebhookWithSecret> {
    return this.data('POST', '/admin/webhooks', input);
  }

  /** Enabled again, a webhook takes the changes from then on: those made while it was disabled are skipped. */
  update(id: string, change: WebhookChange): Promise<Webhook> {
    return this.data('PATCH', this.path(id), change);
  }

  /** Deletes the webhook with its queue. */
  remove(id: string): Promise<{ id: string; deleted: true }> {
    return this.data('DELETE', this.path(id));
  }

  /** A new secret, answered this once; the old one also signs for 24 h more (`previousSecretUntil`). */
  rotateSecret(id: string): Promise<WebhookWithSecret> {
    return this.data('POST', `${this.path(id)}/secret`);
  }

  /** The webhook's deliveries, newest first, each with its attempts, last status code, error, latency and payload. */
  async deliveries(id: string, query: DeliveryQuery = {}): Promise<DeliveryPage> {
    const body = await this.send<DeliveryPage>({ method: 'GET', path: `${this.path(id)}/deliveries`, query: { ...query } });
    return { data: body.data, next: body.next };
  }

  /** Tries a delivery again now, whatever its status, with the same `webhook-id` (it may arrive after later changes). */
  retry(id: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.data('POST', `${this.path(id)}/deliveries/${segment(deliveryId)}/retry`);
  }

  /**
   * Queues again the changes still in the log written at or after `since` (new `webhook-id`s): `queued` says how
   * many. A `since` older than the log keeps is 400 naming `since`, with `details.oldest`.
   */
  replay(id: string, since: Date | string): Promise<{ queued: number }> {
    return this.data('POST', `${this.path(id)}/replay`, { since: since instanceof Date ? since.toISOString() : since });
  }
}
