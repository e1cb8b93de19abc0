import { randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import { expect } from 'vitest';
import { followRedirects, type TestOidcProvider } from '../../../test-support/oidc.js';
import { uniqueEmail } from '../harness.js';
import { pkcePair } from '../providers/support.js';
import type { Traffic } from './traffic.js';

/**
 * Identity providers (issue 27) through the Prism proxy (prism.test.ts), against a real OpenID Connect provider on
 * loopback configured as `test` and `other` (and `down`, whose discovery never succeeds): every provider route with its
 * successes and documented refusals. The redirect flow's 302s go to the service directly and are checked against the
 * document there (`Traffic.redirect`: Prism's proxy follows redirects); their errors, and every JSON answer, through
 * Prism. The browser's trip through the provider is followed with its cookies (test-support/oidc.ts) up to the callback.
 */

type Headers = Record<string, string>;

export interface ProviderRun {
  t: Traffic;
  op: TestOidcProvider;
  /** PUBLIC_URL of the service: the provider sends the browser to its callback there. */
  publicUrl: string;
  owner: Headers;
  /** An account with a password and an unverified address. */
  member: { headers: Headers; email: string };
}

const APP = 'http://app.example.test/after';
const ELSEWHERE = 'https://elsewhere.example/after';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const start = (provider: string, query: Record<string, string>) => `/auth/oauth/${provider}?${new URLSearchParams(query)}`;
const returned = (location: string | null | undefined) => new URL(location!).searchParams;
const nonce = () => randomBytes(18).toString('base64url');

export async function providerTraffic(run: ProviderRun): Promise<void> {
  const { t, op } = run;
  const { codeVerifier, codeChallenge } = pkcePair();
  const now = Math.floor(Date.now() / 1000);
  const idToken = (sub: string, claims: Record<string, unknown>, key?: 'other') =>
    op.sign({ iss: op.issuer, aud: op.nativeClientId, sub, iat: now, exp: now + 600, ...claims }, key ? { key } : {});

  /** The browser's trip from the provider's page (the start's Location) to the callback: its path and query at the service. */
  const atProvider = async (url: string, login: string | null, provider = 'test'): Promise<URL> => {
    op.autoLogin = login;
    const { location } = await followRedirects(url, `${run.publicUrl}/auth/oauth/${provider}/callback`);
    return new URL(location);
  };
  const callbackPath = (callback: URL) => `${callback.pathname}${callback.search}`;
  /** A sign-in by redirect as `login`: the start, the provider, the callback; the callback's URL and where it sent the browser. */
  const signInByRedirect = async (login: string | null) => {
    const started = await t.redirect('GET', start('test', { redirectTo: APP, codeChallenge }), { status: 302 });
    const callback = await atProvider(started.location!, login);
    const back = await t.redirect('GET', callbackPath(callback), { status: 302 });
    return { callback, back: returned(back.location) };
  };

  const settings = await t.call('GET', '/auth/settings', { status: 200 });
  expect(settings.body.data.providers).toEqual([
    { name: 'test', displayName: 'Test provider' },
    { name: 'other', displayName: 'Test provider' },
    { name: 'down', displayName: 'Test provider' },
  ]);
  expect((await t.call('GET', '/admin/settings', { headers: run.owner, status: 200 })).body.data.providers).toHaveLength(3);

  // The start: its refusals in the envelope, through Prism; what the document refuses, Prism stops.
  expect((await t.call('GET', start('test', { redirectTo: ELSEWHERE, codeChallenge }), { status: 400 })).body.error.details).toEqual({ parameter: 'redirectTo' });
  expect((await t.call('GET', start('test', { redirectTo: APP, codeChallenge, extra: '1' }), { status: 400 })).body.error.details).toEqual({ parameter: 'extra' });
  await t.call('GET', start('nope', { redirectTo: APP, codeChallenge }), { status: 404 });
  await t.call('GET', start('down', { redirectTo: APP, codeChallenge }), { status: 503 });
  await t.refusedByDocument('GET', start('test', { redirectTo: APP, codeChallenge: 'too-short' }));
  await t.refusedByDocument('GET', start('test', { codeChallenge }));
  await t.refusedByDocument('GET', start('Not-A-Name', { redirectTo: APP, codeChallenge }));

  // Sign-in by redirect: 302 to the provider, 302 back with a one-time code, traded with the verifier.
  const aliceEmail = uniqueEmail('alice');
  op.accounts.set('alice', { sub: 'alice-sub', email: aliceEmail, email_verified: true });
  const first = await signInByRedirect('alice');
  const exchanged = await t.call('POST', '/auth/oauth/exchange', { body: { code: first.back.get('code'), codeVerifier }, status: 200 });
  const alice = bearer(exchanged.body.data.accessToken);
  const me = await t.call('GET', '/auth/me', { headers: alice, status: 200 });
  expect(me.body.data).toMatchObject({ email: aliceEmail, verified: true, hasPassword: false, identities: [{ provider: 'test', email: aliceEmail }] });

  // The callback's refusals before redirectTo is known: a replayed, unknown or missing state; the provider's name.
  await t.call('GET', callbackPath(first.callback), { status: 400 });
  expect((await t.call('GET', '/auth/oauth/test/callback?state=unknown&code=x', { status: 400 })).body.error.details).toEqual({ parameter: 'state' });
  await t.refusedByDocument('GET', '/auth/oauth/test/callback?code=x');
  await t.call('GET', '/auth/oauth/nope/callback?state=x', { status: 404 });
  await t.call('GET', '/auth/oauth/down/callback?state=x', { status: 503 });

  // The callback as a form POST (apple's form_post), and its refusals.
  const started = await t.redirect('GET', start('test', { redirectTo: APP, codeChallenge }), { status: 302 });
  const posted = await atProvider(started.location!, 'alice');
  const form = Object.fromEntries(posted.searchParams);
  const postedBack = await t.redirect('POST', posted.pathname, { form, status: 302 });
  expect(returned(postedBack.location).get('code')).toEqual(expect.any(String));
  await t.call('POST', posted.pathname, { form, status: 400 });
  await t.call('POST', '/auth/oauth/nope/callback', { form: { state: 'x' }, status: 404 });
  await t.refusedByDocument('POST', posted.pathname, { form: { code: 'x' } });

  // The user refuses at the provider: back to the app with ?error=access_denied.
  op.denyNext = true;
  expect((await signInByRedirect(null)).back.get('error')).toBe('access_denied');

  // Native id tokens: tokens, and each refusal the document lists.
  const carolEmail = uniqueEmail('carol');
  const carolNonce = nonce();
  const carolToken = await idToken('carol-sub', { email: carolEmail, email_verified: true, nonce: carolNonce });
  const native = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: carolToken, nonce: carolNonce }, status: 200 });
  const carol = bearer(native.body.data.accessToken);
  expect((await t.call('POST', '/auth/oauth/test/token', { body: { idToken: carolToken, nonce: carolNonce }, status: 400 })).body.error.details).toEqual({ field: 'nonce' });
  const forged = nonce();
  expect((await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('carol-sub', { email: carolEmail, nonce: forged }, 'other'), nonce: forged }, status: 400 })).body.error.details).toEqual({ field: 'idToken' });
  await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('carol-sub', { nonce: nonce() }), nonce: nonce() }, status: 400 });
  const anonymous = nonce();
  expect((await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('nobody-sub', { nonce: anonymous }), nonce: anonymous }, status: 400 })).body.error.code).toBe('EMAIL_REQUIRED');
  const taken = nonce();
  const exists = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('member-sub', { email: run.member.email, email_verified: true, nonce: taken }), nonce: taken }, status: 409 });
  expect(exists.body.error).toMatchObject({ code: 'ACCOUNT_EXISTS', details: { provider: 'test' } });
  await t.call('POST', '/auth/oauth/nope/token', { body: { idToken: carolToken, nonce: nonce() }, status: 404 });
  await t.call('POST', '/auth/oauth/down/token', { body: { idToken: carolToken, nonce: nonce() }, status: 503 });
  await t.refusedByDocument('POST', '/auth/oauth/test/token', { body: { idToken: '', nonce: nonce() } });
  await t.refusedByDocument('POST', '/auth/oauth/test/token', { body: { idToken: carolToken, nonce: 'x'.repeat(513) } });
  await t.refusedByDocument('POST', '/auth/oauth/test/token', { body: { idToken: carolToken, nonce: nonce(), extra: 1 } });

  // Linking: the URL of the provider's page, then back with ?linked=; a second link of a provider is 409.
  op.accounts.set('carol', { sub: 'carol-sub', email: carolEmail, email_verified: true });
  const link = await t.call('POST', '/auth/identities/other', { headers: carol, body: { redirectTo: APP, codeChallenge }, status: 200 });
  const linked = await t.redirect('GET', callbackPath(await atProvider(link.body.data.url as string, 'carol', 'other')), { status: 302 });
  expect(returned(linked.location).get('linked')).toBe('other');
  await t.call('POST', '/auth/identities/other', { headers: carol, body: { redirectTo: APP, codeChallenge }, status: 409 });
  expect((await t.call('GET', '/auth/me', { headers: carol, status: 200 })).body.data.identities.map((identity: { provider: string }) => identity.provider)).toEqual(['test', 'other']);
  await t.call('GET', '/admin/users?limit=100', { headers: run.owner, status: 200 });
  // An identity of another account ends at redirectTo with ?error=ACCOUNT_EXISTS.
  const stolen = await t.call('POST', '/auth/identities/other', { headers: alice, body: { redirectTo: APP, codeChallenge }, status: 200 });
  const refused = await t.redirect('GET', callbackPath(await atProvider(stolen.body.data.url as string, 'carol', 'other')), { status: 302 });
  expect(returned(refused.location).get('error')).toBe('ACCOUNT_EXISTS');
  expect((await t.call('POST', '/auth/identities/other', { headers: alice, body: { redirectTo: ELSEWHERE, codeChallenge }, status: 400 })).body.error.details).toEqual({ field: 'redirectTo' });
  await t.call('POST', '/auth/identities/other', { headers: bearer('not-a-token'), body: { redirectTo: APP, codeChallenge }, status: 401 });
  await t.call('POST', '/auth/identities/nope', { headers: alice, body: { redirectTo: APP, codeChallenge }, status: 404 });
  await t.call('POST', '/auth/identities/down', { headers: alice, body: { redirectTo: APP, codeChallenge }, status: 503 });
  await t.refusedByDocument('POST', '/auth/identities/other', { headers: alice, body: { redirectTo: APP } });

  // Unlinking: done, then not linked; the last way in stays (an account the provider made, its address unvouched).
  await t.call('DELETE', '/auth/identities/other', { headers: carol, status: 200 });
  await t.call('DELETE', '/auth/identities/other', { headers: carol, status: 404 });
  await t.call('DELETE', '/auth/identities/other', { headers: bearer('not-a-token'), status: 401 });
  const daveNonce = nonce();
  const dave = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('dave-sub', { email: uniqueEmail('dave'), email_verified: false, nonce: daveNonce }), nonce: daveNonce }, status: 200 });
  const lastWayIn = await t.call('DELETE', '/auth/identities/test', { headers: bearer(dave.body.data.accessToken), status: 400 });
  expect(lastWayIn.body.error.details).toEqual({ field: 'provider' });

  // With a second factor on, a provider sign-in answers the step (MfaStep), by the native endpoint and by redirect.
  const { secret } = (await t.call('POST', '/auth/mfa/totp', { headers: carol, status: 200 })).body.data as { secret: string };
  await t.call('POST', '/auth/mfa/totp/verify', { headers: carol, body: { code: generateSync({ secret }) }, status: 200 });
  const stepNonce = nonce();
  const step = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: await idToken('carol-sub', { email: carolEmail, nonce: stepNonce }), nonce: stepNonce }, status: 200 });
  expect(step.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });

  // providerSignInsPerAddress (100 per 900 s): past it, 429 on the native endpoint, the start and a link. Last: it
  // holds for this address for the rest of the run.
  let over = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: 'not-a-jwt', nonce: nonce() }, status: [400, 429] });
  for (let i = 0; i < 100 && over.status !== 429; i++) over = await t.call('POST', '/auth/oauth/test/token', { body: { idToken: 'not-a-jwt', nonce: nonce() }, status: [400, 429] });
  expect(over.status).toBe(429);
  expect(over.body.error.details).toMatchObject({ limit: 'providerSignInsPerAddress' });
  expect(over.headers.get('retry-after')).toMatch(/^[0-9]+$/);
  await t.call('GET', start('test', { redirectTo: APP, codeChallenge }), { status: 429 });
  await t.call('POST', '/auth/identities/other', { headers: alice, body: { redirectTo: APP, codeChallenge }, status: 429 });
}
