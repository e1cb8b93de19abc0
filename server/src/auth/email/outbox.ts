import type { Knex } from 'knex';
import { UNSENT_NO_SMTP, type EmailKind, type OutboxMail, type OutboxStatus } from '@basalt/contract';
import { invalidParameter, notFound } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { MailSecrets } from './secrets.js';
import type { RenderedMail } from './templates.js';

/**
 * The outbox (API.md, "Email"): every mail is a row written in the caller's transaction (the one that makes the proof
 * it carries), so a mail exists exactly when its token does. Bodies are encrypted; the sender (sender.ts) deletes a
 * body once the mail was sent or given up. Without SMTP a mail is written `unsent` and stays for the owner to read.
 */
export interface MailBody extends RenderedMail {
  /** The link and code it carries, for the owner's outbox while it is unsent (and the development log). */
  link: string | null;
  code: string | null;
}

interface OutboxRow {
  id: string;
  kind: EmailKind;
  recipient: string;
  body: Buffer | null;
  status: OutboxStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
}

export interface OutboxOptions {
  smtpConfigured: boolean;
  /** Outside production, each unsent mail's link is printed so (`npm start` without SMTP). */
  announce?: (message: string) => void;
  /** A mail was queued by this process: the sender may start at once. */
  queued?: () => void;
}

export class Outbox {
  constructor(
    private readonly knex: Knex,
    private readonly secrets: MailSecrets,
    private readonly options: OutboxOptions,
  ) {}

  /** Writes a mail in `db` (a transaction when a proof goes with it); the sender is told after the caller commits. */
  async enqueue(db: Knex | Knex.Transaction, kind: EmailKind, to: string, body: MailBody): Promise<string> {
    const id = randomId();
    const queued = this.options.smtpConfigured;
    await db('_basalt_outbox').insert({
      id,
      kind,
      recipient: to,
      body: this.secrets.encrypt(body),
      status: queued ? 'queued' : 'unsent',
      last_error: queued ? null : UNSENT_NO_SMTP,
    });
    if (!queued && body.link) this.options.announce?.(`Mail not sent (no SMTP_URL): ${kind} to ${to}: ${body.link} (code ${body.code})`);
    return id;
  }

  /** Wakes the sender: called once the transaction that wrote mails committed. */
  wake(): void {
    if (this.options.smtpConfigured) this.options.queued?.();
  }

  private describe(row: OutboxRow): OutboxMail {
    const body = row.status === 'unsent' && row.body ? this.secrets.decrypt<MailBody>(row.body) : null;
    return {
      id: row.id,
      kind: row.kind,
      to: row.recipient,
      status: row.status,
      attempts: row.attempts,
      lastError: row.last_error,
      createdAt: row.created_at,
      link: body?.link ?? null,
      code: body?.code ?? null,
    };
  }

  /** `GET /admin/outbox`: newest first. */
  async list(query: { status?: OutboxStatus; limit: number; offset: number }): Promise<{ mails: OutboxMail[]; total: number }> {
    const filtered = () => (query.status ? this.knex('_basalt_outbox').where({ status: query.status }) : this.knex('_basalt_outbox'));
    const [rows, count] = await Promise.all([
      filtered()
        .select<OutboxRow[]>('id', 'kind', 'recipient', 'body', 'status', 'attempts', 'last_error', 'created_at')
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(query.limit)
        .offset(query.offset),
      filtered().count({ total: '*' }).first<{ total: string | number } | undefined>(),
    ]);
    return { mails: rows.map((row) => this.describe(row)), total: Number(count?.total ?? 0) };
  }

  /** `POST /admin/outbox/:id/retry`: a queued mail waiting for its next attempt is tried now. */
  async retry(id: string): Promise<OutboxMail> {
    const result = await this.knex.raw<{ rows: OutboxRow[] }>(
      `UPDATE _basalt_outbox SET next_attempt_at = now(), updated_at = now()
       WHERE id = ? AND status = 'queued' AND (lease_until IS NULL OR lease_until < now())
       RETURNING id, kind, recipient, body, status, attempts, last_error, created_at`,
      [id],
    );
    const row = result.rows[0];
    if (!row) {
      const existing = await this.knex('_basalt_outbox').where({ id }).first<{ status: OutboxStatus } | undefined>('status');
      if (!existing) throw notFound(`No mail ${id} in the outbox`);
      const why = existing.status === 'queued' ? 'it is being sent right now' : existing.status === 'unsent' ? `it was written without SMTP (${UNSENT_NO_SMTP}) and is never sent: ask for a new mail` : `it is ${existing.status} and its body is gone: ask for a new mail`;
      throw invalidParameter('id', `Mail ${id} cannot be retried: ${why}`);
    }
    this.wake();
    return this.describe(row);
  }

  /** What the metrics show: queued mails and the age of the oldest, in seconds. */
  async backlog(): Promise<{ queued: number; oldestSeconds: number }> {
    const result = await this.knex.raw<{ rows: Array<{ queued: number; oldest: number | null }> }>(
      `SELECT count(*)::int AS queued, extract(epoch FROM now() - min(created_at))::float8 AS oldest FROM _basalt_outbox WHERE status = 'queued'`,
    );
    const row = result.rows[0];
    return { queued: row?.queued ?? 0, oldestSeconds: row?.oldest ?? 0 };
  }
}
