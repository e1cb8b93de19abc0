import type { Knex } from 'knex';
import type { EmailChangeInput, SmtpSettings } from '@basalt/contract';
import { invalidField } from '../../errors.js';
import type { AccountService, Origin } from '../accounts.js';
import type { AbuseLimiter } from '../limits.js';
import type { PasswordChanges } from '../passwordChanges.js';
import type { PasswordHasher } from '../passwords.js';
import type { SessionStore } from '../sessions.js';
import { EmailSignIn } from './emailSignIn.js';
import { EmailFlows } from './flows.js';
import { OwnerMail } from './invites.js';
import { Mailer } from './mailer.js';
import { Outbox } from './outbox.js';
import { ProofStore } from './proofs.js';
import { MailSecrets } from './secrets.js';
import { OutboxSender, type SenderCounters } from './sender.js';
import type { EmailSettings } from './settings.js';
import { Templates } from './templates.js';
import { checkRedirect } from './validation.js';

export interface EmailDeps {
  knex: Knex;
  settings: EmailSettings;
  jwtSecret: string;
  accounts: AccountService;
  sessions: SessionStore;
  passwords: PasswordHasher;
  passwordChanges: PasswordChanges;
  limiter: AbuseLimiter;
  /** Tokens for a proven account, or the second step when it has a factor on (auth/mfa). */
  completeSignIn: ConstructorParameters<typeof EmailSignIn>[2];
  /** Outside production, each unsent mail's link is logged (`npm start` without SMTP). */
  announce?: (message: string) => void;
  onError?: (error: unknown) => void;
}

const REQUIRED_SINCE = 'email_verification_required_since';

/** `email.from` as written when it names itself (`App <app@example.com>`), else the address under the project's name. */
const senderOf = (from: string, projectName: string) => (from.includes('<') ? from : { address: from, name: projectName });

/** Email, wired (issue 26): the outbox and its sender, the flows, the owner's mails. */
export class EmailService {
  readonly outbox: Outbox;
  readonly flows: EmailFlows;
  readonly signIn: EmailSignIn;
  readonly owner: OwnerMail;
  private readonly sender: OutboxSender | null;
  private readonly mailer: Mailer;
  /** Mails this process handed to the SMTP server, and gave up on (the metrics). */
  readonly counts = { sent: 0, failed: 0 };

  constructor(private readonly deps: EmailDeps) {
    const { knex, settings } = deps;
    const secrets = new MailSecrets(deps.jwtSecret);
    const counters: SenderCounters = { sent: () => void this.counts.sent++, failed: () => void this.counts.failed++ };
    this.sender = settings.smtpUrl ? new OutboxSender(knex, secrets, settings.smtpUrl, senderOf(settings.from!, settings.projectName), counters, deps.onError) : null;
    this.outbox = new Outbox(knex, secrets, { smtpConfigured: this.sender !== null, ...(deps.announce ? { announce: deps.announce } : {}), queued: () => this.sender?.kick() });
    this.mailer = new Mailer(knex, settings, new ProofStore(knex, secrets), this.outbox, new Templates(settings.templatesDir), deps.limiter);
    this.flows = new EmailFlows(this.mailer, deps.accounts, deps.sessions, deps.passwords, deps.passwordChanges, deps.completeSignIn);
    this.signIn = new EmailSignIn(this.mailer, deps.accounts, deps.completeSignIn);
    this.owner = new OwnerMail(this.mailer, deps.accounts);
  }

  get settings(): EmailSettings {
    return this.deps.settings;
  }

  get smtp(): SmtpSettings {
    return { configured: this.sender !== null, from: this.deps.settings.from };
  }

  /**
   * At start-up: under `required`, every account that exists when it is turned on counts as verified (once: the
   * moment is kept, and forgotten when it is turned off). Then the sender starts.
   */
  async start(): Promise<void> {
    const { knex } = this.deps;
    if (this.deps.settings.verification === 'required') {
      await knex.transaction(async (trx) => {
        const inserted = await trx.raw<{ rowCount: number }>(`INSERT INTO _basalt_settings (key, value) VALUES (?, now()::text) ON CONFLICT (key) DO NOTHING`, [REQUIRED_SINCE]);
        if (inserted.rowCount > 0) await trx.raw(`UPDATE users SET email_verified = true WHERE NOT email_verified`);
      });
    } else {
      await knex('_basalt_settings').where({ key: REQUIRED_SINCE }).delete();
    }
    await this.sender?.start();
  }

  async stop(): Promise<void> {
    await this.sender?.stop();
  }

  redirect(candidate: string | undefined): string | null {
    return checkRedirect(this.deps.settings.redirectUrls, candidate);
  }

  /** The proof an account without a password gives: the code of a fresh sign-in mail to its address. */
  readonly proveByCode = async (userId: string, code: string): Promise<void> => {
    const user = await this.deps.accounts.profile(userId);
    await this.mailer.proofs.use(this.deps.knex, { email: user.email, code }, ['otp']);
  };

  /** `POST /auth/email`: the password, or for an account without one a fresh emailed code. */
  async confirmIdentity(userId: string, input: EmailChangeInput, origin: Origin): Promise<void> {
    if (input.code !== undefined) {
      const user = await this.deps.accounts.profile(userId);
      if (user.hasPassword) throw invalidField('password', 'This account has a password: confirm the change with it');
      await this.proveByCode(userId, input.code);
      return;
    }
    await this.deps.accounts.confirmPassword(userId, input.password, 'password', origin);
  }
}
