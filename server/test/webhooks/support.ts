import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type pg from 'pg';
import { createTable, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';

/**
 * What the delivery tests share (delivery.test.ts, queue.test.ts): a Basalt with an `orders` table, a fresh real
 * receiver per test (it verifies Standard Webhooks signatures with the `standardwebhooks` package) and the webhook the
 * test made, deleted after it. The bindings are live: read them after `useDeliverySuite()` registered its hooks.
 */

export let h: Harness;
export let owner: Account;
export let psql: pg.Client;
export let receiver: WebhookReceiver;
/** The webhook the running test made (`makeHook`). */
export let hook: { id: string; secret: string };

export const METRICS_TOKEN = 'webhook-metrics-token-0123456789';
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function useDeliverySuite(): void {
  beforeAll(async () => {
    h = await startHarness({ limits: false, webhooks: { allowPrivateTargets: true }, metricsToken: METRICS_TOKEN });
    owner = await signUp(h);
    psql = await h.sql();
    await createTable(h, owner, {
      name: 'orders',
      policy: 'public-read',
      columns: [
        { name: 'status', type: 'text' },
        { name: 'total', type: 'integer' },
        { name: 'paid_at', type: 'timestamp' },
        { name: 'meta', type: 'json' },
      ],
    });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    if (hook) await h.request().delete(`/admin/webhooks/${hook.id}`).set(owner.auth);
    await receiver.close();
  });
}

/** A webhook to this test's receiver (which then verifies with its secret): it becomes `hook`. */
export async function makeHook(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const response = await h.request().post('/admin/webhooks').set(owner.auth).send({ url: receiver.url, ...body });
  if (response.status !== 201) throw new Error(`webhook: ${response.status} ${JSON.stringify(response.body)}`);
  receiver.secrets = [response.body.data.secret];
  hook = response.body.data;
  return hook;
}

/** `hook`'s deliveries as the admin API lists them, optionally of one status. */
export const deliveries = async (status?: string) =>
  (await h.request().get(`/admin/webhooks/${hook.id}/deliveries${status ? `?status=${status}` : ''}`).set(owner.auth)).body.data as Array<Record<string, unknown>>;

export const byRow = (received: Received[], id: string) => received.filter((r) => (r.payload.record ?? r.payload.old)?.id === id);
