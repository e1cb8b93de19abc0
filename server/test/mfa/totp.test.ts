import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@basalt/contract';
import { errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from '../harness.js';

/** TOTP as a second factor (API.md, "Sign in with identity providers, and a second factor"; Part 2 in detail). */

let h: Harness;
let owner: Account;
const PASSWORD = 'correct horse';

beforeAll(async () => {
  h = await startHarness({ limits: { ...DEFAULT_LIMITS, mfaFailuresPerAccount: { max: 8, windowSeconds: 900 } } });
  owner = await signUp(h, uniqueEmail('owner'));
});
afterAll(() => h.close());

const post = (path: string, body: object, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body);
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
/** The code of the step `offset` steps from now (the service takes one step either side, each once). */
const codeAt = (secret: string, offset = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

async function enrolled(): Promise<{ account: Account; secret: string; recoveryCodes: string[]; accessToken: string; refreshToken: string }> {
  const account = await signUp(h);
  const enrollment = await post('/auth/mfa/totp', {}, account.auth);
  expect(enrollment.status).toBe(200);
  const { secret, uri } = enrollment.body.data as { secret: string; uri: string };
  expect(uri).toMatch(/^otpauth:\/\/totp\//);
  expect(uri).toContain(`secret=${secret}`);
  const on = await post('/auth/mfa/totp/verify', { code: codeAt(secret) }, account.auth);
  expect(on.status).toBe(200);
  return { account, secret, ...(on.body.data as { recoveryCodes: string[]; accessToken: string; refreshToken: string }) };
}

describe('enrolment', () => {
  it('turns TOTP on with a right code only: 10 recovery codes once, tokens at aal 2, every other session ended', async () => {
    const account = await signUp(h);
    const other = await post('/auth/signin', { email: account.email, password: PASSWORD });
    const { secret } = (await post('/auth/mfa/totp', {}, account.auth)).body.data;
    const wrong = await post('/auth/mfa/totp/verify', { code: codeAt(secret, 10) }, account.auth);
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong).details).toEqual({ field: 'code' });
    const on = await post('/auth/mfa/totp/verify', { code: codeAt(secret) }, account.auth);
    expect(on.status).toBe(200);
    expect(on.body.data.recoveryCodes).toHaveLength(10);
    expect(new Set(on.body.data.recoveryCodes).size).toBe(10);
    expect(claimsOf(on.body.data.accessToken)).toMatchObject({ aal: 2 });
    expect((await post('/auth/refresh', { refreshToken: other.body.data.refreshToken })).status).toBe(401);
    const refreshed = await post('/auth/refresh', { refreshToken: on.body.data.refreshToken });
    expect(claimsOf(refreshed.body.data.accessToken)).toMatchObject({ aal: 2 });
    expect((await h.request().get('/auth/me').set(bearer(on.body.data.accessToken))).body.data.mfa).toBe(true);
    const again = await post('/auth/mfa/totp', {}, bearer(on.body.data.accessToken));
    expect(again.status).toBe(409);
  });
});

describe('the sign-in step', () => {
  it('answers mfaRequired without tokens, then the challenge gives tokens at aal 2; a code works once in its window', async () => {
    const { account, secret } = await enrolled();
    const first = await post('/auth/signin', { email: account.email, password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    const code = codeAt(secret, 1);
    const done = await post('/auth/mfa/challenge', { mfaToken: first.body.data.mfaToken, code });
    expect(done.status).toBe(200);
    expect(done.body.data.user.email).toBe(account.email);
    expect(claimsOf(done.body.data.accessToken)).toMatchObject({ aal: 2, sub: account.id });
    expect(errorOf(await post('/auth/mfa/challenge', { mfaToken: first.body.data.mfaToken, code })).details).toEqual({ field: 'mfaToken' });
    const second = await post('/auth/signin', { email: account.email, password: PASSWORD });
    const replay = await post('/auth/mfa/challenge', { mfaToken: second.body.data.mfaToken, code });
    expect(errorOf(replay).details).toEqual({ field: 'code' });
  });

  it('takes each recovery code once', async () => {
    const { account, recoveryCodes } = await enrolled();
    const step = async () => (await post('/auth/signin', { email: account.email, password: PASSWORD })).body.data.mfaToken as string;
    expect((await post('/auth/mfa/challenge', { mfaToken: await step(), recoveryCode: recoveryCodes[0]!.toLowerCase() })).status).toBe(200);
    const reused = await post('/auth/mfa/challenge', { mfaToken: await step(), recoveryCode: recoveryCodes[0] });
    expect(errorOf(reused).details).toEqual({ field: 'recoveryCode' });
    expect((await post('/auth/mfa/challenge', { mfaToken: await step(), recoveryCode: recoveryCodes[1] })).status).toBe(200);
  });

  it('voids a step at its 5th wrong code and refuses guessing past the limit', async () => {
    const { account, secret } = await enrolled();
    const wrongCode = (offset: number) => String((Number(codeAt(secret)) + 1 + offset) % 1_000_000).padStart(6, '0');
    const mfaToken = (await post('/auth/signin', { email: account.email, password: PASSWORD })).body.data.mfaToken as string;
    for (let i = 0; i < 5; i++) expect(errorOf(await post('/auth/mfa/challenge', { mfaToken, code: wrongCode(i * 7) })).details).toEqual({ field: 'code' });
    expect(errorOf(await post('/auth/mfa/challenge', { mfaToken, code: codeAt(secret) })).details).toEqual({ field: 'mfaToken' });
    const next = (await post('/auth/signin', { email: account.email, password: PASSWORD })).body.data.mfaToken as string;
    for (let i = 0; i < 3; i++) await post('/auth/mfa/challenge', { mfaToken: next, code: wrongCode(100 + i) });
    const limited = await post('/auth/mfa/challenge', { mfaToken: next, code: codeAt(secret) });
    expect(limited.status).toBe(429);
    expect(errorOf(limited).details).toMatchObject({ limit: 'mfaFailuresPerAccount' });
  });

  it('refuses malformed challenges naming the field', async () => {
    const cases: Array<[object, string]> = [
      [{ mfaToken: 'x' }, 'code'],
      [{ mfaToken: 'x', code: '123456', recoveryCode: 'ABCDE-FGHJK' }, 'code'],
      [{ mfaToken: 'x', code: "1' OR '1" }, 'code'],
      [{ mfaToken: 'x', recoveryCode: 'nope' }, 'recoveryCode'],
      [{ code: '123456' }, 'mfaToken'],
      [{ mfaToken: 'unknown', code: '123456' }, 'mfaToken'],
    ];
    for (const [body, field] of cases) expect(errorOf(await post('/auth/mfa/challenge', body)).details, JSON.stringify(body)).toEqual({ field });
  });
});

describe('step-up and removal', () => {
  it('asks an aal 1 session for the factor (MFA_REQUIRED) before keys, password, email and removal', async () => {
    const account = await signUp(h);
    const oldToken = account.accessToken;
    const { secret } = (await post('/auth/mfa/totp', {}, account.auth)).body.data;
    const on = await post('/auth/mfa/totp/verify', { code: codeAt(secret) }, account.auth);
    for (const [method, path, body] of [
      ['post', '/auth/keys', { name: 'k', access: 'read' }],
      ['post', '/auth/password', { currentPassword: PASSWORD, newPassword: 'another one' }],
      ['post', '/auth/email', { newEmail: uniqueEmail('n'), password: PASSWORD }],
      ['delete', '/auth/mfa/totp', undefined],
      ['post', '/auth/mfa/recovery-codes', undefined],
      // A new way in (a provider identity) and removing one: the provider need not exist, the step-up comes first.
      ['post', '/auth/identities/test', { redirectTo: 'http://app.example.test/', codeChallenge: 'x'.repeat(43) }],
      ['delete', '/auth/identities/test', undefined],
    ] as const) {
      const response = await h.request()[method](path).set(bearer(oldToken)).send(body);
      expect(response.status, path).toBe(403);
      expect(errorOf(response).code, path).toBe('MFA_REQUIRED');
    }
    const strong = bearer(on.body.data.accessToken);
    expect((await post('/auth/keys', { name: 'k', access: 'read' }, strong)).status).toBe(201);
    expect((await post('/auth/mfa/recovery-codes', {}, strong)).body.data.recoveryCodes).toHaveLength(10);
    expect((await h.request().delete('/auth/mfa/totp').set(strong)).body).toEqual({ data: { removed: true } });
    expect((await post('/auth/signin', { email: account.email, password: PASSWORD })).body.data.accessToken).toEqual(expect.any(String));
  });

  it('lets the owner remove a member\'s factor', async () => {
    const { account } = await enrolled();
    const removed = await h.request().delete(`/admin/users/${account.id}/mfa`).set(owner.auth);
    expect(removed.body).toEqual({ data: { removed: true } });
    expect((await h.request().delete(`/admin/users/${account.id}/mfa`).set(owner.auth)).status).toBe(404);
    expect((await post('/auth/signin', { email: account.email, password: PASSWORD })).body.data.accessToken).toEqual(expect.any(String));
    const listed = await h.request().get('/admin/users?limit=1000').set(owner.auth);
    expect(listed.body.data.find((user: { id: string }) => user.id === account.id).mfa).toBe(false);
  });
});
