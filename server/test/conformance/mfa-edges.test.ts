import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * The second factor's edges (issue 27), as email-edges.test.ts holds the email routes: the app's code, a recovery
 * code, the sign-in's mfaToken and the challenge's shapes. Admitted codes and tokens are real: the TOTP codes are
 * computed from the secret (the current step, then the next: each step is taken once per account), the recovery codes
 * and mfaTokens are the service's answers.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let h: Harness;
let owner: Account;
let document: Json;
let schemas: DocumentSchemas;

const PASSWORD = 'correct horse';
const BAD_CODES = ['', '12345', '1234567', '12345a', '\u0661\u0662\u0663\u0664\u0665\u0666', '123456\n', ' 123456', '12 456', '１２３４５６'];
const codeAt = (secret: string, offsetSeconds = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  document = (await h.request().get('/openapi.json').set(owner.auth)).body as Json;
  schemas = new DocumentSchemas(document);
}, 60_000);
afterAll(async () => h?.close());

const holds = <T>(edge: Case<T>): Promise<void> => holdsIn(schemas, edge);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body as object);
const challenge = () => document.components.schemas.MfaChallenge as Json;
const challengeOf = (index: number, name: string) => () => schemas.of(challenge().oneOf[index].properties[name]);
const answerOf = (path: string, status = 200) => schemas.at(['paths', path, 'post', 'responses', String(status), 'content', 'application/json', 'schema']);

/** An account with TOTP on: its secret (the current step already used), recovery codes and a way to a fresh step. */
async function enrolled() {
  const account = await signUp(h);
  const enrollment = await post('/auth/mfa/totp', {}, account.auth);
  const enrollmentAnswer = schemas.at(['paths', '/auth/mfa/totp', 'post', 'responses', '200', 'content', 'application/json', 'schema']);
  expect(enrollmentAnswer(enrollment.body), schemas.errors(enrollmentAnswer)).toBe(true);
  const secret = enrollment.body.data.secret as string;
  let recoveryCodes: string[] = [];
  await holds({
    schema: () => schemas.of(document.paths['/auth/mfa/totp/verify'].post.requestBody.content['application/json'].schema.properties.code),
    send: async (code: string) => {
      const response = await post('/auth/mfa/totp/verify', { code }, account.auth);
      if (response.status === 200) recoveryCodes = response.body.data.recoveryCodes as string[];
      return response;
    },
    named: 'code',
    refused: BAD_CODES,
    admitted: [codeAt(secret)],
  });
  const step = async () => {
    const response = await post('/auth/signin', { email: account.email, password: PASSWORD });
    const answer = answerOf('/auth/signin');
    expect(answer(response.body), schemas.errors(answer)).toBe(true);
    return response.body.data.mfaToken as string;
  };
  return { account, secret, recoveryCodes, step };
}

describe('the second factor\'s edges: what the document admits the service takes, what it refuses the service refuses', () => {
  it('the app\'s code: 6 ASCII digits, at enrolment and at the challenge', async () => {
    const { secret, recoveryCodes, step } = await enrolled();
    expect(recoveryCodes).toHaveLength(10);
    const mfaToken = await step();
    await holds({
      schema: challengeOf(0, 'code'),
      send: (code: string) => post('/auth/mfa/challenge', { mfaToken, code }),
      named: 'code',
      refused: BAD_CODES,
      // The next step: the current one was taken by the enrolment.
      admitted: [codeAt(secret, 30)],
    });
  });

  it('a recovery code: two groups of five letters and digits (no 0 or 1), a dash, a space or nothing between', async () => {
    const { recoveryCodes, step } = await enrolled();
    const [first, second, third, fourth] = recoveryCodes as [string, string, string, string];
    const mfaToken = await step();
    await holds({
      schema: challengeOf(1, 'recoveryCode'),
      send: async (recoveryCode: string) => post('/auth/mfa/challenge', { mfaToken: recoveryCodes.some((code) => code.replace('-', '') === recoveryCode.replace(/[- ]/, '').toUpperCase()) ? await step() : mfaToken, recoveryCode }),
      named: 'recoveryCode',
      refused: ['', 'ABCDE', 'ABCDEFGHJ', 'ABCDE-FGHJKM', 'ABCDE--FGHJK', 'ABCDE_FGHJK', 'ABCD0-FGHJK', 'ABCD1-FGHJK', ' ABCDE-FGHJK', 'ABCDE-FGHJK\n', 'ÄBCDE-FGHJK', 'ABCDE-FGHJ\u0000'],
      admitted: [first, second.toLowerCase(), third.replace('-', ' '), fourth.replace('-', '')],
    });
    // A well-formed code that is not one of the account's is refused by the service alone (no schema can know it).
    const wrong = await post('/auth/mfa/challenge', { mfaToken, recoveryCode: first });
    expect(errorOf(wrong).details).toEqual({ field: 'recoveryCode' });
  });

  it('the mfaToken: 1 to 256 characters (UTF-16 code units) without NUL; only a live one signs in', async () => {
    const { secret, step } = await enrolled();
    const live = await step();
    await holds({
      schema: challengeOf(0, 'mfaToken'),
      send: (mfaToken: string) => post('/auth/mfa/challenge', { mfaToken, code: mfaToken === live ? codeAt(secret, 30) : '123456' }),
      named: 'mfaToken',
      refused: ['', 'x'.repeat(257), 'a\u0000b', '😀'.repeat(129)],
      admitted: [live],
    });
    // At the limits the document admits, the service reads the token and finds none (not a refusal of its shape).
    const validate = challengeOf(0, 'mfaToken')();
    for (const mfaToken of ['x', 'x'.repeat(256), '😀'.repeat(128), 'é'.repeat(256)]) {
      expect(validate(mfaToken), mfaToken.slice(0, 20)).toBe(true);
      const response = await post('/auth/mfa/challenge', { mfaToken, code: '123456' });
      expect(errorOf(response).details, mfaToken.slice(0, 20)).toEqual({ field: 'mfaToken' });
      expect(errorOf(response).message, mfaToken.slice(0, 20)).toMatch(/unknown/);
    }
    expect(errorOf(await post('/auth/mfa/challenge', { mfaToken: live, code: '123456' })).details).toEqual({ field: 'mfaToken' });
  });

  it('a challenge is { mfaToken, code } or { mfaToken, recoveryCode }, nothing else', async () => {
    const shape = () => schemas.of({ $ref: '#/components/schemas/MfaChallenge' });
    const send = (body: Json) => post('/auth/mfa/challenge', body);
    await holds({ schema: shape, send, named: 'code', refused: [{}, { mfaToken: 'x' }, { mfaToken: 'x', code: '123456', recoveryCode: 'ABCDE-FGHJK' }, { mfaToken: 'x', code: 123456 }], admitted: [] });
    await holds({ schema: shape, send, named: 'mfaToken', refused: [{ code: '123456' }, { recoveryCode: 'ABCDE-FGHJK' }, { mfaToken: 7, code: '123456' }], admitted: [] });
    await holds({ schema: shape, send, named: 'extra', refused: [{ mfaToken: 'x', code: '123456', extra: 1 }], admitted: [] });
    await holds({ schema: () => schemas.of(document.paths['/auth/mfa/totp/verify'].post.requestBody.content['application/json'].schema), send: (body: Json) => post('/auth/mfa/totp/verify', body, owner.auth), named: 'code', refused: [{}, { code: 123456 }, { recoveryCode: 'ABCDE-FGHJK' }], admitted: [] });
  });

  it('answers: the step, the enrolment, new recovery codes and removal match their schemas', async () => {
    const { account, secret, step } = await enrolled();
    const mfaToken = await step();
    const signedIn = await post('/auth/mfa/challenge', { mfaToken, code: codeAt(secret, 30) });
    const answer = answerOf('/auth/mfa/challenge');
    expect(answer(signedIn.body), schemas.errors(answer)).toBe(true);
    const strong = { authorization: `Bearer ${signedIn.body.data.accessToken as string}` };
    const renewed = await post('/auth/mfa/recovery-codes', {}, strong);
    const renewedAnswer = answerOf('/auth/mfa/recovery-codes');
    expect(renewedAnswer(renewed.body), schemas.errors(renewedAnswer)).toBe(true);
    // MFA_REQUIRED is the one 403 of a signed-in account's own routes: the session that enrolled was not stepped up.
    const refused = await h.request().delete('/auth/mfa/totp').set(account.auth);
    expect(errorOf(refused).code).toBe('MFA_REQUIRED');
    const removed = await h.request().delete(`/admin/users/${account.id}/mfa`).set(owner.auth);
    expect(removed.body).toEqual({ data: { removed: true } });
    expect((await h.request().delete(`/admin/users/${account.id}/mfa`).set(owner.auth)).status).toBe(404);
  });
});
