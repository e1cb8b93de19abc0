import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test-support/smtp.js';
import { eventually } from '../../../test-support/wait.js';
import { errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from '../harness.js';
import { emailSettings, fragmentOf } from './support.js';

/** The outbox (API.md, "Email"): without SMTP the owner reads it; with SMTP it is sent, retried, failed, never twice. */

const post = (h: Harness, path: string, body: object, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body);

describe('without SMTP_URL', () => {
  let h: Harness;
  let owner: Account;
  beforeAll(async () => {
    h = await startHarness({ limits: false, email: emailSettings() });
    owner = await signUp(h, uniqueEmail('owner'));
  });
  afterAll(() => h.close());

  it('keeps each mail unsent for the owner, who reads its link and code; the link works; the body is encrypted at rest', async () => {
    const member = await signUp(h);
    expect((await post(h, '/auth/recover', { email: member.email })).status).toBe(200);
    const listed = await h.request().get('/admin/outbox').set(owner.auth);
    expect(listed.status).toBe(200);
    const mail = (listed.body.data as Array<Record<string, unknown>>).find((item) => item.to === member.email && item.kind === 'recover')!;
    expect(mail).toMatchObject({ status: 'unsent', lastError: 'unsent: no SMTP', attempts: 0 });
    expect(typeof mail.code).toBe('string');
    expect(listed.body.total).toBeGreaterThanOrEqual(2);
    const token = fragmentOf(mail.link as string).get('token')!;
    const stored = await h.services.knex('_basalt_outbox').where({ id: mail.id }).first('body');
    expect(stored.body.toString('latin1')).not.toContain(token);
    expect(stored.body.toString('latin1')).not.toContain(member.email);
    expect((await post(h, '/auth/reset', { token, newPassword: 'from the outbox' })).status).toBe(200);

    const retry = await post(h, `/admin/outbox/${mail.id as string}/retry`, {}, owner.auth);
    expect(retry.status).toBe(400);
    expect(errorOf(retry).details).toEqual({ parameter: 'id' });
    expect((await post(h, '/admin/outbox/nope/retry', {}, owner.auth)).status).toBe(404);
  });

  it('filters by status, pages, and refuses a bad status or a member', async () => {
    const unsent = await h.request().get('/admin/outbox?status=unsent&limit=1').set(owner.auth);
    expect(unsent.body.data).toHaveLength(1);
    expect((await h.request().get('/admin/outbox?status=sent').set(owner.auth)).body).toEqual({ data: [], total: 0 });
    for (const status of ['bogus', "sent' OR '1'='1", '']) {
      const response = await h.request().get('/admin/outbox').query({ status }).set(owner.auth);
      expect(response.status, status).toBe(400);
      expect(errorOf(response).details).toEqual({ parameter: 'status' });
    }
    const member = await signUp(h);
    expect((await h.request().get('/admin/outbox').set(member.auth)).status).toBe(403);
    expect((await h.request().get('/admin/settings').set(owner.auth)).body.data.smtp).toEqual({ configured: false, from: 'Test App <app@example.test>' });
  });
});

describe('with SMTP_URL', () => {
  let smtp: SmtpCatcher;
  let h: Harness;
  let owner: Account;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    h = await startHarness({ limits: false, metricsToken: 'metrics-token-0123456789', email: emailSettings({ smtpUrl: smtp.url }) });
    owner = await signUp(h, uniqueEmail('owner'));
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const statusOf = async (to: string, kind = 'recover') => {
    const listed = await h.request().get('/admin/outbox?limit=1000').set(owner.auth);
    return (listed.body.data as Array<{ to: string; kind: string; status: string; attempts: number; lastError: string | null; link: string | null }>).find((mail) => mail.to === to && mail.kind === kind);
  };

  it('sends, deletes the body, and shows no link once sent', async () => {
    const member = await signUp(h);
    await post(h, '/auth/recover', { email: member.email });
    await smtp.waitFor(member.email, 2);
    await eventually(async () => expect(await statusOf(member.email)).toMatchObject({ status: 'sent', attempts: 1, lastError: null, link: null }));
    const rows = await h.services.knex('_basalt_outbox').where({ recipient: member.email, status: 'sent' }).select('body');
    expect(rows.every((row: { body: unknown }) => row.body === null)).toBe(true);
    expect((await h.request().get('/admin/settings').set(owner.auth)).body.data.smtp).toEqual({ configured: true, from: 'Test App <app@example.test>' });
  });

  it('keeps mails queued while the SMTP server is down for 10 s and delivers each exactly once after', async () => {
    const members = await Promise.all(Array.from({ length: 4 }, () => signUp(h)));
    for (const member of members) await smtp.waitFor(member.email);
    await smtp.stop();
    for (const member of members) await post(h, '/auth/recover', { email: member.email });
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const waiting = await statusOf(members[0]!.email);
    expect(waiting?.status).toBe('queued');
    expect(waiting?.lastError).toMatch(/ECONNREFUSED|connect/i);
    await smtp.start();
    for (const member of members) await smtp.waitFor(member.email, 2, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const member of members) expect(smtp.to(member.email)).toHaveLength(2);
  }, 60_000);

  it('retries after a 4xx (the owner may retry at once), and fails a 5xx for good with its reason', async () => {
    const soft = await signUp(h);
    await smtp.waitFor(soft.email);
    smtp.refuse(451, 'Greylisted, try again');
    await post(h, '/auth/recover', { email: soft.email });
    await eventually(async () => expect((await statusOf(soft.email))?.lastError).toContain('451'));
    expect((await statusOf(soft.email))?.status).toBe('queued');
    smtp.accept();
    const mail = (await h.services.knex('_basalt_outbox').where({ recipient: soft.email, kind: 'recover' }).first('id')) as { id: string };
    await eventually(async () => {
      const retried = await post(h, `/admin/outbox/${mail.id}/retry`, {}, owner.auth);
      expect([200, 400]).toContain(retried.status);
      expect(smtp.to(soft.email)).toHaveLength(2);
    }, 15_000);

    const hard = await signUp(h);
    await smtp.waitFor(hard.email);
    smtp.refuse(550, 'No such mailbox');
    await post(h, '/auth/recover', { email: hard.email });
    await eventually(async () => expect(await statusOf(hard.email)).toMatchObject({ status: 'failed', attempts: 1 }));
    smtp.accept();
    expect((await statusOf(hard.email))?.lastError).toContain('550');
    const row = await h.services.knex('_basalt_outbox').where({ recipient: hard.email, kind: 'recover' }).first('body');
    expect(row.body).toBeNull();
  }, 40_000);

  it('counts sent and failed mails and shows the queue in /metrics', async () => {
    const text = (await h.request().get('/metrics').set({ Authorization: 'Bearer metrics-token-0123456789' })).text;
    expect(text).toMatch(/^basalt_mails_sent_total [1-9]\d*$/m);
    expect(text).toMatch(/^basalt_mails_failed_total [1-9]\d*$/m);
    expect(text).toMatch(/^basalt_mails_queued \d+$/m);
    expect(text).toMatch(/^basalt_mails_oldest_queued_seconds [\d.e+-]+$/m);
  });

  it('sends the owner a test mail', async () => {
    const to = uniqueEmail('test-mail');
    expect((await post(h, '/admin/email/test', { to }, owner.auth)).body).toEqual({ data: { sent: true } });
    expect((await smtp.waitFor(to)).subject).toContain('Test mail');
    expect(errorOf(await post(h, '/admin/email/test', { to: 'nope' }, owner.auth)).details).toEqual({ field: 'to' });
  });
});
