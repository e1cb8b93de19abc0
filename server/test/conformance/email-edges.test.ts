import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startHarness, uniqueEmail, type Account, type Harness } from '../harness.js';
import { emailSettings, fragmentOf } from '../email/support.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * The email routes' edges (issue 26), as edges.test.ts holds the rest: codes, tokens, PKCE verifiers and challenges,
 * locales, redirectTo, the proof's shapes, an invite's role, the outbox's status. Admitted codes and tokens are real
 * ones, read from the owner's outbox (no SMTP here: every mail is kept `unsent` with its link and code).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let h: Harness;
let owner: Account;
let member: Account;
let document: Json;
let schemas: DocumentSchemas;

const APP = 'http://app.example.test';
const BAD_CODES = ['', '12345', '1234567', '12345a', '\u0661\u0662\u0663\u0664\u0665\u0666', '123456\n', ' 123456', '12 456'];

beforeAll(async () => {
  h = await startHarness({ email: emailSettings({ auth: { emailSignIn: true } }) });
  owner = await signUp(h);
  member = await signUp(h);
  document = (await h.request().get('/openapi.json').set(owner.auth)).body as Json;
  schemas = new DocumentSchemas(document);
}, 60_000);
afterAll(async () => h?.close());

const holds = <T>(edge: Case<T>): Promise<void> => holdsIn(schemas, edge);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => h.request().post(path).set(headers).send(body as object);
const bodyOf = (path: string, method = 'post'): Json => document.paths[path][method].requestBody.content['application/json'].schema;
const component = (name: string): Json => document.components.schemas[name];

/** The latest unsent mail of a kind to an address, as the owner's outbox shows it. */
async function mailTo(kind: string, to: string): Promise<{ token: string; code: string }> {
  const response = await h.request().get('/admin/outbox?status=unsent&limit=100').set(owner.auth);
  expect(response.status).toBe(200);
  const answer = schemas.at(['paths', '/admin/outbox', 'get', 'responses', '200', 'content', 'application/json', 'schema']);
  expect(answer(response.body), schemas.errors(answer)).toBe(true);
  const mail = (response.body.data as Json[]).find((candidate) => candidate.kind === kind && candidate.to === to);
  expect(mail, `no ${kind} mail to ${to}`).toBeDefined();
  return { token: fragmentOf(mail!.link as string).get('token')!, code: mail!.code as string };
}

describe('the email routes\' edges: what the document admits the service takes, what it refuses the service refuses', () => {
  it('locale: a BCP 47 tag of at most 35 characters', async () => {
    const tag35 = 'abcdefgh-abcdefgh-abcdefgh-abcdefgh';
    await holds({
      schema: () => schemas.of(component('Credentials').properties.locale),
      send: (locale: string) => post('/auth/signup', { email: uniqueEmail('locale'), password: 'long enough', locale }),
      named: 'locale',
      refused: ['', 'en_US', 'toolongtag', 'en-', '-en', 'en--US', '\u00e9', 'en-abcdefghi', `${tag35}-a`, 'en\u0000'],
      admitted: ['en', 'pt-BR', 'zh-Hant-TW', 'EN-gb', tag35],
    });
    expect(bodyOf('/auth/otp').properties.locale).toEqual(component('SendMail').properties.locale);
  });

  it('redirectTo: a URL of at most 2048 characters (which auth.redirectUrls must also allow)', async () => {
    const prefix = `${APP}/`;
    await holds({
      schema: () => schemas.of(component('SendMail').properties.redirectTo),
      send: (redirectTo: string) => post('/auth/recover', { email: uniqueEmail('redirect'), redirectTo }),
      named: 'redirectTo',
      refused: ['', `${prefix}${'x'.repeat(2049 - prefix.length)}`, `${prefix}a\u0000`, 'app.example.test/after', '/after'],
      admitted: [`${prefix}${'x'.repeat(2048 - prefix.length)}`, 'myapp://done', `${APP}/after?next=1`],
    });
  });

  it('codeChallenge and codeVerifier: 43 to 128 unreserved characters; the link hands a code that the verifier trades', async () => {
    const unreserved = 'Az09-._~';
    await holds({
      schema: () => schemas.of(bodyOf('/auth/otp').properties.codeChallenge),
      send: (codeChallenge: string) => post('/auth/otp', { email: uniqueEmail('otp'), redirectTo: `${APP}/cb`, codeChallenge }),
      named: 'codeChallenge',
      refused: ['', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}=`, `${'a'.repeat(42)}\u00e9`],
      admitted: ['a'.repeat(43), unreserved.repeat(16)],
    });

    const verifier = randomBytes(48).toString('base64url');
    const address = uniqueEmail('pkce');
    expect((await post('/auth/otp', { email: address, redirectTo: `${APP}/cb`, codeChallenge: createHash('sha256').update(verifier).digest('base64url') })).status).toBe(200);
    const handed = await post('/auth/otp/code', { token: (await mailTo('otp', address)).token });
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    const code = new URL(handed.body.data.redirectTo as string).searchParams.get('code')!;
    let signedIn: Json = {};
    await holds({
      schema: () => schemas.of(bodyOf('/auth/oauth/exchange').properties.codeVerifier),
      send: async (codeVerifier: string) => {
        const response = await post('/auth/oauth/exchange', { code, codeVerifier });
        if (response.status === 200) signedIn = response.body.data as Json;
        return response;
      },
      named: 'codeVerifier',
      refused: [verifier.slice(0, 42), `${verifier}${'x'.repeat(65)}`, `${verifier.slice(0, 63)}+`],
      admitted: [verifier],
    });

    // The account that link made has no password: it deletes itself with the code of a fresh sign-in mail.
    expect((await post('/auth/otp', { email: address })).status).toBe(200);
    const fresh = await mailTo('otp', address);
    await holds({
      schema: () => schemas.of(bodyOf('/auth/me', 'delete').oneOf[1].properties.code),
      send: (value: string) => h.request().delete('/auth/me').set({ authorization: `Bearer ${signedIn.accessToken as string}` }).send({ code: value }),
      named: 'code',
      refused: BAD_CODES,
      admitted: [fresh.code],
    });
  });

  it('a mail\'s code: 6 ASCII digits; its token: 1 to 256 characters without NUL', async () => {
    await holds({
      schema: () => schemas.of(component('EmailProof').oneOf[1].properties.code),
      send: (code: string) => post('/auth/verify', { email: member.email, code }),
      named: 'code',
      refused: BAD_CODES,
      admitted: [(await mailTo('verify', member.email)).code],
    });
    await holds({
      schema: () => schemas.of(component('EmailProof').oneOf[0].properties.token),
      send: (token: string) => post('/auth/verify', { token }),
      named: 'token',
      refused: ['', 'x'.repeat(257), 'a\u0000b'],
      admitted: [(await mailTo('verify', owner.email)).token],
    });
  });

  it('a proof is { token } or { email, code }, nothing else', async () => {
    const proof = () => schemas.of({ $ref: '#/components/schemas/EmailProof' });
    const send = (body: Json) => post('/auth/email/confirm', body);
    const email = 'a@x.test';
    await holds({ schema: proof, send, named: 'token', refused: [{}, { email }, { token: 't', email }, { token: 't', email, code: '123456' }], admitted: [] });
    await holds({ schema: proof, send, named: 'email', refused: [{ code: '123456' }, { token: 't', code: '123456' }], admitted: [] });
    await holds({ schema: proof, send, named: 'newEmail', refused: [{ token: 't', newEmail: email }], admitted: [] });
  });

  it('invites: no role (invitees are members)', async () => {
    await holds({
      schema: () => schemas.of(bodyOf('/admin/users/invite')),
      send: (body: Json) => post('/admin/users/invite', body, owner.auth),
      named: 'role',
      refused: [{ email: uniqueEmail('invite'), role: 'member' }, { email: uniqueEmail('invite'), role: 'owner' }],
      admitted: [{ email: uniqueEmail('invite') }, { email: uniqueEmail('invite'), locale: 'pt-BR', redirectTo: `${APP}/welcome` }],
    });
  });

  it('the outbox\'s status, limit and offset', async () => {
    const parameter = (name: string) => () => schemas.of((document.paths['/admin/outbox'].get.parameters as Json[]).find((entry) => entry.name === name)!.schema);
    const list = (name: string) => (value: string) => h.request().get('/admin/outbox').query({ [name]: value }).set(owner.auth);
    await holds({ schema: parameter('status'), send: list('status'), named: 'status', refused: ['bogus', '', 'SENT', "sent' OR '1'='1"], admitted: ['queued', 'sent', 'failed', 'unsent'] });
    for (const name of ['limit', 'offset']) {
      await holds({ schema: parameter(name), send: list(name), named: name, refused: ['9007199254740992', '-1', '1.5', ''], admitted: ['9007199254740991', '0', '007'] });
    }
  });
});
