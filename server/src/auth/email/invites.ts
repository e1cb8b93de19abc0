import type { Invitation, InviteInput } from '@basalt/contract';
import { invalidField, notFound } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { AccountService } from '../accounts.js';
import type { Mailer } from './mailer.js';
import { checkRedirect } from './validation.js';

/**
 * The owner's mails (API.md, Part 2 in detail, Email): invites (a member account without a password, whose mail's
 * token sets one through `POST /auth/reset` and verifies the address; they work with `signupEnabled: false`), sending
 * an invite or a verification again, and a test mail. Not counted by the abuse limits: only the owner sends them.
 */
export class OwnerMail {
  constructor(
    private readonly mailer: Mailer,
    private readonly accounts: AccountService,
  ) {}

  async invite(input: InviteInput): Promise<Invitation> {
    const redirectTo = checkRedirect(this.mailer.settings.redirectUrls, input.redirectTo);
    return this.mailer.inTransaction(async (trx) => {
      const user = await this.accounts.insertUser(randomId(), input.email, { passwordHash: null, locale: input.locale ?? null, role: 'member' }, trx);
      await this.mailer.sendProof(trx, { kind: 'invite', userId: user.id, email: user.email, redirectTo }, input.locale ?? null);
      const created = await trx('users').where({ id: user.id }).first<{ created_at: string }>('created_at');
      return { id: user.id, email: user.email, role: 'member', createdAt: created.created_at };
    });
  }

  /** `POST /admin/users/:id/resend`: the invite again (no password yet), else the verification mail. */
  async resend(userId: string): Promise<{ sent: true; kind: 'invite' | 'verify' }> {
    const user = await this.accounts.profileIfAny(userId);
    if (!user) throw notFound(`No user ${userId}`);
    const kind = !user.hasPassword ? 'invite' : !user.verified ? 'verify' : null;
    if (kind === null) throw invalidField('id', `${user.email} is verified and has a password: there is nothing to send`);
    await this.mailer.inTransaction((trx) => this.mailer.sendProof(trx, { kind, userId: user.id, email: user.email }, user.locale));
    return { sent: true, kind };
  }

  /** `POST /admin/email/test`. */
  async test(to: string): Promise<void> {
    await this.mailer.inTransaction((trx) => this.mailer.sendNotice(trx, 'test', to, null));
  }
}
