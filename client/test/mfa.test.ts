import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp.js';
import { createPkcePair, isMfaPending, memoryStorage, type AuthChangeEvent, type BasaltClient, type MfaPending, type Session } from '../src/index.js';
import { decodeJwtPayload } from '../src/session/accessToken.js';
import { codeOf, failure, linkOf, mailFrom as mailFromCatcher } from './support/mail.js';
import { PASSWORD, sessionOf, startLive, uniqueEmail, type Live } from './support/live.js';

/** The client's second factor (TOTP) against the real server (issue 27): enrolment, the sign-in step, step-up, removal. */

const APP = 'http://app.example.test';
let catcher: SmtpCatcher;
let configDir: string;
let live: Live;
let owner: BasaltClient;

beforeAll(async () => {
  catcher = await startSmtpCatcher();
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-mfa-'));
  const config = path.join(configDir, 'config.json');
  await fs.writeFile(config, JSON.stringify({ email: { from: 'app@example.test' }, auth: { emailSignIn: true, redirectUrls: [`${APP}/*`] }, limits: false }));
  live = await startLive({ env: { CONFIG_PATH: config, SMTP_URL: catcher.url } });
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
});
afterAll(async () => {
  await live?.stop();
  await catcher?.close();
  await fs.rm(configDir, { recursive: true, force: true });
});

const aalOf = (session: Session | null) => decodeJwtPayload(session?.accessToken ?? '')?.aal;

/**
 * An authenticator app: the codes of successive 30 s steps counted from when it was made. The server takes one step
 * either side of its own and each step once per account, always after the last one taken: two codes per account
 * stay valid even if the clock crosses a step boundary between them.
 */
function authenticator(secret: string): () => string {
  const epoch = Math.floor(Date.now() / 1000);
  let step = 0;
  return () => generateSync({ secret, epoch: epoch + 30 * step++ });
}

/** The same code with one digit changed: certainly wrong. */
const wrong = (code: string) => `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`;

interface Enrolled {
  client: BasaltClient;
  email: string;
  id: string;
  nextCode: () => string;
  recoveryCodes: string[];
}

/** A member signed up on a fresh client, with TOTP turned on there (one code of its app used). */
async function enrolled(): Promise<Enrolled> {
  const client = live.client();
  const email = uniqueEmail('mfa');
  const { user } = await client.auth.signUp({ email, password: PASSWORD });
  const { secret } = await client.auth.mfa.enroll();
  const nextCode = authenticator(secret);
  const { recoveryCodes } = await client.auth.mfa.verify(nextCode());
  return { client, email, id: user.id, nextCode, recoveryCodes };
}

/** The second step a sign-in answered (it must have). */
function stepOf(answer: Session | MfaPending): MfaPending {
  expect(answer).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
  if (!isMfaPending(answer)) throw new Error('expected the second-factor step');
  return answer;
}

/** A password sign-in that must answer the second step. */
async function pending(email: string, client = live.client()): Promise<MfaPending> {
  return stepOf(await client.auth.signIn({ email, password: PASSWORD }));
}

describe('enrolment', () => {
  it('enroll then verify(code) turns TOTP on: recovery codes once, this client goes on at aal 2, others need the factor', async () => {
    const client = live.client();
    const email = uniqueEmail('mfa');
    await client.auth.signUp({ email, password: PASSWORD });
    const other = live.client();
    await sessionOf(other.auth.signIn({ email, password: PASSWORD }));
    const before = await client.auth.getSession();
    expect(aalOf(before)).toBe(1);

    const enrollment = await client.auth.mfa.enroll();
    expect(enrollment.secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(enrollment.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(enrollment.uri).toContain(`secret=${enrollment.secret}`);
    const nextCode = authenticator(enrollment.secret);
    const code = nextCode();
    expect((await failure(client.auth.mfa.verify(wrong(code)))).details).toMatchObject({ field: 'code' });
    await expect(client.auth.me()).resolves.toMatchObject({ mfa: false });

    const events: AuthChangeEvent[] = [];
    client.auth.onChange((event) => events.push(event));
    const { recoveryCodes } = await client.auth.mfa.verify(code);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    recoveryCodes.forEach((recoveryCode) => expect(recoveryCode).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/));
    // The new tokens are this client's session: stored, reported like a refresh, at aal 2.
    const after = await client.auth.getSession();
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    expect(after?.user).toEqual(before?.user);
    expect(aalOf(after)).toBe(2);
    expect(events).toEqual(['refreshed']);
    await expect(client.auth.me()).resolves.toMatchObject({ email, mfa: true });
    await expect(client.auth.keys.create({ name: 'ci', access: 'read' })).resolves.toMatchObject({ name: 'ci' });
    expect((await failure(client.auth.mfa.enroll())).code).toBe('CONFLICT');

    // The other device's session, opened at aal 1, still reads, but what could lock the owner out needs the factor.
    await expect(other.auth.me()).resolves.toMatchObject({ mfa: true });
    for (const attempt of [
      () => other.auth.keys.create({ name: 'k', access: 'read' }),
      () => other.auth.changePassword(PASSWORD, 'another good password'),
      () => other.auth.changeEmail(uniqueEmail('new'), { password: PASSWORD }),
      () => other.auth.deleteAccount(PASSWORD),
      () => other.auth.mfa.newRecoveryCodes(),
      () => other.auth.mfa.remove(),
    ]) {
      expect(await failure(attempt())).toMatchObject({ status: 403, code: 'MFA_REQUIRED' });
    }
    // Its refresh token died with the other sessions.
    const refresh = await fetch(`${live.server.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: (await other.auth.getSession())?.refreshToken }),
    });
    expect(refresh.status).toBe(401);
  });
});

describe('the sign-in step', () => {
  it('signIn answers MfaPending and stores nothing; challenge with the code signs in at aal 2; codes and steps work once', async () => {
    const user = await enrolled();
    const client = live.client();
    const events: AuthChangeEvent[] = [];
    client.auth.onChange((event) => events.push(event));
    const answer = await client.auth.signIn({ email: user.email, password: PASSWORD });
    // What callers of a session read is plainly absent.
    expect(answer.accessToken).toBeUndefined();
    expect(answer.user).toBeUndefined();
    const step = stepOf(answer);
    expect(await client.auth.getSession()).toBeNull();
    expect(events).toEqual([]);
    expect((await failure(client.auth.me())).status).toBe(401);

    const code = user.nextCode();
    const session = await client.auth.mfa.challenge(step.mfaToken, { code });
    expect(session.user).toEqual({ id: user.id, email: user.email, role: 'member' });
    expect(aalOf(session)).toBe(2);
    expect(await client.auth.getSession()).toEqual(session);
    expect(events).toEqual(['signed_in']);
    await expect(client.auth.me()).resolves.toMatchObject({ id: user.id, mfa: true });

    // The step is single use; the code's time step was taken.
    expect((await failure(live.client().auth.mfa.challenge(step.mfaToken, { code }))).details).toMatchObject({ field: 'mfaToken' });
    expect((await failure(live.client().auth.mfa.challenge((await pending(user.email)).mfaToken, { code }))).details).toMatchObject({ field: 'code' });
  });

  it('a recovery code finishes a sign-in once (any case); newRecoveryCodes voids the old ones', async () => {
    const user = await enrolled();
    const [first, second] = user.recoveryCodes as [string, string];
    const client = live.client();
    const session = await client.auth.mfa.challenge((await pending(user.email)).mfaToken, { recoveryCode: first.toLowerCase() });
    expect(session.user.id).toBe(user.id);
    expect(aalOf(session)).toBe(2);
    const reused = await failure(live.client().auth.mfa.challenge((await pending(user.email)).mfaToken, { recoveryCode: first }));
    expect(reused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'recoveryCode' } });

    const { recoveryCodes } = await client.auth.mfa.newRecoveryCodes();
    expect(recoveryCodes).toHaveLength(10);
    expect(recoveryCodes).not.toContain(second);
    expect((await failure(live.client().auth.mfa.challenge((await pending(user.email)).mfaToken, { recoveryCode: second }))).details).toMatchObject({
      field: 'recoveryCode',
    });
    await expect(live.client().auth.mfa.challenge((await pending(user.email)).mfaToken, { recoveryCode: recoveryCodes[0]! })).resolves.toMatchObject({
      user: { id: user.id },
    });
  });

  it('verifyEmailCode and exchangeCode answer MfaPending too, and the challenge finishes them', async () => {
    const user = await enrolled();
    await catcher.waitFor(user.email); // the sign-up's verification mail, before counting the sign-in mails
    const client = live.client();
    const mail = await mailFromCatcher(catcher, user.email, () => client.auth.signInWithEmail(user.email));
    const byCode = stepOf(await client.auth.verifyEmailCode({ email: user.email, code: codeOf(mail) }));
    expect(await client.auth.getSession()).toBeNull();
    await expect(client.auth.mfa.challenge(byCode.mfaToken, { recoveryCode: user.recoveryCodes[0]! })).resolves.toMatchObject({
      user: { id: user.id },
    });

    const { codeVerifier, codeChallenge } = await createPkcePair();
    const redirectTo = `${APP}/callback`;
    const linkMail = await mailFromCatcher(catcher, user.email, () => live.client().auth.signInWithEmail(user.email, { redirectTo, codeChallenge }));
    const response = await fetch(`${live.server.url}/auth/otp/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: linkOf(linkMail).token }),
    });
    const appCode = new URL(((await response.json()) as { data: { redirectTo: string } }).data.redirectTo).searchParams.get('code') ?? '';
    const app = live.client();
    const exchanged = stepOf(await app.auth.exchangeCode(appCode, codeVerifier));
    expect(await app.auth.getSession()).toBeNull();
    await expect(app.auth.mfa.challenge(exchanged.mfaToken, { code: user.nextCode() })).resolves.toMatchObject({ user: { id: user.id } });
    expect(aalOf(await app.auth.getSession())).toBe(2);
  });

  it('a refresh keeps the session at aal 2', async () => {
    const user = await enrolled();
    const session = await user.client.auth.getSession();
    const storage = memoryStorage();
    const key = 'basalt.mfa.refresh';
    storage.setItem(key, JSON.stringify({ ...session, expiresAt: Date.now() - 1000 }));
    const client = live.client({ storage, storageKey: key });
    const refreshed = await client.auth.getSession();
    expect(refreshed?.refreshToken).not.toBe(session?.refreshToken);
    expect(aalOf(refreshed)).toBe(2);
    await expect(client.auth.mfa.newRecoveryCodes()).resolves.toMatchObject({ recoveryCodes: expect.any(Array) });
  });
});

describe('removal', () => {
  it('remove() turns the factor off: signIn answers a session again; a second remove is 404', async () => {
    const user = await enrolled();
    await user.client.auth.mfa.remove();
    await expect(user.client.auth.me()).resolves.toMatchObject({ mfa: false });
    const session = await sessionOf(live.client().auth.signIn({ email: user.email, password: PASSWORD }));
    expect(session.user.id).toBe(user.id);
    expect(aalOf(session)).toBe(1);
    expect((await failure(user.client.auth.mfa.remove())).status).toBe(404);
  });

  it('the owner sees mfa and removes a member\'s factor (admin.users.removeMfa); a member may not', async () => {
    const user = await enrolled();
    const listed = await owner.admin.users.list({ limit: 100 });
    expect(listed.data.find((item) => item.id === user.id)).toMatchObject({ mfa: true });
    expect((await failure(user.client.admin.users.removeMfa(user.id))).status).toBe(403);

    await owner.admin.users.removeMfa(user.id);
    await expect(user.client.auth.me()).resolves.toMatchObject({ mfa: false });
    await expect(sessionOf(live.client().auth.signIn({ email: user.email, password: PASSWORD }))).resolves.toMatchObject({ user: { id: user.id } });
    expect((await failure(owner.admin.users.removeMfa(user.id))).status).toBe(404);
  });
});
