import { createHash, randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import { expect } from 'vitest';
import type { SmtpCatcher } from '../../../test-support/smtp.js';
import { uniqueEmail } from '../harness.js';
import type { Answer, Traffic } from './traffic.js';

/**
 * The second factor (issue 27) through the Prism proxy (prism.test.ts): every MFA route with a success and its
 * documented refusals, the sign-in step (`MfaStep`) answered by the password, the emailed code and the code exchange,
 * step-up (403 `MFA_REQUIRED`) on the routes that need it, the challenge's limit (429) and the owner's removal.
 * TOTP codes are computed as an authenticator app would: each 30 s step is accepted once per account and one step
 * either side, so an account uses the current step, then the next (+30 s), never one twice or out of order.
 */

type Headers = Record<string, string>;

export interface MfaRun {
  t: Traffic;
  smtp: SmtpCatcher;
  owner: Headers;
  member: Headers;
}

const APP = 'http://app.example.test';
const PASSWORD = 'correct horse';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const aalOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aal: number }).aal;
/** The code of the step `offsetSeconds` from now (+-30: the step before or after). */
const codeAt = (secret: string, offsetSeconds = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

/** A code that is none of the steps the service could take now (the `n`th such, so successive ones differ). */
function wrongCode(secret: string, n = 0): string {
  const near = new Set([-60, -30, 0, 30, 60].map((offset) => codeAt(secret, offset)));
  for (let i = n; ; i++) {
    const code = String((Number(codeAt(secret)) + 100_003 * (i + 1)) % 1_000_000).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

const isStep = (answer: Answer) => expect(answer.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });

/** A signed-in route refused for want of the factor in this session. */
async function needsFactor(t: Traffic, method: string, path: string, headers: Headers, body?: unknown): Promise<void> {
  const answer = await t.call(method, path, { headers, ...(body === undefined ? {} : { body }), status: 403 });
  expect(answer.body.error.code, `${method} ${path}`).toBe('MFA_REQUIRED');
}

/** Turns TOTP on for a new account: its signup token (aal 1), secret, recovery codes and the aal 2 token. */
async function enrolled(t: Traffic, email: string) {
  const signup = await t.call('POST', '/auth/signup', { body: { email, password: PASSWORD }, status: 201 });
  const weak = bearer(signup.body.data.accessToken);
  const { secret, uri } = (await t.call('POST', '/auth/mfa/totp', { headers: weak, status: 200 })).body.data as { secret: string; uri: string };
  expect(uri).toContain(`secret=${secret}`);
  const on = await t.call('POST', '/auth/mfa/totp/verify', { headers: weak, body: { code: codeAt(secret) }, status: 200 });
  expect(aalOf(on.body.data.accessToken)).toBe(2);
  return { id: signup.body.data.user.id as string, weak, secret, recoveryCodes: on.body.data.recoveryCodes as string[], strong: bearer(on.body.data.accessToken) };
}

export async function mfaTraffic(run: MfaRun): Promise<void> {
  const { t, smtp, owner } = run;

  // Enrolment: a pending secret (a second request replaces it), a wrong code, then the app's code turns it on.
  const email = uniqueEmail('mfa');
  const signup = await t.call('POST', '/auth/signup', { body: { email, password: PASSWORD }, status: 201 });
  const weak = bearer(signup.body.data.accessToken);
  await t.call('POST', '/auth/mfa/totp', { headers: bearer('not-a-token'), status: 401 });
  await t.call('POST', '/auth/mfa/totp', { headers: weak, status: 200 });
  const { secret } = (await t.call('POST', '/auth/mfa/totp', { headers: weak, status: 200 })).body.data as { secret: string };
  await t.call('POST', '/auth/mfa/totp/verify', { headers: weak, body: { code: wrongCode(secret) }, status: 400 });
  await t.call('POST', '/auth/mfa/totp/verify', { headers: bearer('not-a-token'), body: { code: '123456' }, status: 401 });
  await t.refusedByDocument('POST', '/auth/mfa/totp/verify', { headers: weak, body: { code: '12345' } });
  await t.refusedByDocument('POST', '/auth/mfa/totp/verify', { headers: weak, body: { code: '123456', extra: 1 } });
  const on = await t.call('POST', '/auth/mfa/totp/verify', { headers: weak, body: { code: codeAt(secret) }, status: 200 });
  const recoveryCodes = on.body.data.recoveryCodes as string[];
  const strong = bearer(on.body.data.accessToken);
  await t.call('POST', '/auth/mfa/totp/verify', { headers: strong, body: { code: wrongCode(secret, 1) }, status: 400 });
  await t.call('POST', '/auth/mfa/totp', { headers: strong, status: 409 });
  expect((await t.call('GET', '/auth/me', { headers: strong, status: 200 })).body.data.mfa).toBe(true);

  // Step-up: the session opened before the factor (aal 1) may not touch keys, password, email, account or factor.
  await needsFactor(t, 'POST', '/auth/keys', weak, { name: 'k', access: 'read' });
  await needsFactor(t, 'POST', '/auth/password', weak, { currentPassword: PASSWORD, newPassword: 'another long one' });
  await needsFactor(t, 'POST', '/auth/email', weak, { newEmail: uniqueEmail('mfa'), password: PASSWORD });
  await needsFactor(t, 'DELETE', '/auth/me', weak, { password: PASSWORD });
  await needsFactor(t, 'POST', '/auth/mfa/recovery-codes', weak);
  await needsFactor(t, 'DELETE', '/auth/mfa/totp', weak);
  await t.call('POST', '/auth/keys', { headers: strong, body: { name: 'k', access: 'read' }, status: 201 });

  // Sign-in answers the step; the challenge takes the app's next code, or a recovery code, once.
  const step = async () => {
    const answer = await t.call('POST', '/auth/signin', { body: { email, password: PASSWORD }, status: 200 });
    isStep(answer);
    return answer.body.data.mfaToken as string;
  };
  const mfaToken = await step();
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: 'unknown', code: '123456' }, status: 400 });
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken, code: wrongCode(secret, 2) }, status: 400 });
  await t.refusedByDocument('POST', '/auth/mfa/challenge', { body: { mfaToken, code: '123456', recoveryCode: recoveryCodes[0] } });
  await t.refusedByDocument('POST', '/auth/mfa/challenge', { body: { mfaToken } });
  await t.refusedByDocument('POST', '/auth/mfa/challenge', { body: { mfaToken, recoveryCode: 'nope' } });
  await t.refusedByDocument('POST', '/auth/mfa/challenge', { body: { code: '123456' } });
  await t.refusedByDocument('POST', '/auth/mfa/challenge', { body: { mfaToken: 'x'.repeat(257), code: '123456' } });
  const next = codeAt(secret, 30);
  const challenged = await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken, code: next }, status: 200 });
  expect(aalOf(challenged.body.data.accessToken)).toBe(2);
  expect(challenged.body.data.user.email).toBe(email);
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken, code: next }, status: 400 });
  const recovered = await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: await step(), recoveryCode: recoveryCodes[0]!.toLowerCase() }, status: 200 });
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: await step(), recoveryCode: recoveryCodes[0] }, status: 400 });

  // New recovery codes void the old ones; removal, then sign-in answers tokens again.
  const renewed = await t.call('POST', '/auth/mfa/recovery-codes', { headers: bearer(recovered.body.data.accessToken), status: 200 });
  expect(renewed.body.data.recoveryCodes).toHaveLength(recoveryCodes.length);
  await t.call('POST', '/auth/mfa/recovery-codes', { headers: bearer('not-a-token'), status: 401 });
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: await step(), recoveryCode: recoveryCodes[1] }, status: 400 });
  await t.call('DELETE', '/auth/mfa/totp', { headers: bearer('not-a-token'), status: 401 });
  await t.call('DELETE', '/auth/mfa/totp', { headers: strong, status: 200 });
  await t.call('DELETE', '/auth/mfa/totp', { headers: strong, status: 404 });
  await t.call('POST', '/auth/mfa/recovery-codes', { headers: strong, status: 404 });
  expect((await t.call('POST', '/auth/signin', { body: { email, password: PASSWORD }, status: 200 })).body.data.accessToken).toEqual(expect.any(String));

  // The other ways in answer the step too: an emailed code, and a link handed to the app (PKCE).
  const other = uniqueEmail('mfa');
  const second = await enrolled(t, other);
  await t.call('POST', '/auth/otp', { body: { email: other }, status: 200 });
  const byCode = await t.call('POST', '/auth/otp/verify', { body: { email: other, code: (await smtp.waitFor(other, 2)).code }, status: 200 });
  isStep(byCode);
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: byCode.body.data.mfaToken, recoveryCode: second.recoveryCodes[0] }, status: 200 });
  const verifier = randomBytes(48).toString('base64url');
  await t.call('POST', '/auth/otp', { body: { email: other, redirectTo: `${APP}/cb`, codeChallenge: createHash('sha256').update(verifier).digest('base64url') }, status: 200 });
  const link = new URL((await smtp.waitFor(other, 3)).link!).hash.slice(1);
  const handed = await t.call('POST', '/auth/otp/code', { body: { token: new URLSearchParams(link).get('token') }, status: 200 });
  const code = new URL(handed.body.data.redirectTo as string).searchParams.get('code')!;
  const exchanged = await t.call('POST', '/auth/oauth/exchange', { body: { code, codeVerifier: verifier }, status: 200 });
  isStep(exchanged);

  // Wrong codes: the 5th voids a step, and past mfaFailuresPerAccount (10) the challenge is 429 before any check.
  const steps = [exchanged.body.data.mfaToken as string];
  for (let i = 0; i < 2; i++) {
    const answer = await t.call('POST', '/auth/signin', { body: { email: other, password: PASSWORD }, status: 200 });
    steps.push(answer.body.data.mfaToken as string);
  }
  for (let i = 0; i < 10; i++) await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: steps[i < 5 ? 0 : 1], code: wrongCode(second.secret, i) }, status: 400 });
  await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: steps[0], code: codeAt(second.secret, 30) }, status: 400 });
  const limited = await t.call('POST', '/auth/mfa/challenge', { body: { mfaToken: steps[2], code: codeAt(second.secret, 30) }, status: 429 });
  expect(limited.headers.get('retry-after')).toMatch(/^[0-9]+$/);

  // The owner removes a member's factor (one who lost the app and the codes).
  await t.call('DELETE', `/admin/users/${second.id}/mfa`, { headers: run.member, status: 403 });
  await t.call('DELETE', `/admin/users/${second.id}/mfa`, { headers: bearer('not-a-token'), status: 401 });
  await t.call('DELETE', `/admin/users/${second.id}/mfa`, { headers: owner, status: 200 });
  await t.call('DELETE', `/admin/users/${second.id}/mfa`, { headers: owner, status: 404 });
  await t.call('DELETE', '/admin/users/nobody/mfa', { headers: owner, status: 404 });
  const users = (await t.call('GET', '/admin/users?limit=100', { headers: owner, status: 200 })).body.data as Array<{ id: string; mfa: boolean }>;
  expect(users.find((user) => user.id === second.id)?.mfa).toBe(false);
  expect((await t.call('GET', '/auth/me', { headers: second.strong, status: 200 })).body.data.mfa).toBe(false);
}
