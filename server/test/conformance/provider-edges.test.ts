import { createHash, randomBytes } from 'node:crypto';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRedirects } from '../../../test-support/oidc.js';
import { errorOf, signUp, uniqueEmail, type Account } from '../harness.js';
import { APP, startWithProvider, type ProviderSetup } from '../providers/support.js';
import { checkAnswer, locate } from './answers.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * The identity providers' edges (issue 27), as mfa-edges.test.ts holds the second factor's: `codeChallenge`,
 * `redirectTo`, `idToken`, `nonce`, the callback's `state`, a provider's name and the bodies' shapes, in both
 * directions; and the answers the Prism run cannot give (its harness has sign-ups on and verification optional):
 * `SIGNUP_DISABLED` and `EMAIL_NOT_VERIFIED` as JSON and as `?error=`, `PROVIDER_ERROR` and `CONFLICT` at the
 * callback, each 302 and each error checked against the document. Admitted tokens are real: signed by the loopback
 * provider's key (test-support/oidc.ts), states made by the service.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let setup: ProviderSetup;
let owner: Account;
let document: Json;
let schemas: DocumentSchemas;

const CHALLENGE = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
const PREFIX = 'http://app.example.test/';

beforeAll(async () => {
  setup = await startWithProvider();
  owner = await signUp(setup.h);
  document = (await setup.h.request().get('/openapi.json').set(owner.auth)).body as Json;
  schemas = new DocumentSchemas(document);
}, 60_000);
afterAll(async () => setup?.close());

const holds = <T>(edge: Case<T>): Promise<void> => holdsIn(schemas, edge);
const parameter = (path: string, method: string, name: string) => () => schemas.of((document.paths[path][method].parameters as Json[]).find((entry) => entry.name === name)!.schema);
const property = (schema: string, name: string) => () => schemas.of(document.components.schemas[schema].properties[name]);
const shape = (schema: string) => () => schemas.of({ $ref: `#/components/schemas/${schema}` });
const nonce = () => randomBytes(18).toString('base64url');
const startPath = (query: Record<string, string>, provider = 'test') => `/auth/oauth/${provider}?${new URLSearchParams(query)}`;

/** The answer matches what the document says of its operation and status (a 302: its Location, and no JSON). */
function answers(on: ProviderSetup, method: string, path: string, response: supertest.Response): supertest.Response {
  const located = locate(document, method, new URL(path, on.h.url).pathname);
  expect(located, `${method} ${path}`).toBeDefined();
  checkAnswer(document, schemas, located!, { status: response.status, location: (response.headers.location as string | undefined) ?? null, contentType: (response.headers['content-type'] as string | undefined) ?? '', text: response.text }, `${method} ${path}`);
  return response;
}

const get = (path: string, on = setup) => on.h.request().get(path).then((response) => answers(on, 'GET', path, response));
const post = (path: string, body: unknown, headers: Record<string, string> = {}, on = setup) =>
  on.h.request().post(path).set(headers).send(body as object).then((response) => answers(on, 'POST', path, response));

/** An id token of the loopback provider for the native app. */
function idToken(on: ProviderSetup, claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return on.op.sign({ iss: on.op.issuer, aud: on.op.nativeClientId, sub: `edge-${nonce()}`, email: uniqueEmail('edge'), email_verified: true, iat: now, exp: now + 600, ...claims });
}

/** The browser's trip from a start (or a link's URL) through the provider as `login`, up to the callback's URL. */
async function toCallback(on: ProviderSetup, login: string, from: string): Promise<URL> {
  on.op.autoLogin = login;
  const { location } = await followRedirects(from, `${on.h.url}/auth/oauth/`);
  return new URL(location);
}

/** A sign-in by redirect as `login` up to the callback (the start's 302 checked): the callback's URL. */
async function started(on: ProviderSetup, login: string): Promise<URL> {
  const start = await get(startPath({ redirectTo: APP, codeChallenge: CHALLENGE }), on);
  expect(start.status, start.text).toBe(302);
  return toCallback(on, login, start.headers.location as string);
}

/** Where the callback sent the browser (its 302 checked). */
async function back(on: ProviderSetup, callback: URL): Promise<URLSearchParams> {
  const response = await get(`${callback.pathname}${callback.search}`, on);
  expect(response.status, response.text).toBe(302);
  return new URL(response.headers.location as string).searchParams;
}

describe('the identity providers\' edges: what the document admits the service takes, what it refuses the service refuses', () => {
  it('codeChallenge: 43 to 128 unreserved characters, at the start (a parameter) and at a link (a field)', async () => {
    const refused = ['', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}=`, `${'a'.repeat(42)}\u00e9`, `${'a'.repeat(42)}\u0000`];
    const admitted = ['a'.repeat(43), 'Az09-._~'.repeat(16)];
    await holds({ schema: parameter('/auth/oauth/{provider}', 'get', 'codeChallenge'), send: (codeChallenge: string) => get(startPath({ redirectTo: APP, codeChallenge })), named: 'codeChallenge', refused, admitted, alsoFine: [302] });
    await holds({ schema: property('ProviderStart', 'codeChallenge'), send: (codeChallenge: string) => post('/auth/identities/test', { redirectTo: APP, codeChallenge }, owner.auth), named: 'codeChallenge', refused, admitted });
  });

  it('redirectTo: a URL of at most 2048 characters (which auth.redirectUrls must also allow)', async () => {
    const refused = ['', `${PREFIX}${'x'.repeat(2049 - PREFIX.length)}`, 'app.example.test/after', '/after'];
    const admitted = [`${PREFIX}${'x'.repeat(2048 - PREFIX.length)}`, `${APP}?next=1`];
    await holds({ schema: parameter('/auth/oauth/{provider}', 'get', 'redirectTo'), send: (redirectTo: string) => get(startPath({ redirectTo, codeChallenge: CHALLENGE })), named: 'redirectTo', refused, admitted, alsoFine: [302] });
    await holds({ schema: property('ProviderStart', 'redirectTo'), send: (redirectTo: string) => post('/auth/identities/test', { redirectTo, codeChallenge: CHALLENGE }, owner.auth), named: 'redirectTo', refused: [...refused, `${APP}\u0000`], admitted });
    // A URL the document admits but the configuration does not allow: the service alone can refuse it.
    expect(errorOf(await get(startPath({ redirectTo: 'https://elsewhere.example/', codeChallenge: CHALLENGE }))).details).toEqual({ parameter: 'redirectTo' });
  });

  it('idToken: 1 to 16384 characters without NUL; only one the provider signed signs in', async () => {
    const live = nonce();
    const real = await idToken(setup, { nonce: live });
    await holds({
      schema: property('ProviderIdToken', 'idToken'),
      send: (value: string) => post('/auth/oauth/test/token', { idToken: value, nonce: value === real ? live : nonce() }),
      named: 'idToken',
      refused: ['', 'x'.repeat(16_385), 'a\u0000b', '\ud83d\ude00'.repeat(8193)],
      admitted: [real],
    });
    // At the limits the document admits, the service reads the token and refuses what it holds, not its shape.
    for (const value of ['x', 'x'.repeat(16_384), '\u00e9'.repeat(16_384), '\ud83d\ude00'.repeat(8192)]) {
      expect(property('ProviderIdToken', 'idToken')()(value)).toBe(true);
      const refused = errorOf(await post('/auth/oauth/test/token', { idToken: value, nonce: nonce() }));
      expect(refused.details, value.slice(0, 10)).toEqual({ field: 'idToken' });
      expect(refused.message, value.slice(0, 10)).toMatch(/^The id token was refused/);
    }
  });

  it('nonce: 1 to 512 characters without NUL, raw or as the SHA-256 hex the token holds', async () => {
    const long = `${nonce()}${'n'.repeat(512)}`.slice(0, 512);
    const hashed = nonce();
    const tokens = new Map([
      [long, await idToken(setup, { nonce: long })],
      [hashed, await idToken(setup, { nonce: createHash('sha256').update(hashed).digest('hex') })],
    ]);
    await holds({
      schema: property('ProviderIdToken', 'nonce'),
      send: (value: string) => post('/auth/oauth/test/token', { idToken: tokens.get(value) ?? 'not-a-jwt', nonce: value }),
      named: 'nonce',
      refused: ['', 'x'.repeat(513), 'a\u0000b'],
      admitted: [long, hashed],
    });
  });

  it('bodies: { idToken, nonce } and { redirectTo, codeChallenge }, nothing else', async () => {
    const send = (body: Json) => post('/auth/oauth/test/token', body);
    await holds({ schema: shape('ProviderIdToken'), send, named: 'idToken', refused: [{}, { nonce: 'n' }, { idToken: 5, nonce: 'n' }], admitted: [] });
    await holds({ schema: shape('ProviderIdToken'), send, named: 'nonce', refused: [{ idToken: 't' }, { idToken: 't', nonce: ['n'] }], admitted: [] });
    await holds({ schema: shape('ProviderIdToken'), send, named: 'extra', refused: [{ idToken: 't', nonce: 'n', extra: 1 }], admitted: [] });
    const link = (body: Json) => post('/auth/identities/test', body, owner.auth);
    await holds({ schema: shape('ProviderStart'), send: link, named: 'redirectTo', refused: [{}, { codeChallenge: CHALLENGE }], admitted: [] });
    await holds({ schema: shape('ProviderStart'), send: link, named: 'codeChallenge', refused: [{ redirectTo: APP }], admitted: [] });
    await holds({ schema: shape('ProviderStart'), send: link, named: 'extra', refused: [{ redirectTo: APP, codeChallenge: CHALLENGE, extra: 1 }], admitted: [] });
  });

  it('the callback\'s state: required, and only a live one goes on (by GET and by a form POST)', async () => {
    setup.op.accounts.set('edge-state', { sub: 'edge-state', email: uniqueEmail('state'), email_verified: true });
    const callback = await started(setup, 'edge-state');
    const withState = (state: string) => `${callback.pathname}?${new URLSearchParams({ ...Object.fromEntries(callback.searchParams), state })}`;
    await holds({ schema: parameter('/auth/oauth/{provider}/callback', 'get', 'state'), send: (state: string) => get(withState(state)), named: 'state', refused: [''], admitted: [callback.searchParams.get('state')!], alsoFine: [302] });
    const form = (body: Record<string, string>) => setup.h.request().post(callback.pathname).type('form').send(body).then((response) => answers(setup, 'POST', callback.pathname, response));
    await holds({ schema: shape('ProviderCallbackForm'), send: form, named: 'state', refused: [{}, { state: '' }, { code: 'x' }], admitted: [] });
    // An unknown, used or expired state is the service's alone to know.
    for (const state of ['unknown', callback.searchParams.get('state')!]) expect(errorOf(await get(withState(state))).details).toEqual({ parameter: 'state' });
    expect(errorOf(await form({ state: 'unknown' })).details).toEqual({ field: 'state' });
  });

  it('a provider\'s name: what the document refuses is no provider (404); an unknown one it admits is 404 too', async () => {
    const validate = parameter('/auth/oauth/{provider}', 'get', 'provider')();
    const token = { idToken: 't', nonce: 'n' };
    for (const name of ['Test', '9x', 'a'.repeat(33), 'a.b', 'nope']) {
      expect(validate(name), name).toBe(name === 'nope');
      const path = encodeURIComponent(name);
      expect((await setup.h.request().get(startPath({ redirectTo: APP, codeChallenge: CHALLENGE }, path))).status, name).toBe(404);
      expect((await setup.h.request().get(`/auth/oauth/${path}/callback?state=x`)).status, name).toBe(404);
      expect((await setup.h.request().post(`/auth/oauth/${path}/token`).send(token)).status, name).toBe(404);
      expect((await setup.h.request().post(`/auth/identities/${path}`).set(owner.auth).send({ redirectTo: APP, codeChallenge: CHALLENGE })).status, name).toBe(404);
      expect((await setup.h.request().delete(`/auth/identities/${path}`).set(owner.auth)).status, name).toBe(404);
    }
  });

  it('answers: the 302s, ?error=PROVIDER_ERROR and CONFLICT, EMAIL_REQUIRED and ACCOUNT_EXISTS match the document', async () => {
    // A sign-in, and the JSON an app without a browser sees of a 302 (no body at all).
    setup.op.accounts.set('edge-in', { sub: 'edge-in', email: uniqueEmail('in'), email_verified: true });
    expect((await back(setup, await started(setup, 'edge-in'))).get('code')).toEqual(expect.any(String));
    const quiet = await setup.h.request().get(startPath({ redirectTo: APP, codeChallenge: CHALLENGE })).set('accept', 'application/json');
    expect(answers(setup, 'GET', '/auth/oauth/test', quiet).text).toBe('');
    const html = await setup.h.request().get(startPath({ redirectTo: APP, codeChallenge: CHALLENGE })).set('accept', 'text/html');
    expect(answers(setup, 'GET', '/auth/oauth/test', html).headers['content-type']).toMatch(/^text\/html/);
    // A provider code that is not the provider's: PROVIDER_ERROR, back at the app.
    const forged = await started(setup, 'edge-in');
    forged.searchParams.set('code', 'forged');
    expect((await back(setup, forged)).get('error')).toBe('PROVIDER_ERROR');
    // Two links of one provider started together: the second to finish is a CONFLICT.
    const account = await signUp(setup.h);
    const links = await Promise.all([0, 1].map(() => post('/auth/identities/test', { redirectTo: APP, codeChallenge: CHALLENGE }, account.auth)));
    for (const login of ['edge-link-1', 'edge-link-2']) setup.op.accounts.set(login, { sub: login, email: uniqueEmail('link'), email_verified: true });
    expect((await back(setup, await toCallback(setup, 'edge-link-1', links[0]!.body.data.url as string))).get('linked')).toBe('test');
    expect((await back(setup, await toCallback(setup, 'edge-link-2', links[1]!.body.data.url as string))).get('error')).toBe('CONFLICT');
    // JSON refusals of the native endpoint.
    const blank = nonce();
    expect(errorOf(await post('/auth/oauth/test/token', { idToken: await idToken(setup, { email: undefined, nonce: blank }), nonce: blank })).code).toBe('EMAIL_REQUIRED');
    const taken = nonce();
    const exists = await post('/auth/oauth/test/token', { idToken: await idToken(setup, { email: owner.email, nonce: taken }), nonce: taken });
    expect(exists.body.error).toMatchObject({ code: 'ACCOUNT_EXISTS', details: { provider: 'test' } });
  });

  for (const [name, options, code] of [
    ['sign-ups disabled', { signupEnabled: false }, 'SIGNUP_DISABLED'],
    ['verification required', { email: { verification: 'required' as const } }, 'EMAIL_NOT_VERIFIED'],
  ] as const) {
    it(`${code} (${name}): 403 at the native endpoint, ?error=${code} by redirect`, async () => {
      const other = await startWithProvider(options);
      try {
        const fresh = nonce();
        const refused = await post('/auth/oauth/test/token', { idToken: await idToken(other, { email_verified: false, nonce: fresh }), nonce: fresh }, {}, other);
        expect(refused.status).toBe(403);
        expect(errorOf(refused).code).toBe(code);
        other.op.accounts.set('edge-new', { sub: 'edge-new', email: uniqueEmail('new'), email_verified: false });
        expect((await back(other, await started(other, 'edge-new'))).get('error')).toBe(code);
      } finally {
        await other.close();
      }
    }, 60_000);
  }
});
