import type { Knex } from 'knex';
import { EMAIL_CODE_TTL_SECONDS, type EmailKind, type EmailLinkKind } from '@basalt/contract';
import type { Counter } from '../limits.js';
import type { AbuseLimiter } from '../limits.js';
import type { Outbox } from './outbox.js';
import type { NewProof, ProofStore } from './proofs.js';
import type { EmailSettings } from './settings.js';
import type { TemplateValues, Templates } from './templates.js';

/**
 * Writes mails: a proof and the mail that carries it in one transaction (the caller's), rendered in the reader's
 * locale, with a link to `auth.siteUrl` or Basalt's confirm page. Also the limits every sending endpoint shares.
 */
export class Mailer {
  constructor(
    readonly knex: Knex,
    readonly settings: EmailSettings,
    readonly proofs: ProofStore,
    readonly outbox: Outbox,
    private readonly templates: Templates,
    private readonly limiter: AbuseLimiter,
  ) {}

  /** `<auth.siteUrl, else PUBLIC_URL/auth/confirm>#type=<kind>&token=<token>&redirectTo=<url>` (a fragment: no server or log sees it). */
  linkFor(kind: EmailLinkKind, token: string, redirectTo: string | null | undefined): string {
    const base = new URL(this.settings.siteUrl ?? `${this.settings.publicUrl}/auth/confirm`);
    const fragment = new URLSearchParams({ type: kind, token, ...(redirectTo ? { redirectTo } : {}) });
    base.hash = fragment.toString();
    return base.href;
  }

  /** The limits of a sending endpoint: per client address and per recipient (known or not), in one statement. */
  async countSend(address: string, recipient: string): Promise<void> {
    const counters: Counter[] = [
      { name: 'emailsPerAddress', subject: address },
      { name: 'emailsPerRecipient', subject: recipient },
    ];
    await this.limiter.consumeAll(counters);
  }

  /** A proof and its mail, in `trx`. */
  async sendProof(trx: Knex.Transaction, proof: NewProof, locale: string | null, values: TemplateValues = {}): Promise<void> {
    const { token, code } = await this.proofs.create(trx, proof);
    const link = this.linkFor(proof.kind, token, proof.redirectTo);
    await this.write(trx, proof.kind, proof.email, locale, { link, code, newEmail: proof.newEmail ?? undefined, ...values }, { link, code });
  }

  /** A mail without a proof (a notice, a test). */
  async sendNotice(db: Knex | Knex.Transaction, kind: EmailKind, to: string, locale: string | null, values: TemplateValues = {}): Promise<void> {
    await this.write(db, kind, to, locale, values, { link: null, code: null });
  }

  private async write(db: Knex | Knex.Transaction, kind: EmailKind, to: string, locale: string | null, values: TemplateValues, carried: { link: string | null; code: string | null }) {
    const rendered = this.templates.render(kind, locale ?? 'en', {
      email: to,
      projectName: this.settings.projectName,
      expiresInMinutes: String(EMAIL_CODE_TTL_SECONDS / 60),
      ...values,
    });
    await this.outbox.enqueue(db, kind, to, { ...rendered, ...carried });
  }

  /** Runs `work` in a transaction and wakes the sender once it committed. */
  async inTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const result = await this.knex.transaction(work);
    this.outbox.wake();
    return result;
  }
}
