import { generateSync } from 'otplib';
import { DEFAULT_LIMITS } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEmailSettings } from '../../src/auth/email/settings.js';
import { ProviderRegistry } from '../../src/auth/providers/registry.js';
import { startOidcProvider, followRedirects } from '../../../test-support/oidc.js';
import { errorOf, freePort, signUp, startHarness, uniqueEmail, type Account } from '../harness.js';
import { APP, pkcePair, providerConfig, signInAt, startWithProvider, type ProviderSetup } from './support.js';

/** Identities: linking, unlinking, what removes them, and the second factor after a provider (issue 27). */

let setup: ProviderSetup;
let owner: Account;
beforeAll(async () => {
  setup = await startWithProvider();
  owner = await signUp(setup.h, uniqueEmail('owner'));
});
afterAll(() => setup.close());

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const exchange = (code: string, codeVerifier: string) => setup.h.request().post('/auth/oauth/exchange').send({ code, codeVerifier });

async function link(account: Account, login: string, provider = 'test'): Promise<URL> {
  const { codeChallenge } = pkcePair();
  const started = await setup.h.request().post(`/auth/identities/${provider}`).set(account.auth).send({ redirectTo: APP, codeChallenge });
  if (started.status !== 200) return Object.assign(new URL(APP), { status: started.status, body: started.body }) as URL;
  setup.op.autoLogin = login;
  return new URL((await followRedirects(started.body.data.url, 'http://app.example.test')).location);
}

async function providerAccount(login: string, email = uniqueEmail(login), verified = true) {
  setup.op.accounts.set(login, { sub: login, email, email_verified: verified });
  const { back, codeVerifier } = await signInAt(setup, login);
  const tokens = await exchange(back.searchParams.get('code')!, codeVerifier);
  expect(tokens.status).toBe(200);
  return { email, accessToken: tokens.body.data.accessToken as string, id: tokens.body.data.user.id as string };
}

describe('link and unlink', () => {
  it('links while signed in (any email), one identity per provider per account, never an identity of another account', async () => {
    const account = await signUp(setup.h);
    setup.op.accounts.set('frank', { sub: 'frank', email: uniqueEmail('frank-at-provider'), email_verified: false });
    expect((await link(account, 'frank')).searchParams.get('linked')).toBe('test');
    const again = await setup.h.request().post('/auth/identities/test').set(account.auth).send({ redirectTo: APP, codeChallenge: pkcePair().codeChallenge });
    expect(again.status).toBe(409);
    expect(errorOf(again).details).toEqual({ constraint: 'unique', column: 'identities.provider' });
    // Frank's identity signs in to this account from now on.
    const { back, codeVerifier } = await signInAt(setup, 'frank');
    expect((await exchange(back.searchParams.get('code')!, codeVerifier)).body.data.user.id).toBe(account.id);
    // Another account cannot take it.
    const other = await signUp(setup.h);
    expect((await link(other, 'frank')).searchParams.get('error')).toBe('ACCOUNT_EXISTS');
    const listed = await setup.h.request().get('/admin/users').set(owner.auth);
    const row = (listed.body.data as Array<{ id: string; identities: unknown[] }>).find((user) => user.id === account.id);
    expect(row?.identities).toEqual([{ provider: 'test', email: expect.stringContaining('frank-at-provider'), createdAt: expect.stringMatching(/Z$/) }]);
  });

  it('refuses to unlink the last way in (400 naming provider), allows it with another identity', async () => {
    const made = await providerAccount('grace');
    const last = await setup.h.request().delete('/auth/identities/test').set(bearer(made.accessToken));
    expect(last.status).toBe(400);
    expect(errorOf(last).details).toEqual({ field: 'provider' });
    const account = { ...made, role: 'member' as const, refreshToken: '', auth: bearer(made.accessToken) };
    setup.op.accounts.set('grace-2', { sub: 'grace-2', email: uniqueEmail('grace-2'), email_verified: true });
    expect((await link(account, 'grace-2', 'other')).searchParams.get('linked')).toBe('other');
    expect((await setup.h.request().delete('/auth/identities/test').set(account.auth)).status).toBe(200);
    expect((await setup.h.request().delete('/auth/identities/test').set(account.auth)).status).toBe(404);
    expect((await setup.h.request().get('/auth/me').set(account.auth)).body.data.identities.map((i: { provider: string }) => i.provider)).toEqual(['other']);
  });

  it('needs a signed-in user: anon and a bad token get 401; a bad redirectTo is 400 before the provider', async () => {
    expect((await setup.h.request().post('/auth/identities/test').send({ redirectTo: APP, codeChallenge: pkcePair().codeChallenge })).status).toBe(401);
    expect((await setup.h.request().delete('/auth/identities/test').set(bearer('nope'))).status).toBe(401);
    const account = await signUp(setup.h);
    const bad = await setup.h.request().post('/auth/identities/test').set(account.auth).send({ redirectTo: 'javascript:alert(1)', codeChallenge: pkcePair().codeChallenge });
    expect(errorOf(bad).details).toEqual({ field: 'redirectTo' });
  });

  it('deleting the account removes its identities: the identity makes a new account next time', async () => {
    const made = await providerAccount('heidi');
    const sql = await setup.h.sql();
    await sql.query('DELETE FROM users WHERE id = $1', [made.id]);
    expect((await sql.query('SELECT count(*)::int AS n FROM _basalt_identities WHERE user_id = $1', [made.id])).rows[0].n).toBe(0);
    const again = await providerAccount('heidi', made.email);
    expect(again.id).not.toBe(made.id);
  });
});

describe('unverified addresses', () => {
  it('an account a provider made without vouching for the email loses that identity, and its sessions, when the address is proven by mail', async () => {
    const made = await providerAccount('ivan', uniqueEmail('ivan'), false);
    const me = await setup.h.request().get('/auth/me').set(bearer(made.accessToken));
    expect(me.body.data.verified).toBe(false);
    const sent = await setup.h.request().post('/auth/verify/send').send({ email: made.email });
    expect(sent.status).toBe(200);
    const sql = await setup.h.sql();
    // No SMTP here: the owner reads the unsent mail's link in the outbox.
    const outbox = await setup.h.request().get('/admin/outbox').set(owner.auth).query({ limit: 100 });
    const link = (outbox.body.data as Array<{ to: string; link: string | null }>).find((item) => item.to === made.email)?.link;
    expect(link).toBeTruthy();
    const token = new URLSearchParams(new URL(link!).hash.slice(1)).get('token')!;
    expect((await setup.h.request().post('/auth/verify').send({ token })).status).toBe(200);
    expect((await sql.query('SELECT count(*)::int AS n FROM _basalt_identities WHERE user_id = $1', [made.id])).rows[0].n).toBe(0);
    expect((await sql.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [made.id])).rows[0].n).toBe(0);
  });
});

describe('the second factor after a provider', () => {
  it('a provider sign-in of an account with TOTP answers mfaRequired at the exchange; the challenge finishes it', async () => {
    const made = await providerAccount('judy');
    const { secret } = (await setup.h.request().post('/auth/mfa/totp').set(bearer(made.accessToken)).send({})).body.data;
    const epoch = Math.floor(Date.now() / 1000);
    expect((await setup.h.request().post('/auth/mfa/totp/verify').set(bearer(made.accessToken)).send({ code: generateSync({ secret, epoch: epoch - 30 }) })).status).toBe(200);
    const { back, codeVerifier } = await signInAt(setup, 'judy');
    const step = await exchange(back.searchParams.get('code')!, codeVerifier);
    expect(step.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    const done = await setup.h.request().post('/auth/mfa/challenge').send({ mfaToken: step.body.data.mfaToken, code: generateSync({ secret, epoch }) });
    expect(done.status).toBe(200);
    expect(JSON.parse(Buffer.from(done.body.data.accessToken.split('.')[1], 'base64url').toString())).toMatchObject({ aal: 2 });
  });
});

describe('projects', () => {
  it('with sign-ups disabled, a new identity gets ?error=SIGNUP_DISABLED; under required, an unvouched email EMAIL_NOT_VERIFIED', async () => {
    const closed = await startWithProvider({ signupEnabled: false });
    try {
      closed.op.accounts.set('kim', { sub: 'kim', email: uniqueEmail('kim'), email_verified: true });
      expect((await signInAt(closed, 'kim')).back.searchParams.get('error')).toBe('SIGNUP_DISABLED');
    } finally {
      await closed.close();
    }
    const strict = await startWithProvider({ email: { verification: 'required' } });
    try {
      strict.op.accounts.set('leo', { sub: 'leo', email: uniqueEmail('leo'), email_verified: false });
      expect((await signInAt(strict, 'leo')).back.searchParams.get('error')).toBe('EMAIL_NOT_VERIFIED');
    } finally {
      await strict.close();
    }
  });

  it('a provider whose discovery fails answers 503 until it succeeds (retried in the background); the others work meanwhile', async () => {
    const port = await freePort();
    const down = `http://127.0.0.1:${port}`;
    const op = await startOidcProvider({ basaltCallbacks: [] });
    let late: Awaited<ReturnType<typeof startOidcProvider>> | undefined;
    const h = await startHarness({ email: defaultEmailSettings('http://127.0.0.1:1'), providers: [providerConfig(op), providerConfig(op, 'later', { issuer: down })] });
    try {
      const { codeChallenge } = pkcePair();
      const query = { redirectTo: 'http://127.0.0.1:1/console/', codeChallenge };
      expect((await h.request().get('/auth/oauth/later').query(query)).status).toBe(503);
      expect((await h.request().get('/auth/oauth/test').query(query)).status).toBe(302);
      expect((await h.request().get('/auth/settings')).body.data.providers.map((p: { name: string }) => p.name)).toEqual(['test', 'later']);
      const registry = h.services.providers.registry as ProviderRegistry;
      expect(() => registry.get('later')).toThrow(/cannot be reached/);
      late = await startOidcProvider({ basaltCallbacks: [], port });
      const deadline = Date.now() + 20_000;
      let status = 503;
      while (status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await h.request().get('/auth/oauth/later').query(query)).status;
      }
      expect(status).toBe(302);
    } finally {
      await h.close();
      await op.close();
      await late?.close();
    }
  });

  it('counts sign-ins started and native tokens sent per address: over providerSignInsPerAddress, 429 before the provider', async () => {
    const limited = await startWithProvider({ limits: { ...DEFAULT_LIMITS, providerSignInsPerAddress: { max: 2, windowSeconds: 900 } } });
    try {
      const start = () => limited.h.request().get('/auth/oauth/test').query({ redirectTo: APP, codeChallenge: pkcePair().codeChallenge });
      expect((await start()).status).toBe(302);
      expect((await limited.h.request().post('/auth/oauth/test/token').send({ idToken: 'not.a.jwt', nonce: 'n' })).status).toBe(400);
      const over = await start();
      expect(over.status).toBe(429);
      expect(errorOf(over).details).toMatchObject({ limit: 'providerSignInsPerAddress' });
      expect(over.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });

  it('the provider refusing Basalt’s token request (a wrong client secret) comes back as ?error=PROVIDER_ERROR', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const op = await startOidcProvider({ basaltCallbacks: [`${url}/auth/oauth/test/callback`] });
    const h = await startHarness({ port, email: { ...defaultEmailSettings(url), redirectUrls: [{ kind: 'prefix', origin: 'http://app.example.test', path: '/' }] }, providers: [providerConfig(op, 'test', { clientSecret: 'wrong' })] });
    try {
      op.accounts.set('mia', { sub: 'mia', email: uniqueEmail('mia'), email_verified: true });
      expect((await signInAt({ h, op, close: async () => undefined }, 'mia')).back.searchParams.get('error')).toBe('PROVIDER_ERROR');
    } finally {
      await h.close();
      await op.close();
    }
  });
});
