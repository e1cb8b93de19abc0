import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type CaughtMail, type SmtpCatcher } from '../../test-support/smtp.js';
import { createPkcePair, type BasaltClient, type Invitation, type OutboxMail, type OutboxStatus } from '../src/index.js';
import { decodeJwtPayload } from '../src/session/accessToken.js';
import { codeOf, failure, linkOf, mailFrom as mailFromCatcher } from './support/mail.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/** The client's email methods against the real server, its mails read from a real SMTP server (issue 26). */

const APP = 'http://app.example.test';
let catcher: SmtpCatcher;
let configDir: string;
let live: Live;
let owner: BasaltClient;
let ownerEmail: string;

beforeAll(async () => {
  catcher = await startSmtpCatcher();
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-email-'));
  const config = path.join(configDir, 'config.json');
  await fs.writeFile(config, JSON.stringify({ email: { from: 'app@example.test' }, auth: { emailSignIn: true, redirectUrls: [`${APP}/*`] }, limits: false }));
  live = await startLive({ env: { CONFIG_PATH: config, SMTP_URL: catcher.url } });
  owner = live.client();
  ownerEmail = uniqueEmail('owner');
  await owner.auth.signUp({ email: ownerEmail, password: PASSWORD });
});
afterAll(async () => {
  await live?.stop();
  await catcher?.close();
  await fs.rm(configDir, { recursive: true, force: true });
});

const mailFrom = (address: string, action: () => Promise<unknown>) => mailFromCatcher(catcher, address, action);

/** A member signed up on a fresh client (its verification mail is waited for and returned). */
async function member(options: { locale?: string } = {}): Promise<{ client: BasaltClient; email: string; id: string; mail: CaughtMail }> {
  const client = live.client();
  const email = uniqueEmail();
  let id = '';
  const mail = await mailFrom(email, async () => {
    id = (await client.auth.signUp({ email, password: PASSWORD, ...options })).user.id;
  });
  return { client, email, id, mail };
}

describe('verification', () => {
  it('the settings say what a sign-in screen offers', async () => {
    await expect(live.client().auth.settings()).resolves.toMatchObject({ emailSignIn: true, emailVerification: 'optional', providers: [] });
  });

  it('signs up with a verification mail, and verify({ token }) from its link proves the address', async () => {
    const user = await member({ locale: 'pt-BR' });
    await expect(user.client.auth.me()).resolves.toMatchObject({ email: user.email, verified: false, hasPassword: true, locale: 'pt-BR' });
    const link = linkOf(user.mail);
    expect(link).toMatchObject({ type: 'verify', redirectTo: null });
    expect(user.mail.link).toMatch(/\/auth\/confirm#type=verify&token=/);
    expect(codeOf(user.mail)).toMatch(/^\d{6}$/);

    const verified = await user.client.auth.verify({ token: link.token });
    expect(verified).toEqual({ user: expect.objectContaining({ id: user.id, email: user.email, verified: true }), session: null });
    await expect(user.client.auth.me()).resolves.toMatchObject({ verified: true });
    // The signed-in client got new tokens at once: its access token says verified.
    const session = await user.client.auth.getSession();
    expect(decodeJwtPayload(session!.accessToken)).toMatchObject({ verified: true });
    // A link works once.
    expect((await failure(live.client().auth.verify({ token: link.token }))).details).toMatchObject({ field: 'token' });
  });

  it('sendVerification mails a new code; verify({ email, code }) proves the address, a wrong code is 400 naming code', async () => {
    const user = await member();
    const mail = await mailFrom(user.email, () => expect(live.client().auth.sendVerification(user.email, { locale: 'en' })).resolves.toEqual({ sent: true }));
    const code = codeOf(mail);
    const wrong = code === '000000' ? '000001' : '000000';
    const error = await failure(live.client().auth.verify({ email: user.email, code: wrong }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'code' } });
    await expect(live.client().auth.verify({ email: user.email, code })).resolves.toMatchObject({ user: { id: user.id, verified: true }, session: null });
    await expect(user.client.auth.me()).resolves.toMatchObject({ verified: true });
  });

  it('answers the same for an address without an account, and refuses a redirectTo outside auth.redirectUrls', async () => {
    await expect(live.client().auth.sendVerification(uniqueEmail('nobody'))).resolves.toEqual({ sent: true });
    const error = await failure(live.client().auth.sendVerification(uniqueEmail(), { redirectTo: 'https://evil.example.test/' }));
    expect(error).toMatchObject({ status: 400, details: { field: 'redirectTo' } });
  });
});

describe('recovery', () => {
  it('recover, then reset({ email, code }): the new password works and every session ended', async () => {
    const user = await member();
    const mail = await mailFrom(user.email, () => expect(live.client().auth.recover(user.email)).resolves.toEqual({ sent: true }));
    expect(linkOf(mail).type).toBe('recover');
    await live.client().auth.reset({ email: user.email, code: codeOf(mail) }, 'recovered by code');
    await expect(live.client().auth.signIn({ email: user.email, password: 'recovered by code' })).resolves.toMatchObject({ user: { id: user.id } });
    // The session signed in before the reset ended on the server; the client finds out at its next refresh.
    const stale = (await user.client.auth.getSession())!;
    const refreshed = await fetch(`${live.server.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stale.refreshToken }),
    });
    expect(refreshed.status).toBe(401);
  });

  it('recover with redirectTo, then reset({ token }) from the link; the token works once', async () => {
    const user = await member();
    const redirectTo = `${APP}/signed-in?from=recovery`;
    const mail = await mailFrom(user.email, () => live.client().auth.recover(user.email, { redirectTo }));
    const link = linkOf(mail);
    expect(link).toMatchObject({ type: 'recover', redirectTo });
    await live.client().auth.reset({ token: link.token }, 'recovered by link');
    await expect(live.client().auth.signIn({ email: user.email, password: 'recovered by link' })).resolves.toBeDefined();
    expect((await failure(live.client().auth.reset({ token: link.token }, 'once more please'))).details).toMatchObject({ field: 'token' });
    await expect(live.client().auth.recover(uniqueEmail('nobody'))).resolves.toEqual({ sent: true });
  });
});

describe('sign-in by email', () => {
  it('signInWithEmail, then verifyEmailCode by code and by the link token, each storing the session', async () => {
    const user = await member();
    const client = live.client();
    const byCode = await mailFrom(user.email, () => expect(client.auth.signInWithEmail(user.email)).resolves.toEqual({ sent: true }));
    const session = await client.auth.verifyEmailCode({ email: user.email, code: codeOf(byCode) });
    expect(session.user).toMatchObject({ id: user.id, email: user.email });
    expect(await client.auth.getSession()).toEqual(session);
    await expect(client.auth.me()).resolves.toMatchObject({ id: user.id, verified: true });

    const other = live.client();
    const byLink = await mailFrom(user.email, () => other.auth.signInWithEmail(user.email));
    const link = linkOf(byLink);
    expect(link.type).toBe('otp');
    await expect(other.auth.verifyEmailCode({ token: link.token })).resolves.toMatchObject({ user: { id: user.id } });
    await expect(other.auth.me()).resolves.toMatchObject({ id: user.id });
  });

  it('a link with redirectTo and a PKCE challenge hands a code to the app, which exchangeCode turns into a session', async () => {
    const user = await member();
    const { codeVerifier, codeChallenge } = await createPkcePair();
    const redirectTo = `${APP}/callback`;
    /** A sign-in mail with the challenge, and the click on its link as Basalt's confirm page makes it: the app's code. */
    const codeForApp = async (): Promise<string> => {
      const mail = await mailFrom(user.email, () => live.client().auth.signInWithEmail(user.email, { redirectTo, codeChallenge }));
      const link = linkOf(mail);
      expect(link).toMatchObject({ type: 'otp', redirectTo });
      const response = await fetch(`${live.server.url}/auth/otp/code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link.token }),
      });
      expect(response.status).toBe(200);
      const target = new URL(((await response.json()) as { data: { redirectTo: string } }).data.redirectTo);
      expect(`${target.origin}${target.pathname}`).toBe(redirectTo);
      return target.searchParams.get('code') ?? '';
    };

    const wrong = await createPkcePair();
    expect((await failure(live.client().auth.exchangeCode(await codeForApp(), wrong.codeVerifier))).details).toMatchObject({ field: 'code' });
    const code = await codeForApp();
    const client = live.client();
    const session = await client.auth.exchangeCode(code, codeVerifier);
    expect(session.user).toMatchObject({ id: user.id, email: user.email });
    expect(await client.auth.getSession()).toEqual(session);
    await expect(client.auth.me()).resolves.toMatchObject({ id: user.id });
    expect((await failure(live.client().auth.exchangeCode(code, codeVerifier))).details).toMatchObject({ field: 'code' });
  });

  it('a new address signs in without a password: an account is made, hasPassword false', async () => {
    const email = uniqueEmail('passwordless');
    const client = live.client();
    const mail = await mailFrom(email, () => client.auth.signInWithEmail(email));
    const session = await client.auth.verifyEmailCode({ email, code: codeOf(mail) });
    expect(session.user).toMatchObject({ email, role: 'member' });
    await expect(client.auth.me()).resolves.toMatchObject({ email, hasPassword: false, verified: true });
  });
});

describe('email change', () => {
  it('changeEmail with the password mails the new address; confirmEmailChange({ token }) switches it, the session follows', async () => {
    const user = await member();
    const newEmail = uniqueEmail('moved');
    const notice = catcher.to(user.email).length;
    const mail = await mailFrom(newEmail, () => expect(user.client.auth.changeEmail(newEmail, { password: PASSWORD })).resolves.toEqual({ sent: true }));
    expect(linkOf(mail).type).toBe('email-change');
    await catcher.waitFor(user.email, notice + 1); // the notice to the old address
    const confirmed = await user.client.auth.confirmEmailChange({ token: linkOf(mail).token });
    expect(confirmed).toMatchObject({ id: user.id, email: newEmail });
    expect((await user.client.auth.getSession())?.user.email).toBe(newEmail);
    await expect(user.client.auth.me()).resolves.toMatchObject({ email: newEmail });
    await expect(live.client().auth.signIn({ email: newEmail, password: PASSWORD })).resolves.toMatchObject({ user: { id: user.id } });
  });

  it('confirmEmailChange({ email, code }) with the new address; a wrong password is refused', async () => {
    const user = await member();
    const error = await failure(user.client.auth.changeEmail(uniqueEmail(), { password: 'not the password' }));
    expect(error.status).toBe(400);
    const newEmail = uniqueEmail('moved');
    const mail = await mailFrom(newEmail, () => user.client.auth.changeEmail(newEmail, { password: PASSWORD }));
    await expect(live.client().auth.confirmEmailChange({ email: newEmail, code: codeOf(mail) })).resolves.toMatchObject({ id: user.id, email: newEmail });
    await expect(user.client.auth.me()).resolves.toMatchObject({ email: newEmail });
  });

  it('a passwordless account proves itself with a fresh mailed code', async () => {
    const email = uniqueEmail('passwordless');
    const client = live.client();
    const first = await mailFrom(email, () => client.auth.signInWithEmail(email));
    await client.auth.verifyEmailCode({ email, code: codeOf(first) });
    const fresh = await mailFrom(email, () => client.auth.signInWithEmail(email));
    const newEmail = uniqueEmail('moved');
    const mail = await mailFrom(newEmail, () => client.auth.changeEmail(newEmail, { code: codeOf(fresh) }));
    await expect(client.auth.confirmEmailChange({ token: linkOf(mail).token })).resolves.toMatchObject({ email: newEmail });
  });
});

describe('the owner', () => {
  it('invites a member, who sets a password with the link and is verified; a taken address is 409', async () => {
    const email = uniqueEmail('invited');
    let invitation: Invitation | undefined;
    const mail = await mailFrom(email, async () => {
      invitation = await owner.admin.users.invite(email, { redirectTo: `${APP}/welcome` });
    });
    expect(invitation).toMatchObject({ email, role: 'member' });
    expect(Date.parse(invitation!.createdAt)).not.toBeNaN();
    const link = linkOf(mail);
    expect(link).toMatchObject({ type: 'invite', redirectTo: `${APP}/welcome` });
    const listed = (await owner.admin.users.list({ limit: 100 })).data.find((user) => user.id === invitation!.id);
    expect(listed).toMatchObject({ email, hasPassword: false, identities: [], mfa: false });

    // The invite again, for an account without a password yet.
    const again = await mailFrom(email, () => expect(owner.admin.users.resend(invitation!.id)).resolves.toEqual({ sent: true, kind: 'invite' }));
    expect(linkOf(again).type).toBe('invite');
    await live.client().auth.reset({ token: linkOf(again).token }, 'my invited password');
    const client = live.client();
    await client.auth.signIn({ email, password: 'my invited password' });
    await expect(client.auth.me()).resolves.toMatchObject({ id: invitation!.id, verified: true, hasPassword: true });
    // Verified with a password: nothing to resend.
    expect((await failure(owner.admin.users.resend(invitation!.id))).status).toBe(400);

    const taken = await failure(owner.admin.users.invite(email));
    expect(taken).toMatchObject({ status: 409, code: 'CONFLICT', details: { constraint: 'unique', column: 'users.email' } });
  });

  it('resends the verification mail to an unverified member', async () => {
    const user = await member();
    const mail = await mailFrom(user.email, () => expect(owner.admin.users.resend(user.id)).resolves.toEqual({ sent: true, kind: 'verify' }));
    expect(linkOf(mail).type).toBe('verify');
  });

  it('sends a test mail, lists the outbox newest first, filters it by status, and retries a queued mail', async () => {
    await expect(owner.admin.settings()).resolves.toMatchObject({ smtp: { configured: true, from: 'app@example.test' } });
    const to = uniqueEmail('test');
    await mailFrom(to, () => expect(owner.admin.sendTestEmail(to)).resolves.toEqual({ sent: true }));
    const sent = await waitForOutbox((mail) => mail.to === to && mail.status === 'sent', 'sent');
    expect(sent).toMatchObject({ kind: 'test', attempts: 1, lastError: null, link: null, code: null });
    // Newest first, paged: the test mail, then the owner's verification mail from sign-up (and any others) after it.
    const first = await owner.admin.outbox({ limit: 1 });
    expect(first.total).toBeGreaterThanOrEqual(2);
    expect(first.data.map((mail) => mail.id)).toEqual([sent.id]);
    const rest = await owner.admin.outbox({ limit: 100, offset: 1 });
    expect(rest.data.map((mail) => mail.id)).not.toContain(sent.id);
    expect(rest.data.every((mail) => Date.parse(mail.createdAt) <= Date.parse(sent.createdAt))).toBe(true);
    expect((await failure(owner.admin.retryMail(sent.id))).status).toBe(400);

    // The mail server says "try later": the mail stays queued for its next attempt (2 s on), and retryMail sends it now.
    const later = uniqueEmail('later');
    catcher.refuse(451);
    let queued: OutboxMail;
    try {
      await owner.admin.sendTestEmail(later);
      queued = await waitForOutbox((mail) => mail.to === later && mail.lastError !== null, 'queued');
    } finally {
      catcher.accept();
    }
    expect(queued).toMatchObject({ kind: 'test', status: 'queued', attempts: 1, lastError: expect.stringContaining('451') });
    const retried = await mailFrom(later, () => expect(owner.admin.retryMail(queued.id)).resolves.toMatchObject({ id: queued.id, to: later }));
    expect(retried.subject).toBeTruthy();
    await expect(waitForOutbox((mail) => mail.id === queued.id, 'sent')).resolves.toMatchObject({ attempts: 2, lastError: null });
  });
});

/** The first outbox mail (of `status`) that matches, polling while the sender works. */
async function waitForOutbox(match: (mail: OutboxMail) => boolean, status: OutboxStatus): Promise<OutboxMail> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = (await owner.admin.outbox({ status, limit: 100 })).data.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${status} mail matched in the outbox`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
