import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEmailLink, type BasaltClient } from '../src/index.js';
import { failure } from './support/mail.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/**
 * The client under `auth.emailVerification: "required"` and without SMTP (issue 26): sign-up answers the user without
 * a session, sign-in waits for the proof, and the owner reads the unsent mail's link and code in the outbox.
 */

let configDir: string;
let live: Live;
let owner: BasaltClient;
let ownerSignUp: Awaited<ReturnType<BasaltClient['auth']['signUp']>>;

beforeAll(async () => {
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-email-required-'));
  const config = path.join(configDir, 'config.json');
  await fs.writeFile(config, JSON.stringify({ email: { from: 'app@example.test' }, auth: { emailVerification: 'required' }, limits: false }));
  live = await startLive({ env: { CONFIG_PATH: config } });
  owner = live.client();
  ownerSignUp = await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
});
afterAll(async () => {
  await live?.stop();
  await fs.rm(configDir, { recursive: true, force: true });
});

describe('emailVerification "required", without SMTP', () => {
  it('the first account, the owner, counts as verified: its sign-up signs it in', async () => {
    expect(ownerSignUp).not.toHaveProperty('verificationRequired');
    expect(ownerSignUp.user.role).toBe('owner');
    expect(await owner.auth.getSession()).toEqual(ownerSignUp);
    await expect(owner.auth.me()).resolves.toMatchObject({ role: 'owner', verified: true });
  });

  it('signUp answers the user without a session; signIn is 403 EMAIL_NOT_VERIFIED until verify signs it in', async () => {
    await expect(live.client().auth.settings()).resolves.toMatchObject({ emailVerification: 'required', emailSignIn: false });
    const client = live.client();
    const email = uniqueEmail();
    const result = await client.auth.signUp({ email, password: PASSWORD });
    expect(result).toEqual({ user: expect.objectContaining({ email, role: 'member' }), verificationRequired: true });
    expect(result.accessToken).toBeUndefined();
    expect(await client.auth.getSession()).toBeNull();

    const refused = await failure(client.auth.signIn({ email, password: PASSWORD }));
    expect(refused).toMatchObject({ status: 403, code: 'EMAIL_NOT_VERIFIED' });
    expect(await client.auth.getSession()).toBeNull();
    // A wrong password is still 401: the 403 comes only after the password matched.
    expect((await failure(client.auth.signIn({ email, password: 'not the password' }))).status).toBe(401);

    // No SMTP: the mail waits in the outbox, unsent, with its link and code for the owner to pass on.
    const { data } = await owner.admin.outbox({ status: 'unsent', limit: 100 });
    const mail = data.find((item) => item.to === email)!;
    expect(mail).toMatchObject({ kind: 'verify', status: 'unsent', lastError: 'unsent: no SMTP' });
    expect(mail.code).toMatch(/^\d{6}$/);
    const link = parseEmailLink(mail.link!)!;
    expect(link.type).toBe('verify');
    await expect(owner.admin.settings()).resolves.toMatchObject({ smtp: { configured: false } });
    expect((await failure(owner.admin.retryMail(mail.id))).status).toBe(400);

    const verified = await client.auth.verify({ token: link.token });
    expect(verified.user).toMatchObject({ email, verified: true });
    expect(verified.session).not.toBeNull();
    expect(await client.auth.getSession()).toEqual(verified.session);
    await expect(client.auth.me()).resolves.toMatchObject({ email, verified: true });
    await expect(live.client().auth.signIn({ email, password: PASSWORD })).resolves.toMatchObject({ user: { email } });
  });

  it('verify({ email, code }) signs in as well, and the code works once', async () => {
    const client = live.client();
    const email = uniqueEmail();
    await client.auth.signUp({ email, password: PASSWORD });
    const mail = (await owner.admin.outbox({ status: 'unsent', limit: 100 })).data.find((item) => item.to === email)!;
    const { session } = await client.auth.verify({ email, code: mail.code! });
    expect(session?.user).toMatchObject({ email, role: 'member' });
    expect(await client.auth.getSession()).toEqual(session);
    expect((await failure(live.client().auth.verify({ email, code: mail.code! }))).details).toMatchObject({ field: 'code' });
  });

  it('email sign-in is off here: signInWithEmail is 404', async () => {
    expect((await failure(live.client().auth.signInWithEmail(uniqueEmail()))).status).toBe(404);
  });
});
