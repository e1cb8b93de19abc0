import express from 'express';
import fc from 'fast-check';
import supertest from 'supertest';
import { REDIRECT_MAX_LENGTH } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../http/handler.js';
import { jsonObjectBody } from '../http/body.js';
import { providerRoutes } from '../auth/providers/routes.js';
import type { ProvidersService } from '../auth/providers/service.js';
import { parseProviders } from '../auth/providers/settings.js';
import { ID_TOKEN_MAX_LENGTH, NONCE_MAX_LENGTH, PROVIDER_SCHEMAS, publicProviderPaths } from './providers.js';

/**
 * The identity providers' patterns (issue 27) held to the service's own routes, as mfaPatterns.test.ts holds the second
 * factor's: the routes run in process with a stand-in for the providers' service, so what they answer is the parsers'
 * word alone (302 or 200 taken, 400 naming the parameter or field refused). Exact for `codeChallenge`, a provider's
 * name, and for the lengths of `redirectTo`, `idToken` and `nonce` in text of the Basic Multilingual Plane; with
 * characters beyond it (two UTF-16 units each), what the patterns admit is within the service's lengths.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parts of the document

const modes = (pattern: string) => [new RegExp(pattern, 'u'), new RegExp(pattern)];
const textOf = (units: readonly string[], minLength: number, maxLength: number) =>
  fc.integer({ min: minLength, max: maxLength }).chain((length) => fc.array(fc.constantFrom(...units), { minLength: length, maxLength: length }).map((parts) => parts.join('')));
/** Text whose length in UTF-16 units the patterns count exactly (no character beyond the BMP). */
const inBmp = (value: string) => !/[\ud800-\udfff]/.test(value);
/** Characters of one UTF-16 unit each, none of them NUL: where the patterns' lengths are exact. */
const BMP = ['a', '.', '/', '\u00e9', '\u4e2d'];

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const APP = 'http://app.example.test/back';

const standIn = {
  registry: { get: () => ({}) },
  count: async () => undefined,
  identities: { assertUnlinked: async () => undefined },
  flow: { start: async () => 'https://provider.example.test/authorize?state=s' },
  native: async () => ({ user: { id: 'u', email: 'a@x.test', role: 'member' }, accessToken: 'a', refreshToken: 'r' }),
} as unknown as ProvidersService;
const app = express();
app.use((req, _res, next) => {
  req.caller = { kind: 'user', id: 'u', role: 'member' } as typeof req.caller;
  next();
});
app.use(providerRoutes(standIn, jsonObjectBody(1_000_000), [], 1_000_000));
app.use(errorHandler(() => undefined));
const agent = supertest(app);

/** Whether the start route takes the query: a 302, or 400 naming `parameter` (anything else fails the test). */
async function startTakes(query: Record<string, string>, parameter: string): Promise<boolean> {
  const response = await agent.get(`/oauth/test?${new URLSearchParams(query)}`);
  if (response.status === 302) return true;
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.details, JSON.stringify(query)).toEqual({ parameter });
  return false;
}

/** Whether a JSON route takes the body: 200, or 400 naming `field`. */
async function takes(path: string, body: object, field: string): Promise<boolean> {
  const response = await agent.post(path).send(body);
  if (response.status === 200) return true;
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.details, JSON.stringify(body).slice(0, 200)).toEqual({ field });
  return false;
}

const startParameter = (name: string): string => ((publicProviderPaths()['/auth/oauth/{provider}']!.get!.parameters as Json[]).find((entry) => entry.name === name)!.schema as Json).pattern as string;
const property = (schema: string, name: string): string => (PROVIDER_SCHEMAS[schema] as Json).properties[name].pattern as string;

describe('identity provider texts', () => {
  it('codeChallenge: 43 to 128 unreserved characters, exactly, at the start and at a link', async () => {
    expect(property('ProviderStart', 'codeChallenge')).toBe(startParameter('codeChallenge'));
    const patterns = modes(startParameter('codeChallenge'));
    await fc.assert(
      fc.asyncProperty(textOf(['a', 'Z', '0', '-', '.', '_', '~', '+', '/', '=', ' ', '\u00e9', '\u0000'], 38, 134), async (codeChallenge) => {
        const taken = await startTakes({ redirectTo: APP, codeChallenge }, 'codeChallenge');
        expect(await takes('/identities/test', { redirectTo: APP, codeChallenge }, 'codeChallenge'), JSON.stringify(codeChallenge)).toBe(taken);
        for (const regex of patterns) expect(regex.test(codeChallenge), JSON.stringify(codeChallenge)).toBe(taken);
      }),
      { numRuns: 400 },
    );
  });

  it(`redirectTo: 1 to ${REDIRECT_MAX_LENGTH} UTF-16 units (whether allowed is the configuration's)`, async () => {
    expect(property('ProviderStart', 'redirectTo')).toBe(startParameter('redirectTo'));
    const patterns = modes(startParameter('redirectTo'));
    const units = ['a', '/', '\u00e9', '\ud83d\ude00', '\u0000'];
    const near = (length: number) => fc.oneof(textOf(BMP, length - 4, length + 4), textOf(units, length - 4, length + 4));
    await fc.assert(
      fc.asyncProperty(fc.oneof(near(REDIRECT_MAX_LENGTH), near(REDIRECT_MAX_LENGTH / 2), textOf(units, 0, 4)), async (redirectTo) => {
        const atStart = await startTakes({ redirectTo, codeChallenge: CHALLENGE }, 'redirectTo');
        const atLink = await takes('/identities/test', { redirectTo, codeChallenge: CHALLENGE }, 'redirectTo');
        for (const regex of patterns) {
          const admitted = regex.test(redirectTo);
          if (admitted) expect(atStart && atLink, `${redirectTo.length} units`).toBe(true);
          // The body refuses NUL as the pattern does; the query takes it, so there the pattern admits a part.
          if (inBmp(redirectTo)) expect(admitted, `${redirectTo.length} units`).toBe(atLink);
          if (inBmp(redirectTo) && !redirectTo.includes('\u0000')) expect(admitted, `${redirectTo.length} units`).toBe(atStart);
        }
      }),
      { numRuns: 300 },
    );
  });

  for (const [field, max, other] of [['idToken', ID_TOKEN_MAX_LENGTH, { nonce: 'n' }], ['nonce', NONCE_MAX_LENGTH, { idToken: 't' }]] as const) {
    it(`${field}: 1 to ${max} UTF-16 units without NUL`, async () => {
      const patterns = modes(property('ProviderIdToken', field));
      const units = ['a', '.', '\u00e9', '\ud83d\ude00', '\u0000'];
      const near = (length: number) => fc.oneof(textOf(BMP, length - 4, length + 4), textOf(units, length - 4, length + 4));
      await fc.assert(
        fc.asyncProperty(fc.oneof(near(max), near(max / 2), textOf(units, 0, 4)), async (value) => {
          const taken = await takes('/oauth/test/token', { ...other, [field]: value }, field);
          for (const regex of patterns) {
            if (regex.test(value)) expect(taken, `${value.length} units`).toBe(true);
            if (inBmp(value)) expect(regex.test(value), `${value.length} units`).toBe(taken);
          }
        }),
        { numRuns: 200 },
      );
    });
  }

  it('a provider\'s name: as auth.providers takes it, exactly', () => {
    const patterns = modes(((publicProviderPaths()['/auth/oauth/{provider}']!.get!.parameters as Json[])[0]!.schema as Json).pattern as string);
    fc.assert(
      fc.property(fc.oneof(textOf(['a', 'z', 'G', '0', '9', '_', '-', '.', ' ', '\u00e9'], 0, 34), fc.tuple(fc.constantFrom('a', 'q', '0', '_'), textOf(['a', 'z', '0', '9', '_', '-', 'Z'], 0, 33)).map(([first, rest]) => first + rest)), (name) => {
        let taken = true;
        try {
          parseProviders({ [name]: { issuer: 'https://id.example.test', clientId: 'c' } }, {}, 'config.json');
        } catch {
          taken = false;
        }
        for (const regex of patterns) expect(regex.test(name), JSON.stringify(name)).toBe(taken);
      }),
      { numRuns: 2000 },
    );
  });
});
