import type { Knex } from 'knex';
import type { Webhook, WebhookEvent } from '@basalt/contract';
import { Sealer } from '../auth/sealed.js';
import { randomId } from '../ids.js';
import { notFound } from '../errors.js';
import { newSecret, ROTATION_OVERLAP_MS } from './delivery/signing.js';
import type { WebhookSettings } from './input.js';

/**
 * The owner's webhooks (`_basalt_webhooks`, migration `webhooks`). Secrets are sealed at rest (AES-GCM under a key
 * derived from JWT_SECRET for this purpose alone) and answered only when made: at creation and at a rotation, after
 * which the previous one keeps signing for 24 h. `since` is the transaction from which a webhook's changes are
 * delivered: its creation, or the change that enabled it again (changes made while it was disabled are skipped).
 */

export interface WebhookRow {
  id: string;
  url: string;
  tables: string[] | null;
  events: WebhookEvent[];
  filter: string | null;
  headers: Record<string, string>;
  enabled: boolean;
  secret: Buffer;
  previous_secret: Buffer | null;
  previous_until: Date | string | null;
  since: string;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A webhook as the enqueuer uses it: from which transaction on it takes changes. */
export type ActiveWebhook = Pick<Webhook, 'id' | 'url' | 'tables' | 'events' | 'filter' | 'headers'> & { since: bigint };

/** Knex answers timestamps as text (db/knex.ts): an ISO text with milliseconds either way. */
export const iso = (value: Date | string) => new Date(value).toISOString();

export function webhookOf(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    tables: row.tables ?? '*',
    events: row.events,
    filter: row.filter,
    headers: row.headers,
    enabled: row.enabled,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    previousSecretUntil: row.previous_until && Date.parse(iso(row.previous_until)) > Date.now() ? iso(row.previous_until) : null,
  };
}

export function activeOf(row: WebhookRow): ActiveWebhook {
  return { id: row.id, url: row.url, tables: row.tables ?? '*', events: row.events, filter: row.filter, headers: row.headers, since: BigInt(row.since) };
}

export function settingsOf(row: WebhookRow): WebhookSettings {
  return { url: row.url, tables: row.tables ?? '*', events: row.events, filter: row.filter, headers: row.headers, enabled: row.enabled };
}

const COLUMNS = 'id, url, tables, events, filter, headers, enabled, secret, previous_secret, previous_until, since::text AS since, created_at, updated_at';

export class WebhookStore {
  private readonly sealer: Sealer;

  constructor(
    private readonly knex: Knex,
    jwtSecret: string,
  ) {
    this.sealer = new Sealer(jwtSecret, 'basalt webhook secrets');
  }

  async list(): Promise<WebhookRow[]> {
    const result = await this.knex.raw<{ rows: WebhookRow[] }>(`SELECT ${COLUMNS} FROM _basalt_webhooks ORDER BY created_at, id`);
    return result.rows;
  }

  async get(id: string): Promise<WebhookRow> {
    const result = await this.knex.raw<{ rows: WebhookRow[] }>(`SELECT ${COLUMNS} FROM _basalt_webhooks WHERE id = ?`, [id]);
    const row = result.rows[0];
    if (!row) throw notFound('No such webhook');
    return row;
  }

  async create(settings: WebhookSettings): Promise<{ row: WebhookRow; secret: string }> {
    const secret = newSecret();
    const result = await this.knex.raw<{ rows: WebhookRow[] }>(
      `INSERT INTO _basalt_webhooks (id, url, tables, events, filter, headers, enabled, secret, since)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, pg_current_xact_id()) RETURNING ${COLUMNS}`,
      [randomId(), settings.url, settings.tables === '*' ? null : settings.tables, settings.events, settings.filter, JSON.stringify(settings.headers), settings.enabled, this.sealer.seal(secret)],
    );
    return { row: result.rows[0]!, secret };
  }

  /** Saves settings; a webhook enabled by this change takes the changes from this transaction on. */
  async update(id: string, settings: WebhookSettings): Promise<WebhookRow> {
    const result = await this.knex.raw<{ rows: WebhookRow[] }>(
      `UPDATE _basalt_webhooks SET url = ?, tables = ?, events = ?, filter = ?, headers = ?, enabled = ?,
              since = CASE WHEN ? AND NOT enabled THEN pg_current_xact_id() ELSE since END, updated_at = now()
        WHERE id = ? RETURNING ${COLUMNS}`,
      [settings.url, settings.tables === '*' ? null : settings.tables, settings.events, settings.filter, JSON.stringify(settings.headers), settings.enabled, settings.enabled, id],
    );
    if (!result.rows[0]) throw notFound('No such webhook');
    return result.rows[0];
  }

  async remove(id: string): Promise<void> {
    const result = await this.knex.raw<{ rows: unknown[] }>(`DELETE FROM _basalt_webhooks WHERE id = ? RETURNING 1`, [id]);
    if (result.rows.length === 0) throw notFound('No such webhook');
  }

  /** A new secret; the current one keeps signing for 24 h (a rotation within them drops the oldest). */
  async rotate(id: string): Promise<{ row: WebhookRow; secret: string }> {
    const secret = newSecret();
    const result = await this.knex.raw<{ rows: WebhookRow[] }>(
      `UPDATE _basalt_webhooks SET previous_secret = secret, previous_until = now() + make_interval(secs => ?), secret = ?, updated_at = now()
        WHERE id = ? RETURNING ${COLUMNS}`,
      [ROTATION_OVERLAP_MS / 1000, this.sealer.seal(secret), id],
    );
    if (!result.rows[0]) throw notFound('No such webhook');
    return { row: result.rows[0], secret };
  }

  /** The secrets that sign now: the current one, and the previous one while it is still valid. */
  secretsOf(row: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_until'>): string[] {
    const secrets = [this.sealer.open<string>(row.secret)];
    if (row.previous_secret && row.previous_until && Date.parse(iso(row.previous_until)) > Date.now()) {
      try {
        secrets.push(this.sealer.open<string>(row.previous_secret));
      } catch {
        // Sealed under another JWT_SECRET (the rotation that follows one): the new secret signs alone.
      }
    }
    return secrets;
  }

  /** The enabled webhooks, as the enqueuer matches changes against them. */
  async active(trx?: Knex.Transaction): Promise<ActiveWebhook[]> {
    // In the enqueuer's transaction the rows are held (KEY SHARE) until its deliveries are in: a webhook deleted
    // meanwhile goes after them, with them (its DELETE waits), rather than failing the round's insert.
    const result = await (trx ?? this.knex).raw<{ rows: WebhookRow[] }>(`SELECT ${COLUMNS} FROM _basalt_webhooks WHERE enabled ORDER BY id${trx ? ' FOR KEY SHARE' : ''}`);
    return result.rows.map(activeOf);
  }
}
