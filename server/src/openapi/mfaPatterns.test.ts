import express from 'express';
import fc from 'fast-check';
import supertest from 'supertest';
import { TOTP_DIGITS } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../http/handler.js';
import { jsonObjectBody } from '../http/body.js';
import { mfaRoutes } from '../auth/mfa/routes.js';
import type { Mfa } from '../auth/mfa/service.js';
import { MFA_SCHEMAS } from './mfa.js';

/**
 * The second factor's patterns (issue 27) held to the service's own routes, as emailPatterns.test.ts holds the email
 * ones: the routes run in process with a stand-in for the factor's service, so what they answer is the parsers' word
 * alone (200 taken, 400 naming the field refused). Exact for the code and the recovery code; for the mfaToken, what
 * the pattern admits is within the service's length.
 */

const modes = (pattern: string) => [new RegExp(pattern, 'u'), new RegExp(pattern)];
const textOf = (units: readonly string[], minLength: number, maxLength: number) =>
  fc.integer({ min: minLength, max: maxLength }).chain((length) => fc.array(fc.constantFrom(...units), { minLength: length, maxLength: length }).map((parts) => parts.join('')));

const standIn = {
  signIn: { challenge: async () => ({ user: { id: 'u', email: 'a@x.test', role: 'member' }, accessToken: 'a', refreshToken: 'r' }) },
  turnOn: async () => ({ recoveryCodes: [], accessToken: 'a', refreshToken: 'r' }),
} as unknown as Mfa;
const app = express();
app.use((req, _res, next) => {
  req.caller = { kind: 'user', id: 'u', role: 'member' } as typeof req.caller;
  next();
});
app.use(mfaRoutes(standIn, jsonObjectBody(1_000_000), []));
app.use(errorHandler(() => undefined));
const agent = supertest(app);

/** Whether the route takes the body: 200, or 400 naming `field` (anything else fails the test). */
async function takes(path: string, body: object, field: string): Promise<boolean> {
  const response = await agent.post(path).send(body);
  if (response.status === 200) return true;
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.details, JSON.stringify(body)).toEqual({ field });
  return false;
}

const pattern = (schema: string, index: number, name: string) => (MFA_SCHEMAS[schema] as { oneOf: Array<{ properties: Record<string, { pattern: string }> }> }).oneOf[index]!.properties[name]!.pattern;

describe('second factor texts', () => {
  it(`the app's code: exactly ${TOTP_DIGITS} ASCII digits, at enrolment and at the challenge`, async () => {
    const patterns = modes(pattern('MfaChallenge', 0, 'code'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(textOf(['0', '9', '5'], 5, 7), textOf(['0', '9', '5', 'a', ' ', '\n', '\u0661', '\uff10'], 0, 8)), async (code) => {
        const atChallenge = await takes('/mfa/challenge', { mfaToken: 't', code }, 'code');
        expect(await takes('/mfa/totp/verify', { code }, 'code'), JSON.stringify(code)).toBe(atChallenge);
        for (const regex of patterns) expect(regex.test(code), JSON.stringify(code)).toBe(atChallenge);
      }),
      { numRuns: 500 },
    );
  });

  it('a recovery code: two groups of five letters and digits 2-9, a dash, a space or nothing between, exactly', async () => {
    const patterns = modes(pattern('MfaChallenge', 1, 'recoveryCode'));
    const group = fc.oneof(textOf(['A', 'z', 'K', 'O', '2', '9'], 5, 5), textOf(['A', 'z', 'K', 'O', '2', '9', '0', '1'], 4, 6));
    const near = fc.tuple(group, fc.constantFrom('', '-', ' ', '--', '_'), group).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.oneof(near, textOf(['A', 'z', 'K', '2', '9', '0', '1', '-', ' ', '_', '\u00c4', '\n'], 8, 13)), async (recoveryCode) => {
        const taken = await takes('/mfa/challenge', { mfaToken: 't', recoveryCode }, 'recoveryCode');
        for (const regex of patterns) expect(regex.test(recoveryCode), JSON.stringify(recoveryCode)).toBe(taken);
      }),
      { numRuns: 500 },
    );
  });

  it('the mfaToken: what the pattern admits is within the service\'s length', async () => {
    const patterns = modes(pattern('MfaChallenge', 0, 'mfaToken'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(textOf(['a', '\u00e9', '\ud83d\ude00'], 0, 300), textOf(['a', '\u00e9', '\ud83d\ude00', '\u0000'], 0, 10)), async (mfaToken) => {
        const taken = await takes('/mfa/challenge', { mfaToken, code: '123456' }, 'mfaToken');
        for (const regex of patterns) if (regex.test(mfaToken)) expect(taken, `${mfaToken.length} units`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
