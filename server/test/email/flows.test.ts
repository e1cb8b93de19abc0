import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test-support/smtp.js';
import { errorOf, signUp, startHarness, uniqueEmail, type Harness } from '../harness.js';
import { emailSettings, fragmentOf } from './support.js';

/** The email flows against a real SMTP server (API.md, "Email"): verification, recovery, sign-in by code, change. */

let smtp: SmtpCatcher;
let h: Harness;
const PASSWORD = 'correct horse';

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  h = await startHarness({ limits: false, email: emailSettings({ smtpUrl: smtp.url, auth: { emailSignIn: true } }) });
  await signUp(h, uniqueEmail('owner'));
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

const post = (path: string, body: object, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body);

describe('verification', () => {
  it('mails a link and a code at sign-up; the link verifies once, and /auth/me and the next token say so', async () => {
    const email = uniqueEmail('verify');
    const account = await signUp(h, email);
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toContain('Test App');
    expect(mail.from).toBe('app@example.test');
    expect(mail.html).toContain('href="http://basalt.example.test/auth/confirm#type=verify');
    const fragment = fragmentOf(mail.link!);
    expect(fragment.get('type')).toBe('verify');
    expect(mail.link!.startsWith('http://basalt.example.test/auth/confirm#')).toBe(true);

    expect((await h.request().get('/auth/me').set(account.auth)).body.data).toMatchObject({ verified: false, hasPassword: true });
    const verified = await post('/auth/verify', { token: fragment.get('token') });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ user: { id: account.id, email, role: 'member', verified: true } });
    const again = await post('/auth/verify', { token: fragment.get('token') });
    expect(again.status).toBe(400);
    expect(errorOf(again).details).toEqual({ field: 'token' });
    expect((await h.request().get('/auth/me').set(account.auth)).body.data.verified).toBe(true);
    const signedIn = await post('/auth/signin', { email, password: PASSWORD });
    const claims = JSON.parse(Buffer.from(signedIn.body.data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ verified: true, aal: 1, email });
  });

  it('verifies by address and code; a wrong code is 400 naming code, and the fifth voids the mail, link included', async () => {
    const email = uniqueEmail('code');
    await signUp(h, email);
    const mail = await smtp.waitFor(email);
    const wrong = mail.code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 4; i++) {
      const refused = await post('/auth/verify', { email, code: wrong });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).details).toEqual({ field: 'code' });
    }
    expect((await post('/auth/verify', { email, code: mail.code })).status).toBe(200);

    const second = uniqueEmail('void');
    await signUp(h, second);
    const secondMail = await smtp.waitFor(second);
    for (let i = 0; i < 5; i++) await post('/auth/verify', { email: second, code: secondMail.code === '000000' ? '000001' : '000000' });
    expect((await post('/auth/verify', { email: second, code: secondMail.code })).status).toBe(400);
    const link = await post('/auth/verify', { token: fragmentOf(secondMail.link!).get('token') });
    expect(errorOf(link).details).toEqual({ field: 'token' });
  });

  it('resends on request, the same answer for known and unknown addresses; only the latest mail counts', async () => {
    const email = uniqueEmail('resend');
    await signUp(h, email);
    const first = await smtp.waitFor(email);
    const known = await post('/auth/verify/send', { email });
    const unknown = await post('/auth/verify/send', { email: uniqueEmail('nobody') });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ data: { sent: true } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    const second = await smtp.waitFor(email, 2);
    expect(errorOf(await post('/auth/verify', { token: fragmentOf(first.link!).get('token') })).details).toEqual({ field: 'token' });
    expect((await post('/auth/verify', { token: fragmentOf(second.link!).get('token') })).status).toBe(200);
  });

  it('refuses malformed proofs with the field named, and never a 500', async () => {
    const cases: Array<[object, string]> = [
      [{}, 'token'],
      [{ code: '123456' }, 'email'],
      [{ email: 'a@b.test', code: '12345' }, 'code'],
      [{ email: 'a@b.test', code: "1' OR 1=1 --" }, 'code'],
      [{ token: 'x', email: 'a@b.test' }, 'token'],
      [{ token: 7 }, 'token'],
      [{ token: 'a\u0000b' }, 'token'],
      [{ token: 'x', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const response = await post('/auth/verify', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(response).details, JSON.stringify(body)).toEqual({ field });
    }
  });
});

describe('expiry and hostile input', () => {
  it('refuses an expired link (400 naming token) and an expired code (400 naming code)', async () => {
    const email = uniqueEmail('expired');
    await signUp(h, email);
    const mail = await smtp.waitFor(email);
    await h.services.knex('_basalt_email_proofs').where({ email }).update({ code_expires_at: h.services.knex.raw("now() - interval '1 second'") });
    expect(errorOf(await post('/auth/verify', { email, code: mail.code })).details).toEqual({ field: 'code' });
    // The link outlives the code (24 h against 15 min)...
    await h.services.knex('_basalt_email_proofs').where({ email }).update({ expires_at: h.services.knex.raw("now() - interval '1 second'") });
    // ...until it too expires.
    expect(errorOf(await post('/auth/verify', { token: fragmentOf(mail.link!).get('token') })).details).toEqual({ field: 'token' });
  });

  it('refuses hostile locales, challenges, redirects and addresses with the field named, never a 500', async () => {
    const cases: Array<[string, object, string]> = [
      ['/auth/recover', { email: uniqueEmail('h'), locale: "en'; DROP TABLE users; --" }, 'locale'],
      ['/auth/recover', { email: uniqueEmail('h'), locale: '../../etc/passwd' }, 'locale'],
      ['/auth/recover', { email: uniqueEmail('h'), locale: 'a'.repeat(36) }, 'locale'],
      ['/auth/recover', { email: "x'@example.test' OR 1=1" }, 'email'],
      ['/auth/recover', { email: uniqueEmail('h'), redirectTo: 'http://app.example.test/\u0000' }, 'redirectTo'],
      ['/auth/recover', { email: uniqueEmail('h'), redirectTo: `http://app.example.test/${'x'.repeat(3000)}` }, 'redirectTo'],
      ['/auth/otp', { email: uniqueEmail('h'), codeChallenge: 'short' }, 'codeChallenge'],
      ['/auth/otp', { email: uniqueEmail('h'), codeChallenge: `${'a'.repeat(43)}'--` }, 'codeChallenge'],
      ['/auth/oauth/exchange', { code: 'x', codeVerifier: 'y' }, 'codeVerifier'],
      ['/auth/otp/code', { token: 'x'.repeat(300) }, 'token'],
      ['/auth/reset', { email: 'a@b.test', code: '123456', newPassword: 'short' }, 'newPassword'],
      ['/auth/email/confirm', { email: 'a@b.test', code: '１２３４５６' }, 'code'],
    ];
    for (const [path, body, field] of cases) {
      const response = await post(path, body);
      expect(response.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(errorOf(response).details, path).toEqual({ field });
    }
  });
});

describe('recovery', () => {
  it('mails a recovery link; the token resets once, ends every session and proves the address', async () => {
    const email = uniqueEmail('recover');
    const account = await signUp(h, email);
    const response = await post('/auth/recover', { email, redirectTo: 'http://app.example.test/signed-in' });
    expect(response.body).toEqual({ data: { sent: true } });
    const mail = await smtp.waitFor(email, 2);
    const fragment = fragmentOf(mail.link!);
    expect(fragment.get('type')).toBe('recover');
    expect(fragment.get('redirectTo')).toBe('http://app.example.test/signed-in');
    const reset = await post('/auth/reset', { token: fragment.get('token'), newPassword: 'a new password' });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ data: { signedOut: true } });
    expect((await post('/auth/refresh', { refreshToken: account.refreshToken })).status).toBe(401);
    expect((await post('/auth/signin', { email, password: PASSWORD })).status).toBe(401);
    expect((await post('/auth/signin', { email, password: 'a new password' })).status).toBe(200);
    expect(errorOf(await post('/auth/reset', { token: fragment.get('token'), newPassword: 'another one!' })).details).toEqual({ field: 'token' });
  });

  it('resets by address and code, and the owner-made reset token still works', async () => {
    const email = uniqueEmail('code-reset');
    const account = await signUp(h, email);
    await post('/auth/recover', { email });
    const mail = (await smtp.waitFor(email, 2));
    expect(mail.subject).toContain('password');
    expect((await post('/auth/reset', { email, code: mail.code, newPassword: 'by the code!' })).status).toBe(200);
    expect((await post('/auth/signin', { email, password: 'by the code!' })).status).toBe(200);

    const owner = await h.request().post('/auth/signin').send({ email: (await h.services.knex('users').where({ role: 'owner' }).first('email')).email, password: PASSWORD });
    const link = await h.request().post(`/admin/users/${account.id}/reset-link`).set({ Authorization: `Bearer ${owner.body.data.accessToken}` });
    expect((await post('/auth/reset', { token: link.body.data.token, newPassword: 'by the owner' })).status).toBe(200);
    expect((await post('/auth/signin', { email, password: 'by the owner' })).status).toBe(200);
  });

  it('answers the same for an unknown address and sends nothing there', async () => {
    const nobody = uniqueEmail('ghost');
    const response = await post('/auth/recover', { email: nobody });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { sent: true } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.to(nobody)).toEqual([]);
  });

  it('refuses a redirectTo outside auth.redirectUrls, matched on the parsed URL', async () => {
    for (const redirectTo of ['http://evil.test/', 'http://app.example.test.evil.test/x', 'http://app.example.test@evil.test/', 'https://app.example.test/x', 'javascript:alert(1)', 'myapp://done/more', 'not a url']) {
      const response = await post('/auth/recover', { email: uniqueEmail('r'), redirectTo });
      expect(response.status, redirectTo).toBe(400);
      expect(errorOf(response).details, redirectTo).toEqual({ field: 'redirectTo' });
    }
    expect((await post('/auth/recover', { email: uniqueEmail('r'), redirectTo: 'myapp://done' })).status).toBe(200);
  });
});

describe('sign-in by email', () => {
  it('signs in an existing account by code, and makes a passwordless, verified account for a new address', async () => {
    const email = uniqueEmail('otp');
    await signUp(h, email);
    await post('/auth/otp', { email });
    const mail = await smtp.waitFor(email, 2);
    expect(fragmentOf(mail.link!).get('type')).toBe('otp');
    const signedIn = await post('/auth/otp/verify', { email, code: mail.code });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user.email).toBe(email);
    expect(typeof signedIn.body.data.accessToken).toBe('string');

    const fresh = uniqueEmail('newcomer');
    expect((await post('/auth/otp', { email: fresh })).body).toEqual({ data: { sent: true } });
    const freshMail = await smtp.waitFor(fresh);
    const made = await post('/auth/otp/verify', { token: fragmentOf(freshMail.link!).get('token') });
    expect(made.status).toBe(200);
    const me = await h.request().get('/auth/me').set({ Authorization: `Bearer ${made.body.data.accessToken}` });
    expect(me.body.data).toMatchObject({ email: fresh, role: 'member', verified: true, hasPassword: false });
    // Without a password: set one with newPassword alone.
    const set = await h.request().post('/auth/password').set({ Authorization: `Bearer ${made.body.data.accessToken}` }).send({ newPassword: 'first password' });
    expect(set.status).toBe(200);
    expect((await post('/auth/signin', { email: fresh, password: 'first password' })).status).toBe(200);
  });

  it('lets an account without a password delete itself with a fresh emailed code, and no other way', async () => {
    const email = uniqueEmail('codeonly');
    await post('/auth/otp', { email });
    const made = await post('/auth/otp/verify', { email, code: (await smtp.waitFor(email)).code });
    const auth = { Authorization: `Bearer ${made.body.data.accessToken as string}` };
    const guessed = await h.request().delete('/auth/me').set(auth).send({ password: 'any password' });
    expect(errorOf(guessed).details).toEqual({ field: 'password' });
    const stale = await h.request().delete('/auth/me').set(auth).send({ code: '123456' });
    expect(errorOf(stale).details).toEqual({ field: 'code' });
    await post('/auth/otp', { email });
    const deleted = await h.request().delete('/auth/me').set(auth).send({ code: (await smtp.waitFor(email, 2)).code });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.email).toBe(email);
  });

  it('hands a sign-in link to the app as a one-time code, exchanged once with the PKCE verifier', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const email = uniqueEmail('pkce');
    await signUp(h, email);
    await post('/auth/otp', { email, redirectTo: 'http://app.example.test/callback', codeChallenge: challenge });
    const mail = await smtp.waitFor(email, 2);
    const handed = await post('/auth/otp/code', { token: fragmentOf(mail.link!).get('token') });
    expect(handed.status).toBe(200);
    const target = new URL(handed.body.data.redirectTo);
    expect(target.origin + target.pathname).toBe('http://app.example.test/callback');
    const code = target.searchParams.get('code')!;
    const wrong = await post('/auth/oauth/exchange', { code, codeVerifier: randomBytes(32).toString('base64url') });
    expect(errorOf(wrong).details).toEqual({ field: 'code' });
    const exchanged = await post('/auth/oauth/exchange', { code, codeVerifier: verifier });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.data.user.email).toBe(email);
    expect(errorOf(await post('/auth/oauth/exchange', { code, codeVerifier: verifier })).details).toEqual({ field: 'code' });
  });
});

describe('email change', () => {
  it('confirms the new address, notifies the old, and a taken address is told instead with the same answer', async () => {
    const email = uniqueEmail('mover');
    const account = await signUp(h, email);
    const wrong = await post('/auth/email', { newEmail: uniqueEmail('x'), password: 'wrong password' }, account.auth);
    expect(errorOf(wrong).details).toEqual({ field: 'password' });
    const target = uniqueEmail('moved');
    expect((await post('/auth/email', { newEmail: target, password: PASSWORD }, account.auth)).body).toEqual({ data: { sent: true } });
    const confirmation = await smtp.waitFor(target);
    const notice = await smtp.waitFor(email, 2);
    expect(notice.text).toContain(target);
    expect(fragmentOf(confirmation.link!).get('type')).toBe('email-change');
    const confirmed = await post('/auth/email/confirm', { email: target, code: confirmation.code });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.user).toEqual({ id: account.id, email: target, role: 'member', verified: true });
    expect((await post('/auth/signin', { email: target, password: PASSWORD })).status).toBe(200);

    const other = await signUp(h, uniqueEmail('other'));
    const taken = await post('/auth/email', { newEmail: target, password: PASSWORD }, other.auth);
    expect(taken.body).toEqual({ data: { sent: true } });
    const told = await smtp.waitFor(target, 2);
    expect(told.link).toBeNull();
    expect(told.subject).toContain('address');
  });
});
