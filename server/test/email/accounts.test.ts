import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@basalt/contract';
import { createTestDatabase, type TestDatabase } from '../../../test-support/database.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test-support/smtp.js';
import { errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from '../harness.js';
import { emailSettings, fragmentOf } from './support.js';

/** `required` verification, invites, the limits of the sending endpoints and answers that reveal no address. */

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(() => smtp.close());

const PASSWORD = 'correct horse';
const post = (h: Harness, path: string, body: object, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body);

describe('auth.emailVerification: required', () => {
  let database: TestDatabase;
  let before: Harness | undefined;
  let h: Harness;
  let early: Account;
  beforeAll(async () => {
    database = await createTestDatabase();
    before = await startHarness({ database, limits: false, email: emailSettings({ smtpUrl: smtp.url }) });
    await signUp(before, uniqueEmail('owner'));
    early = await signUp(before);
    await before.close();
    before = undefined;
    h = await startHarness({ database, limits: false, email: emailSettings({ smtpUrl: smtp.url, auth: { emailVerification: 'required' } }) });
  });
  afterAll(async () => {
    await before?.close();
    await h.close();
    await database.drop();
  });

  it('counts accounts made before it was turned on as verified', async () => {
    const signedIn = await post(h, '/auth/signin', { email: early.email, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect((await h.request().get('/auth/me').set({ Authorization: `Bearer ${signedIn.body.data.accessToken}` })).body.data.verified).toBe(true);
  });

  it('answers sign-up without tokens, refuses sign-in until verified (after the password matched), and signs in at verification', async () => {
    const email = uniqueEmail('later');
    const signedUp = await post(h, '/auth/signup', { email, password: PASSWORD });
    expect(signedUp.status).toBe(201);
    expect(signedUp.body).toEqual({ data: { user: { id: expect.any(String), email, role: 'member' } } });
    expect((await post(h, '/auth/signin', { email, password: 'wrong password' })).status).toBe(401);
    const refused = await post(h, '/auth/signin', { email, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('EMAIL_NOT_VERIFIED');
    const mail = await smtp.waitFor(email);
    const verified = await post(h, '/auth/verify', { token: fragmentOf(mail.link!).get('token') });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user).toMatchObject({ email, verified: true });
    expect(typeof verified.body.data.accessToken).toBe('string');
    expect((await post(h, '/auth/signin', { email, password: PASSWORD })).status).toBe(200);
    expect((await h.request().get('/auth/settings')).body.data).toMatchObject({ emailVerification: 'required', emailSignIn: false, providers: [] });
  });
});

describe('invites', () => {
  let database: TestDatabase;
  let h: Harness;
  let owner: Account;
  beforeAll(async () => {
    // The owner signed up while sign-ups were on; then the project turned them off.
    database = await createTestDatabase();
    const open = await startHarness({ database, limits: false, email: emailSettings() });
    owner = await signUp(open, uniqueEmail('owner'));
    await open.close();
    h = await startHarness({ database, limits: false, signupEnabled: false, email: emailSettings({ smtpUrl: smtp.url }) });
  });
  afterAll(async () => {
    await h.close();
    await database.drop();
  });

  it('invites a member with sign-ups off; the mail sets the password and verifies the address', async () => {
    const email = uniqueEmail('invitee');
    const invited = await post(h, '/admin/users/invite', { email }, owner.auth);
    expect(invited.status).toBe(201);
    expect(invited.body.data).toEqual({ id: expect.any(String), email, role: 'member', createdAt: expect.any(String) });
    const listed = await h.request().get('/admin/users').set(owner.auth);
    expect(listed.body.data.find((user: { email: string }) => user.email === email)).toMatchObject({ verified: false, hasPassword: false, identities: [], mfa: false });
    expect((await post(h, '/auth/signin', { email, password: PASSWORD })).status).toBe(401);

    const resent = await post(h, `/admin/users/${invited.body.data.id as string}/resend`, {}, owner.auth);
    expect(resent.body).toEqual({ data: { sent: true, kind: 'invite' } });
    const mail = await smtp.waitFor(email, 2);
    expect(fragmentOf(mail.link!).get('type')).toBe('invite');
    expect((await post(h, '/auth/reset', { token: fragmentOf(mail.link!).get('token'), newPassword: PASSWORD })).status).toBe(200);
    const signedIn = await post(h, '/auth/signin', { email, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect((await h.request().get('/auth/me').set({ Authorization: `Bearer ${signedIn.body.data.accessToken}` })).body.data).toMatchObject({ verified: true, hasPassword: true });
    expect(errorOf(await post(h, `/admin/users/${invited.body.data.id as string}/resend`, {}, owner.auth)).code).toBe('VALIDATION_ERROR');
  });

  it('refuses a role, a taken address, and a member', async () => {
    expect(errorOf(await post(h, '/admin/users/invite', { email: uniqueEmail('x'), role: 'owner' }, owner.auth)).details).toEqual({ field: 'role' });
    const taken = await post(h, '/admin/users/invite', { email: owner.email }, owner.auth);
    expect(taken.status).toBe(409);
    expect(errorOf(taken).details).toEqual({ constraint: 'unique', column: 'users.email' });
    expect((await post(h, '/admin/users/nobody/resend', {}, owner.auth)).status).toBe(404);
  });
});

describe('limits and enumeration', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      limits: { ...DEFAULT_LIMITS, emailsPerRecipient: { max: 2, windowSeconds: 3600 }, emailsPerAddress: { max: 200, windowSeconds: 3600 } },
      email: emailSettings({ smtpUrl: smtp.url, auth: { emailSignIn: true } }),
    });
    await signUp(h, uniqueEmail('owner'));
  });
  afterAll(() => h.close());

  it('limits mails per recipient, known or not, with the same answers', async () => {
    const known = (await signUp(h)).email;
    const unknown = uniqueEmail('unknown');
    for (const email of [known, unknown]) {
      for (const path of ['/auth/recover', '/auth/verify/send']) expect((await post(h, path, { email })).status).toBe(200);
      const over = await post(h, '/auth/otp', { email });
      expect(over.status).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(errorOf(over).details).toMatchObject({ limit: 'emailsPerRecipient' });
    }
  });

  it('answers known and unknown addresses with the same body in about the same time', async () => {
    const knownEmails = await Promise.all(Array.from({ length: 12 }, () => signUp(h).then((account) => account.email)));
    const time = async (email: string) => {
      const started = performance.now();
      const response = await post(h, '/auth/recover', { email });
      expect(response.body).toEqual({ data: { sent: true } });
      return performance.now() - started;
    };
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (const email of knownEmails) {
      knownTimes.push(await time(email));
      unknownTimes.push(await time(uniqueEmail('nobody')));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    expect(Math.abs(median(knownTimes) - median(unknownTimes))).toBeLessThan(25);
  });
});

describe('limits per client address', () => {
  it('refuses the address once over emailsPerAddress, whatever the recipients', async () => {
    const h = await startHarness({ limits: { ...DEFAULT_LIMITS, emailsPerAddress: { max: 3, windowSeconds: 3600 } }, email: emailSettings() });
    try {
      for (let i = 0; i < 3; i++) expect((await post(h, '/auth/recover', { email: uniqueEmail('many') })).status).toBe(200);
      const over = await post(h, '/auth/recover', { email: uniqueEmail('many') });
      expect(over.status).toBe(429);
      expect(errorOf(over).details).toMatchObject({ limit: 'emailsPerAddress' });
    } finally {
      await h.close();
    }
  });
});
