import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRedirects, startOidcProvider, type TestOidcProvider } from '../../test-support/oidc.js';
import { freePort } from '../../test-support/ports.js';
import { isMfaPending, memoryStorage, parseProviderReturn, type BasaltClient } from '../src/index.js';
import { PASSWORD, sessionOf, startLive, uniqueEmail, type Live } from './support/live.js';

/** The client's provider sign-in against the built server and a real OpenID Connect provider (issue 27). */

const APP = 'http://app.example.test/back';
let op: TestOidcProvider;
let live: Live;
let configDir: string;

beforeAll(async () => {
  const port = await freePort();
  op = await startOidcProvider({ basaltCallbacks: [`http://127.0.0.1:${port}/auth/oauth/test/callback`] });
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-providers-'));
  const config = path.join(configDir, 'config.json');
  await fs.writeFile(
    config,
    JSON.stringify({
      auth: { redirectUrls: ['http://app.example.test/*'], providers: { test: { issuer: op.issuer, clientId: op.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', audiences: [op.nativeClientId], displayName: 'Test ID' } } },
      limits: false,
    }),
  );
  live = await startLive({ env: { CONFIG_PATH: config, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, TEST_OIDC_SECRET: op.clientSecret } });
  // The first account is the owner; provider accounts are members.
  await live.client().auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
});
afterAll(async () => {
  await live?.stop();
  await op?.close();
  await fs.rm(configDir, { recursive: true, force: true });
});

/** The browser's trip from the provider URL back to the app, the provider's login scripted. */
async function visit(url: string, login: string): Promise<string> {
  op.autoLogin = login;
  return (await followRedirects(url, 'http://app.example.test')).location;
}

describe('signInWithProvider', () => {
  it('lists the provider in the settings, keeps the PKCE verifier in its storage, and exchanges the code once', async () => {
    const storage = memoryStorage();
    const client = live.client({ storage });
    expect((await client.auth.settings()).providers).toEqual([{ name: 'test', displayName: 'Test ID' }]);
    const email = uniqueEmail('carol');
    op.accounts.set('carol', { sub: 'carol', email, email_verified: true });
    const { url } = await client.auth.signInWithProvider('test', { redirectTo: APP, navigate: false });
    expect(new URL(url).searchParams.get('codeChallenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const back = parseProviderReturn(await visit(url, 'carol'));
    expect(back).toEqual({ code: expect.any(String) });
    const session = await sessionOf(client.auth.exchangeCode((back as { code: string }).code));
    expect(session.user.email).toBe(email);
    expect((await client.auth.me()).identities.map((identity) => identity.provider)).toEqual(['test']);
    // The verifier was spent with the code: a second exchange has none to send.
    await expect(client.auth.exchangeCode('anything')).rejects.toThrow(/verifier/);
  });

  it('answers the ?error= of a refused sign-in', async () => {
    const member = live.client();
    const email = uniqueEmail('taken');
    await member.auth.signUp({ email, password: PASSWORD });
    op.accounts.set('claims-taken', { sub: 'claims-taken', email, email_verified: true });
    const client = live.client();
    const { url } = await client.auth.signInWithProvider('test', { redirectTo: APP, navigate: false });
    expect(parseProviderReturn(await visit(url, 'claims-taken'))).toEqual({ error: 'ACCOUNT_EXISTS' });
  });
});

describe('identities', () => {
  it('links a provider to the signed-in account and unlinks it (the password stays a way in)', async () => {
    const client: BasaltClient = live.client();
    await client.auth.signUp({ email: uniqueEmail('dave'), password: PASSWORD });
    op.accounts.set('dave-elsewhere', { sub: 'dave-elsewhere', email: uniqueEmail('dave-other'), email_verified: false });
    const { url } = await client.auth.linkIdentity('test', { redirectTo: APP, navigate: false });
    expect(parseProviderReturn(await visit(url, 'dave-elsewhere'))).toEqual({ linked: 'test' });
    expect((await client.auth.me()).identities).toEqual([{ provider: 'test', email: expect.stringContaining('dave-other'), createdAt: expect.any(String) }]);
    await client.auth.unlinkIdentity('test');
    expect((await client.auth.me()).identities).toEqual([]);
  });

  it('signs in with a native id token, its nonce spent once; a factor on asks for the second step', async () => {
    const email = uniqueEmail('erin');
    const now = Math.floor(Date.now() / 1000);
    const token = (nonce: string) => op.sign({ iss: op.issuer, aud: op.nativeClientId, sub: 'erin', email, email_verified: true, nonce, iat: now, exp: now + 600 });
    const client = live.client();
    const session = await sessionOf(client.auth.signInWithIdToken('test', { idToken: await token('n-1'), nonce: 'n-1' }));
    expect(session.user.email).toBe(email);
    await expect(client.auth.signInWithIdToken('test', { idToken: await token('n-1'), nonce: 'n-1' })).rejects.toMatchObject({ status: 400, details: { field: 'nonce' } });
    const { generateSync } = await import('otplib');
    const { secret } = await client.auth.mfa.enroll();
    await client.auth.mfa.verify(generateSync({ secret }));
    const again = await live.client().auth.signInWithIdToken('test', { idToken: await token('n-2'), nonce: 'n-2' });
    expect(isMfaPending(again)).toBe(true);
  });
});
