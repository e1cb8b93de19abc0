import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { SmtpCatcher } from '../../../test-support/smtp.js';
import { uniqueEmail, type Harness } from '../harness.js';
import { fragmentOf } from '../email/support.js';
import type { Traffic } from './traffic.js';

/**
 * The email routes (issue 26) through the Prism proxy (prism.test.ts): every one with a success and its documented
 * refusals, with mails read from a real SMTP server (verification, recovery, sign-in by link and by code, email
 * change, invites, the owner's outbox, a retry after a 4xx).
 */

type Headers = Record<string, string>;

export interface EmailRun {
  t: Traffic;
  h: Harness;
  smtp: SmtpCatcher;
  owner: Headers;
  member: Headers;
}

const APP = 'http://app.example.test';
const PASSWORD = 'correct horse';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenOf = (link: string | null) => fragmentOf(link!).get('token')!;

/** The owner's outbox entry for a recipient (read directly, not through the proxy) once `ready` holds for it. */
async function outboxMail(run: EmailRun, to: string, ready: (mail: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = (await run.h.request().get('/admin/outbox?limit=100').set(run.owner)).body.data as Array<Record<string, unknown>>;
    const mail = mails.find((candidate) => candidate.to === to && ready(candidate));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} as expected: ${JSON.stringify(mails.filter((candidate) => candidate.to === to))}`);
    await sleep(50);
  }
}

export async function emailTraffic(run: EmailRun): Promise<void> {
  const { t, smtp, owner } = run;

  // Verification, recovery and email change of an account with a password.
  const address = uniqueEmail('mail');
  await t.call('POST', '/auth/signup', { body: { email: address, password: PASSWORD, locale: 'en' }, status: 201 });
  await smtp.waitFor(address);
  await t.call('POST', '/auth/verify/send', { body: { email: address, redirectTo: `${APP}/verified`, locale: 'pt-BR' }, status: 200 });
  await t.call('POST', '/auth/verify/send', { body: { email: address, redirectTo: 'https://elsewhere.test/' }, status: 400 });
  await t.refusedByDocument('POST', '/auth/verify/send', { body: { email: address, locale: 'en_US' } });
  const verification = await smtp.waitFor(address, 2);
  await t.call('POST', '/auth/verify', { body: { token: tokenOf(verification.link) }, status: 200 });
  await t.call('POST', '/auth/verify', { body: { token: tokenOf(verification.link) }, status: 400 });
  await t.refusedByDocument('POST', '/auth/verify', { body: { email: address, code: '12345' } });

  await t.call('POST', '/auth/recover', { body: { email: address, redirectTo: `${APP}/reset` }, status: 200 });
  const recovery = await smtp.waitFor(address, 3);
  await t.call('POST', '/auth/reset', { body: { email: address, code: recovery.code, newPassword: 'recovered by code' }, status: 200 });
  await t.call('POST', '/auth/reset', { body: { email: address, code: recovery.code, newPassword: 'recovered by code' }, status: 400 });
  await t.refusedByDocument('POST', '/auth/reset', { body: { token: 'x', email: address, newPassword: 'recovered by code' } });

  const me = bearer((await t.call('POST', '/auth/signin', { body: { email: address, password: 'recovered by code' }, status: 200 })).body.data.accessToken);
  const moved = uniqueEmail('moved');
  await t.call('POST', '/auth/email', { headers: me, body: { newEmail: moved, password: 'wrong password' }, status: 400 });
  await t.call('POST', '/auth/email', { headers: bearer('not-a-token'), body: { newEmail: moved, password: 'recovered by code' }, status: 401 });
  await t.call('POST', '/auth/email', { headers: me, body: { newEmail: moved, password: 'recovered by code', redirectTo: `${APP}/moved` }, status: 200 });
  await t.refusedByDocument('POST', '/auth/email', { headers: me, body: { newEmail: moved } });
  const change = await smtp.waitFor(moved);
  await t.call('POST', '/auth/email/confirm', { body: { token: tokenOf(change.link) }, status: 200 });
  await t.call('POST', '/auth/email/confirm', { body: { email: moved, code: change.code }, status: 400 });
  const profile = await t.call('GET', '/auth/me', { headers: me, status: 200 });
  // The locale a sending endpoint was given is kept on the account.
  expect(profile.body.data).toMatchObject({ email: moved, verified: true, hasPassword: true, locale: 'pt-BR' });

  // Sign-in by a link handed to the app (PKCE), then by a code; accounts without a password.
  const verifier = randomBytes(48).toString('base64url');
  const linked = uniqueEmail('link');
  await t.call('POST', '/auth/otp', { body: { email: linked, redirectTo: `${APP}/cb`, codeChallenge: createHash('sha256').update(verifier).digest('base64url') }, status: 200 });
  await t.refusedByDocument('POST', '/auth/otp', { body: { email: linked, codeChallenge: 'too-short' } });
  const link = await smtp.waitFor(linked);
  const handed = await t.call('POST', '/auth/otp/code', { body: { token: tokenOf(link.link) }, status: 200 });
  await t.call('POST', '/auth/otp/code', { body: { token: tokenOf(link.link) }, status: 400 });
  const code = new URL(handed.body.data.redirectTo as string).searchParams.get('code')!;
  await t.refusedByDocument('POST', '/auth/oauth/exchange', { body: { code, codeVerifier: verifier.slice(0, 42) } });
  const exchanged = await t.call('POST', '/auth/oauth/exchange', { body: { code, codeVerifier: verifier }, status: 200 });
  await t.call('POST', '/auth/oauth/exchange', { body: { code, codeVerifier: verifier }, status: 400 });
  const linkedAuth = bearer(exchanged.body.data.accessToken);
  expect((await t.call('GET', '/auth/me', { headers: linkedAuth, status: 200 })).body.data).toMatchObject({ verified: true, hasPassword: false });
  await t.call('POST', '/auth/password', { headers: linkedAuth, body: { newPassword: 'a first password' }, status: 200 });

  const coded = uniqueEmail('code');
  await t.call('POST', '/auth/otp', { body: { email: coded }, status: 200 });
  const first = await smtp.waitFor(coded);
  await t.call('POST', '/auth/otp/verify', { body: { email: coded, code: first.code === '000000' ? '111111' : '000000' }, status: 400 });
  const codedAuth = bearer((await t.call('POST', '/auth/otp/verify', { body: { email: coded, code: first.code }, status: 200 })).body.data.accessToken);
  await t.call('POST', '/auth/otp', { body: { email: coded }, status: 200 });
  const fresh = await smtp.waitFor(coded, 2);
  await t.refusedByDocument('DELETE', '/auth/me', { headers: codedAuth, body: { code: fresh.code, password: 'both' } });
  await t.call('DELETE', '/auth/me', { headers: codedAuth, body: { code: fresh.code }, status: 200 });

  // The owner: invites, sending again, a test mail, the outbox and a retry.
  await t.call('GET', '/admin/outbox?limit=5&offset=0&status=sent', { headers: owner, status: 200 });
  await t.call('GET', '/admin/outbox', { headers: run.member, status: 403 });
  await t.refusedByDocument('GET', '/admin/outbox?status=bogus', { headers: owner });
  const invitee = uniqueEmail('invite');
  const invited = await t.call('POST', '/admin/users/invite', { headers: owner, body: { email: invitee, locale: 'en', redirectTo: `${APP}/welcome` }, status: 201 });
  await t.call('POST', '/admin/users/invite', { headers: owner, body: { email: invitee }, status: 409 });
  await t.refusedByDocument('POST', '/admin/users/invite', { headers: owner, body: { email: uniqueEmail('invite'), role: 'owner' } });
  await smtp.waitFor(invitee);
  await t.call('POST', `/admin/users/${invited.body.data.id}/resend`, { headers: owner, status: 200 });
  const again = await smtp.waitFor(invitee, 2);
  await t.call('POST', '/auth/reset', { body: { token: tokenOf(again.link), newPassword: 'invited and in' }, status: 200 });
  await t.call('POST', `/admin/users/${invited.body.data.id}/resend`, { headers: owner, status: 400 });
  await t.call('POST', '/admin/users/nobody/resend', { headers: owner, status: 404 });
  await t.call('GET', '/admin/users?limit=100', { headers: owner, status: 200 });

  const tested = uniqueEmail('test');
  await t.call('POST', '/admin/email/test', { headers: owner, body: { to: tested }, status: 200 });
  const sent = await outboxMail(run, tested, (mail) => mail.status === 'sent');
  await t.call('POST', `/admin/outbox/${sent.id as string}/retry`, { headers: owner, status: 400 });
  await t.call('POST', '/admin/outbox/nope/retry', { headers: owner, status: 404 });

  // A 4xx leaves the mail queued for a later attempt: the owner tries it now (between attempts; one may be running).
  smtp.refuse(451, 'Greylisted, try again');
  const greylisted = uniqueEmail('retry');
  await t.call('POST', '/admin/email/test', { headers: owner, body: { to: greylisted }, status: 200 });
  const queued = await outboxMail(run, greylisted, (mail) => mail.status === 'queued' && typeof mail.lastError === 'string');
  let retried = false;
  for (let attempt = 0; attempt < 50 && !retried; attempt++) {
    try {
      await t.call('POST', `/admin/outbox/${queued.id as string}/retry`, { headers: owner, status: 200 });
      retried = true;
    } catch {
      await sleep(100);
    }
  }
  smtp.accept();
  expect(retried, 'the queued mail was never free to retry').toBe(true);
  await smtp.waitFor(greylisted);
  await t.call('GET', '/admin/outbox?status=queued', { headers: owner, status: 200 });
}
