import type { Knex } from 'knex';
import type { Transporter } from 'nodemailer';
import type { MailSecrets } from './secrets.js';
import type { MailBody } from './outbox.js';
import { QueueLoop } from '../../db/queueLoop.js';

/**
 * Sends the outbox (API.md, "Email"): any process leases due mails (`FOR UPDATE SKIP LOCKED`, a lease of
 * LEASE_SECONDS), so a process killed while sending leaves them to another once the lease ends. nodemailer speaks SMTP
 * (maintained, and it knows STARTTLS, auth and pooling); its timeouts keep one send inside a lease. A refusal the SMTP
 * server calls permanent (5xx) fails the mail at once; anything else (4xx, no connection) is retried with a doubling
 * backoff with jitter, for 24 hours from the mail's creation, then failed. A body is deleted when the mail is sent or
 * failed. At most BATCH mails per round, SENDING_AT_ONCE at a time per process.
 */
export const LEASE_SECONDS = 30;
const BATCH = 20;
const SENDING_AT_ONCE = 5;
const POLL_MS = 1_000;
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;
const BACKOFF_FIRST_MS = 2_000;
const BACKOFF_MAX_MS = 10 * 60_000;

interface LeasedRow {
  id: string;
  recipient: string;
  body: Buffer | null;
  attempts: number;
  created_at: string;
}

export interface SenderCounters {
  sent(): void;
  failed(): void;
}

/** The backoff before attempt `attempts + 1`: 2 s, 4 s, 8 s, ... up to 10 min, each +-20 %. */
export function backoffMs(attempts: number, random = Math.random): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** What the outbox keeps of an SMTP failure: its response or message, without anything that could hold a secret. */
function describeFailure(error: unknown): { permanent: boolean; text: string } {
  const { responseCode, response, code, message } = (error ?? {}) as { responseCode?: number; response?: string; code?: string; message?: string };
  const text = (response ?? (code ? `${code}: ${message ?? ''}` : message) ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 500);
  return { permanent: typeof responseCode === 'number' && responseCode >= 500, text };
}

export class OutboxSender {
  private transport: Transporter | null = null;
  private readonly smtpUrl: string;
  private readonly loop: QueueLoop;
  private stopped = false;

  constructor(
    private readonly knex: Knex,
    private readonly secrets: MailSecrets,
    smtpUrl: string,
    private readonly from: string | { address: string; name: string },
    private readonly counters: SenderCounters,
    onError?: (error: unknown) => void,
  ) {
    this.smtpUrl = smtpUrl;
    // Before start() loaded nodemailer, mails wait for its first round.
    this.loop = new QueueLoop(() => this.round(), { pollMs: POLL_MS, ready: () => this.transport !== null, onError });
  }

  /** Loads nodemailer (only a process with SMTP_URL does) and sends every second from then on. */
  async start(): Promise<void> {
    const { default: nodemailer } = await import('nodemailer');
    // A pool of SENDING_AT_ONCE connections, each reused for up to 100 mails: a greeting (and a TLS handshake and AUTH
    // with a real provider) per mail capped one process near 40 mails a second (E1, docs/performance.md).
    this.transport = nodemailer.createTransport({
      url: this.smtpUrl,
      pool: true,
      maxConnections: SENDING_AT_ONCE,
      maxMessages: 100,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    });
    this.loop.start();
  }

  /** A round now (or right after the running one). */
  kick(): void {
    this.loop.kick();
  }

  /** One round: a full batch leased means more may be due. */
  private async round(): Promise<boolean> {
    const leased = await this.lease();
    await this.sendAll(leased);
    return leased.length === BATCH;
  }

  private async lease(): Promise<LeasedRow[]> {
    const result = await this.knex.raw<{ rows: LeasedRow[] }>(
      `UPDATE _basalt_outbox o SET lease_until = now() + make_interval(secs => ?), attempts = o.attempts + 1, updated_at = now()
       FROM (SELECT id FROM _basalt_outbox
             WHERE status = 'queued' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
             ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) due
       WHERE o.id = due.id
       RETURNING o.id, o.recipient, o.body, o.attempts, o.created_at`,
      [LEASE_SECONDS, BATCH],
    );
    return result.rows;
  }

  private async sendAll(rows: LeasedRow[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < rows.length && !this.stopped) await this.sendOne(rows[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(SENDING_AT_ONCE, rows.length) }, worker));
  }

  private async sendOne(row: LeasedRow): Promise<void> {
    try {
      const body = this.bodyOf(row);
      await this.transport!.sendMail({ from: this.from, to: row.recipient, subject: body.subject, text: body.text, html: body.html });
      await this.knex.raw(
        `UPDATE _basalt_outbox SET status = 'sent', body = NULL, sent_at = now(), lease_until = NULL, last_error = NULL, updated_at = now() WHERE id = ?`,
        [row.id],
      );
      this.counters.sent();
    } catch (error) {
      const failure = describeFailure(error);
      const expired = Date.now() - new Date(row.created_at).getTime() >= GIVE_UP_AFTER_MS;
      if (failure.permanent || expired) {
        await this.knex.raw(`UPDATE _basalt_outbox SET status = 'failed', body = NULL, lease_until = NULL, last_error = ?, updated_at = now() WHERE id = ?`, [failure.text, row.id]);
        this.counters.failed();
      } else {
        await this.knex.raw(
          `UPDATE _basalt_outbox SET lease_until = NULL, last_error = ?, next_attempt_at = now() + make_interval(secs => ?), updated_at = now() WHERE id = ?`,
          [failure.text, backoffMs(row.attempts) / 1000, row.id],
        );
      }
    }
  }

  /** A body that cannot be read (none, or sealed under another JWT_SECRET) fails the mail for good. */
  private bodyOf(row: LeasedRow): MailBody {
    try {
      if (row.body) return this.secrets.decrypt<MailBody>(row.body);
    } catch {
      // Sealed under another key.
    }
    throw Object.assign(new Error('the body cannot be decrypted (was JWT_SECRET changed?)'), { responseCode: 554 });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    this.transport?.close();
  }
}
