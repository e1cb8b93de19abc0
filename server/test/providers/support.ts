import { createHash, randomBytes } from 'node:crypto';
import { defaultEmailSettings, type EmailSettings } from '../../src/auth/email/settings.js';
import { parseRedirectRules } from '../../src/auth/email/redirects.js';
import type { ProviderConfig } from '../../src/auth/providers/settings.js';
import { followRedirects, startOidcProvider, type TestOidcProvider } from '../../../test-support/oidc.js';
import { freePort, startHarness, type Harness, type HarnessOptions } from '../harness.js';

/** A Basalt harness with the loopback test provider configured as `test` (and as `other`, the same issuer). */
export const APP = 'http://app.example.test/after-sign-in';

export interface ProviderSetup {
  h: Harness;
  op: TestOidcProvider;
  close(): Promise<void>;
}

export function providerConfig(op: TestOidcProvider, name = 'test', extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return { name, displayName: 'Test provider', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, scopes: ['openid', 'email', 'profile'], audiences: [op.nativeClientId], preset: null, ...extra };
}

export async function startWithProvider(options: Omit<HarnessOptions, 'email'> & { email?: Partial<EmailSettings> } = {}): Promise<ProviderSetup> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const op = await startOidcProvider({ basaltCallbacks: [`${url}/auth/oauth/test/callback`, `${url}/auth/oauth/other/callback`] });
  const email: EmailSettings = { ...defaultEmailSettings(url), redirectUrls: parseRedirectRules(['http://app.example.test/*'], null, 'config.json'), ...options.email };
  const h = await startHarness({ ...options, port, email, providers: [providerConfig(op), providerConfig(op, 'other')] });
  return { h, op, close: async () => (await h.close(), await op.close()) };
}

export function pkcePair(): { codeVerifier: string; codeChallenge: string } {
  const codeVerifier = randomBytes(32).toString('base64url');
  return { codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}

/** The whole browser trip: Basalt's start, the provider (scripted login of `login`), the callback, back at the app. */
export async function signInAt(setup: ProviderSetup, login: string | null, provider = 'test', redirectTo = APP): Promise<{ back: URL; codeVerifier: string }> {
  const { codeVerifier, codeChallenge } = pkcePair();
  setup.op.autoLogin = login;
  const start = `${setup.h.url}/auth/oauth/${provider}?${new URLSearchParams({ redirectTo, codeChallenge })}`;
  const { location } = await followRedirects(start, new URL(redirectTo).origin);
  return { back: new URL(location), codeVerifier };
}
