import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, signUp, uniqueEmail } from '../harness.js';
import { followRedirects } from '../../../test-support/oidc.js';
import { APP, pkcePair, signInAt, startWithProvider, type ProviderSetup } from './support.js';

/** The redirect flow against a real OpenID Connect provider on loopback (API.md, "Sign-in with identity providers"). */

let setup: ProviderSetup;
beforeAll(async () => {
  setup = await startWithProvider();
});
afterAll(() => setup.close());

const exchange = (code: string, codeVerifier: string) => setup.h.request().post('/auth/oauth/exchange').send({ code, codeVerifier });

describe('sign-in by redirect', () => {
  it('makes an account for a new verified address: a one-time code back at redirectTo, exchanged once with the verifier', async () => {
    const email = uniqueEmail('provider');
    setup.op.accounts.set('alice', { sub: 'alice-sub', email, email_verified: true });
    const { back, codeVerifier } = await signInAt(setup, 'alice');
    expect(back.origin + back.pathname).toBe(APP);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(back.searchParams.get('access_token')).toBeNull();
    const wrong = await exchange(code, pkcePair().codeVerifier);
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong).details).toEqual({ field: 'code' });
    // The wrong verifier spent the code: a code is single use whatever the outcome.
    const { back: again, codeVerifier: verifier2 } = await signInAt(setup, 'alice');
    const tokens = await exchange(again.searchParams.get('code')!, verifier2);
    expect(tokens.status).toBe(200);
    expect(tokens.body.data.user.email).toBe(email);
    const me = await setup.h.request().get('/auth/me').set({ Authorization: `Bearer ${tokens.body.data.accessToken}` });
    expect(me.body.data).toMatchObject({ email, verified: true, hasPassword: false, role: 'member' });
    expect(me.body.data.identities).toEqual([{ provider: 'test', email, createdAt: expect.any(String) }]);
    const replay = await exchange(again.searchParams.get('code')!, verifier2);
    expect(replay.status).toBe(400);
    void codeVerifier;
  });

  it('refuses a redirectTo outside the allow-list in the envelope, before the provider', async () => {
    const { codeChallenge } = pkcePair();
    const response = await setup.h.request().get('/auth/oauth/test').query({ redirectTo: 'http://evil.example.test/x', codeChallenge });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ parameter: 'redirectTo' });
    const nul = await setup.h.request().get('/auth/oauth/test').query({ redirectTo: `${APP}\u0000`, codeChallenge });
    expect(errorOf(nul).details).toEqual({ parameter: 'redirectTo' });
    const missing = await setup.h.request().get('/auth/oauth/test').query({ redirectTo: APP });
    expect(errorOf(missing).details).toEqual({ parameter: 'codeChallenge' });
    expect((await setup.h.request().get('/auth/oauth/nope').query({ redirectTo: APP, codeChallenge })).status).toBe(404);
  });

  it('refuses a callback whose state it did not issue, or issued and already used', async () => {
    setup.op.accounts.set('bob', { sub: 'bob-sub', email: uniqueEmail('bob'), email_verified: true });
    const forged = await setup.h.request().get('/auth/oauth/test/callback').query({ code: 'x', state: 'not-ours' });
    expect(forged.status).toBe(400);
    expect(errorOf(forged).details).toEqual({ parameter: 'state' });
    // Stop at Basalt's callback, then play it twice.
    const { codeChallenge } = pkcePair();
    setup.op.autoLogin = 'bob';
    const { location } = await followRedirects(`${setup.h.url}/auth/oauth/test?${new URLSearchParams({ redirectTo: APP, codeChallenge })}`, `${setup.h.url}/auth/oauth/test/callback`);
    const first = await fetch(location, { redirect: 'manual' });
    expect(new URL(first.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const second = await fetch(location, { redirect: 'manual' });
    expect(second.status).toBe(400);
    // The same callback on another provider's route is not its state either.
    const crossed = await fetch(location.replace('/oauth/test/', '/oauth/other/'), { redirect: 'manual' });
    expect(crossed.status).toBe(400);
  });

  it('takes the callback as a form POST too (response_mode form_post, as apple answers)', async () => {
    setup.op.accounts.set('poster', { sub: 'poster', email: uniqueEmail('poster'), email_verified: true });
    const { codeChallenge } = pkcePair();
    setup.op.autoLogin = 'poster';
    const { location } = await followRedirects(`${setup.h.url}/auth/oauth/test?${new URLSearchParams({ redirectTo: APP, codeChallenge })}`, `${setup.h.url}/auth/oauth/test/callback`);
    const callback = new URL(location);
    const posted = await fetch(`${callback.origin}${callback.pathname}`, { method: 'POST', body: callback.searchParams, redirect: 'manual' });
    expect(posted.status).toBe(302);
    expect(new URL(posted.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const repeated = await fetch(`${callback.origin}${callback.pathname}`, { method: 'POST', body: callback.searchParams, redirect: 'manual' });
    expect(repeated.status).toBe(400);
  });

  it('sends the provider’s refusal back to the app as ?error=access_denied', async () => {
    setup.op.denyNext = true;
    const { back } = await signInAt(setup, null);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('links to an existing account only when both sides have the address verified; else ACCOUNT_EXISTS', async () => {
    const member = await signUp(setup.h, uniqueEmail('member'));
    setup.op.accounts.set('claims-member', { sub: 'claims-member', email: member.email, email_verified: true });
    const refused = await signInAt(setup, 'claims-member');
    expect(refused.back.searchParams.get('error')).toBe('ACCOUNT_EXISTS');
    const sql = await setup.h.sql();
    await sql.query('UPDATE users SET email_verified = true WHERE id = $1', [member.id]);
    setup.op.accounts.set('unverified-claim', { sub: 'unverified-claim', email: member.email, email_verified: false });
    expect((await signInAt(setup, 'unverified-claim')).back.searchParams.get('error')).toBe('ACCOUNT_EXISTS');
    const linked = await signInAt(setup, 'claims-member');
    const tokens = await exchange(linked.back.searchParams.get('code')!, linked.codeVerifier);
    expect(tokens.body.data.user.id).toBe(member.id);
  });

  it('answers EMAIL_REQUIRED for a new identity without an email', async () => {
    setup.op.accounts.set('no-mail', { sub: 'no-mail' });
    expect((await signInAt(setup, 'no-mail')).back.searchParams.get('error')).toBe('EMAIL_REQUIRED');
  });
});
