import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import { codeChallengeFor, createPkcePair, isTokenPair, parseEmailLink } from './email.js';
import type { FetchLike } from './http.js';
import { memoryStorage } from './session/storage.js';

describe('parseEmailLink', () => {
  it('reads a whole link, a location.hash, or the fragment text', () => {
    const expected = { type: 'verify', token: 'abc_DEF-123', redirectTo: null };
    expect(parseEmailLink('http://127.0.0.1:3000/auth/confirm#type=verify&token=abc_DEF-123')).toEqual(expected);
    expect(parseEmailLink('#type=verify&token=abc_DEF-123')).toEqual(expected);
    expect(parseEmailLink('type=verify&token=abc_DEF-123')).toEqual(expected);
  });

  it('decodes redirectTo, and knows every link kind', () => {
    const redirectTo = 'http://app.example.test/welcome?from=mail&x=1';
    const link = `https://app.example.test/auth#type=recover&token=t1&redirectTo=${encodeURIComponent(redirectTo)}`;
    expect(parseEmailLink(link)).toEqual({ type: 'recover', token: 't1', redirectTo });
    for (const type of ['verify', 'recover', 'otp', 'email-change', 'invite']) {
      expect(parseEmailLink(`#type=${type}&token=t`)?.type).toBe(type);
    }
  });

  it('is null for anything that is not a mail link', () => {
    expect(parseEmailLink('')).toBeNull();
    expect(parseEmailLink('https://app.example.test/page?type=verify&token=t')).toBeNull();
    expect(parseEmailLink('#type=verify')).toBeNull();
    expect(parseEmailLink('#type=verify&token=')).toBeNull();
    expect(parseEmailLink('#type=email-change-notice&token=t')).toBeNull();
    expect(parseEmailLink('#type=test&token=t')).toBeNull();
    expect(parseEmailLink('#access_token=x&type=recovery')).toBeNull();
  });
});

describe('PKCE', () => {
  it('computes the S256 challenge of RFC 7636, appendix B', async () => {
    await expect(codeChallengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes fresh pairs of a 43-character verifier and its challenge', async () => {
    const a = await createPkcePair();
    const b = await createPkcePair();
    expect(a.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.codeChallenge).toBe(await codeChallengeFor(a.codeVerifier));
    expect(b.codeVerifier).not.toBe(a.codeVerifier);
  });

  it('refuses a verifier RFC 7636 does not allow', async () => {
    await expect(codeChallengeFor('too-short')).rejects.toThrow(TypeError);
    await expect(codeChallengeFor(`${'a'.repeat(42)}!`)).rejects.toThrow(TypeError);
    await expect(codeChallengeFor('a'.repeat(129))).rejects.toThrow(TypeError);
  });
});

describe('isTokenPair', () => {
  it('tells a sign-in answer from a user alone', () => {
    expect(isTokenPair({ user: {}, accessToken: 'a', refreshToken: 'r' })).toBe(true);
    expect(isTokenPair({ user: {} })).toBe(false);
    expect(isTokenPair(null)).toBe(false);
  });
});

describe('the email answers the session depends on (a stand-in server)', () => {
  const user = { id: 'u1', email: 'old@example.test', role: 'member' as const };
  const token = `${btoa(JSON.stringify({ alg: 'HS256' }))}.${btoa(JSON.stringify({ sub: 'u1', iat: 1, exp: 4_000_000_000 }))}.sig`;

  function stub(answers: Record<string, { status: number; body: unknown }>): FetchLike & { paths: string[] } {
    const paths: string[] = [];
    const fetchImpl = async (input: string) => {
      const path = new URL(input).pathname;
      paths.push(path);
      const answer = answers[path] ?? { status: 404, body: { error: { code: 'NOT_FOUND', message: path } } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
    return Object.assign(fetchImpl, { paths });
  }

  it('signUp answered with the user alone (verification required) stores no session', async () => {
    const storage = memoryStorage();
    const client = createClient('http://api.test', 'anon', {
      storage,
      storageKey: 'k',
      fetch: stub({ '/auth/signup': { status: 201, body: { data: { user } } } }),
    });
    const events: string[] = [];
    client.auth.onChange((event) => events.push(event));
    const result = await client.auth.signUp({ email: user.email, password: 'a long password' });
    expect(result).toEqual({ user, verificationRequired: true });
    expect(result.accessToken).toBeUndefined();
    expect(await client.auth.getSession()).toBeNull();
    expect(await storage.getItem('k')).toBeNull();
    expect(events).toEqual([]);
    client.close();
  });

  it('confirmEmailChange gives the signed-in session its new address, stored, without new tokens', async () => {
    const storage = memoryStorage();
    const moved = { ...user, email: 'new@example.test', verified: true };
    const fetchImpl = stub({
      '/auth/signin': { status: 200, body: { data: { user, accessToken: token, refreshToken: 'r1' } } },
      '/auth/email/confirm': { status: 200, body: { data: { user: moved } } },
    });
    const client = createClient('http://api.test', 'anon', { storage, storageKey: 'k', fetch: fetchImpl });
    const before = await client.auth.signIn({ email: user.email, password: 'a long password' });
    const events: string[] = [];
    client.auth.onChange((event) => events.push(event));
    await expect(client.auth.confirmEmailChange({ token: 't' })).resolves.toEqual(moved);
    const after = await client.auth.getSession();
    expect(after).toEqual({ ...before, user: { ...user, email: 'new@example.test' } });
    expect(JSON.parse((await storage.getItem('k')) ?? '{}')).toMatchObject({ user: { email: 'new@example.test' }, refreshToken: 'r1' });
    expect(events).toEqual(['refreshed']);
    expect(fetchImpl.paths).toEqual(['/auth/signin', '/auth/email/confirm']);
    client.close();
  });
});
