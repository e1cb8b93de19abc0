import type { Webhook, WebhookDelivery, WebhookWithSecret } from '@basalt/contract';
import { parseCreate, parsePatch, settle, type InputContext } from './input.js';
import { activeOf, settingsOf, webhookOf, type WebhookStore } from './store.js';
import type { Deliveries, DeliveryQuery } from './deliveries.js';
import { invalidField } from '../errors.js';
import { filterDependencies } from './filter.js';

/**
 * The owner's webhooks (API.md, Webhooks), behind /admin/webhooks: every change of one saved, then the tables the
 * enabled webhooks follow held captured (tracking/capture.ts `hold`), so a change written after the answer is in the
 * log for the enqueuer.
 */
export class WebhookService {
  /** Told of every change of a webhook in this process (the background work wakes from its idle pace). */
  changed: () => void = () => undefined;

  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: Deliveries,
    private readonly context: InputContext,
    private readonly holdCapture: (tables: readonly string[] | '*') => Promise<void>,
  ) {}

  async list(): Promise<Webhook[]> {
    return (await this.store.list()).map(webhookOf);
  }

  async get(id: string): Promise<Webhook> {
    return webhookOf(await this.store.get(id));
  }

  async create(body: unknown): Promise<WebhookWithSecret> {
    const settings = await settle(null, parseCreate(body), this.context);
    const { row, secret } = await this.store.create(settings);
    this.changed();
    await this.syncCapture();
    return { ...webhookOf(row), secret };
  }

  async update(id: string, body: unknown): Promise<Webhook> {
    const change = parsePatch(body);
    const current = await this.store.get(id);
    const settings = await settle(settingsOf(current), change, this.context);
    const row = await this.store.update(id, settings);
    this.changed();
    await this.syncCapture();
    return webhookOf(row);
  }

  async remove(id: string): Promise<void> {
    await this.store.remove(id);
    await this.syncCapture();
  }

  async rotate(id: string): Promise<WebhookWithSecret> {
    const { row, secret } = await this.store.rotate(id);
    return { ...webhookOf(row), secret };
  }

  async listDeliveries(id: string, query: DeliveryQuery): Promise<{ data: WebhookDelivery[]; next: string | null }> {
    await this.store.get(id);
    return this.deliveries.list(id, query);
  }

  async retry(id: string, delivery: string): Promise<WebhookDelivery> {
    const retried = await this.deliveries.retry(id, delivery);
    this.changed();
    return retried;
  }

  async replay(id: string, body: unknown): Promise<number> {
    const row = await this.store.get(id);
    const input = body as Record<string, unknown>;
    for (const name of Object.keys(input)) if (name !== 'since') throw invalidField(name, `${name} is not a known field`);
    const queued = await this.deliveries.replay(activeOf(row), input.since);
    this.changed();
    return queued;
  }

  /** The first webhook whose filter reads this table or column (`webhooks.<id>.filter`): a drop would break it. */
  async filterReading(table: string, column?: string): Promise<string | undefined> {
    for (const row of await this.store.list()) {
      // Dropping the webhook's own table ends its changes anyway (as a table's own rules go with it).
      if (!row.filter || !row.tables || row.tables.length !== 1 || (column === undefined && row.tables[0] === table)) continue;
      const reads = filterDependencies(this.context.cache, row.tables[0]!, row.filter);
      if (reads && (column === undefined ? reads.tables.includes(table) : reads.columns.includes(`${table}.${column}`))) return `webhooks.${row.id}.filter`;
    }
    return undefined;
  }

  /** The enabled webhooks' tables held captured (every minute too: tables made later under `"*"`, captures psql switched off). */
  async syncCapture(): Promise<void> {
    const active = await this.store.active();
    if (active.some((webhook) => webhook.tables === '*')) return this.holdCapture('*');
    await this.holdCapture([...new Set(active.flatMap((webhook) => webhook.tables as string[]))]);
  }
}
