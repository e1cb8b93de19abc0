import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, uniqueEmail } from '../harness.js';
import { startWithProvider, type ProviderSetup } from './support.js';

/**
 * `POST /auth/oauth/<name>/token`: a native app's id token, checked by Basalt against the provider's published keys
 * (API.md, Part 2 in detail). Each attack gets a 400 naming its field and makes no account.
 */
let setup: ProviderSetup;
beforeAll(async () => {
  setup = await startWithProvider();
});
afterAll(() => setup.close());

const now = () => Math.floor(Date.now() / 1000);
const native = (idToken: string, nonce: string, provider = 'test') => setup.h.request().post(`/auth/oauth/${provider}/token`).send({ idToken, nonce });
function claims(overrides: Record<string, unknown> = {}) {
  return { iss: setup.op.issuer, aud: setup.op.nativeClientId, sub: `native-${Math.random()}`, email: uniqueEmail('native'), email_verified: true, nonce: 'nonce-1', iat: now(), exp: now() + 600, ...overrides };
}
async function accountsWith(email: string): Promise<number> {
  const sql = await setup.h.sql();
  return (await sql.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email])).rows[0].n as number;
}

describe('native id tokens', () => {
  it('signs in with a token for the native app’s audience (or Basalt’s own client id), the nonce raw or as its SHA-256 hex', async () => {
    const first = claims({ nonce: 'raw-nonce' });
    const ok = await native(await setup.op.sign(first), 'raw-nonce');
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe(first.email);
    const hashed = claims({ aud: setup.op.clientId, nonce: createHash('sha256').update('hashed-nonce').digest('hex') });
    const second = await native(await setup.op.sign(hashed), 'hashed-nonce');
    expect(second.status).toBe(200);
  });

  it('refuses a nonce used before (a replayed token), a nonce that does not match, and a token without one', async () => {
    const token = claims({ nonce: 'once-only' });
    expect((await native(await setup.op.sign(token), 'once-only')).status).toBe(200);
    const replay = await native(await setup.op.sign(token), 'once-only');
    expect(replay.status).toBe(400);
    expect(errorOf(replay).details).toEqual({ field: 'nonce' });
    const mismatch = await native(await setup.op.sign(claims({ nonce: 'a' })), 'b');
    expect(errorOf(mismatch).details).toEqual({ field: 'nonce' });
    const { nonce: _dropped, ...without } = claims();
    expect(errorOf(await native(await setup.op.sign(without), 'x')).details).toEqual({ field: 'nonce' });
  });

  const attacks: Array<[string, () => Promise<string>]> = [
    ['the wrong issuer', () => setup.op.sign(claims({ iss: 'http://127.0.0.1:1' }))],
    ['the issuer spelled differently', () => setup.op.sign(claims({ iss: `${setup.op.issuer}/` }))],
    ['the wrong audience', () => setup.op.sign(claims({ aud: 'someone-else' }))],
    ['an expired token', () => setup.op.sign(claims({ iat: now() - 7200, exp: now() - 3600 }))],
    ['alg none', () => setup.op.sign(claims(), { key: 'none' })],
    ['a signature by another key under the provider’s key id', () => setup.op.sign(claims(), { key: 'other' })],
    ['a key id the provider does not publish', () => setup.op.sign(claims(), { key: 'other', kid: 'unknown' })],
    ['no subject', () => setup.op.sign(claims({ sub: undefined }))],
    ['not a JWT', async () => 'not.a.jwt'],
  ];
  for (const [name, make] of attacks) {
    it(`refuses ${name} (400 naming idToken) and makes no account`, async () => {
      const token = await make();
      const email = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}').email as string | undefined;
      const response = await native(token, 'nonce-1');
      expect(response.status).toBe(400);
      expect(errorOf(response).details).toEqual({ field: 'idToken' });
      expect(JSON.stringify(response.body)).not.toMatch(/stack|jose|ERR_/);
      if (email) expect(await accountsWith(email)).toBe(0);
    });
  }

  it('checks the body: unknown fields, missing or oversized values; an unknown provider is 404', async () => {
    expect(errorOf(await setup.h.request().post('/auth/oauth/test/token').send({ idToken: 'x' })).details).toEqual({ field: 'nonce' });
    expect(errorOf(await setup.h.request().post('/auth/oauth/test/token').send({ idToken: 'x', nonce: 'n', extra: 1 })).details).toEqual({ field: 'extra' });
    expect(errorOf(await setup.h.request().post('/auth/oauth/test/token').send({ idToken: 'x'.repeat(20_000), nonce: 'n' })).details).toEqual({ field: 'idToken' });
    expect(errorOf(await setup.h.request().post('/auth/oauth/test/token').send({ idToken: 'x', nonce: "n'; DROP TABLE users; --\u0000" })).details).toEqual({ field: 'nonce' });
    expect((await native(await setup.op.sign(claims()), 'nonce-1', 'nope')).status).toBe(404);
    expect((await native(await setup.op.sign(claims()), 'nonce-1', "te'st")).status).toBe(404);
  });

  it('ignores credential headers', async () => {
    const token = claims({ nonce: 'with-garbage-bearer' });
    const response = await setup.h.request().post('/auth/oauth/test/token').set({ Authorization: 'Bearer garbage' }).send({ idToken: await setup.op.sign(token), nonce: 'with-garbage-bearer' });
    expect(response.status).toBe(200);
  });
});

describe('a provider whose keys cannot be fetched', () => {
  it('answers 502 PROVIDER_ERROR, not a 400 blaming the app’s token', async () => {
    const token = await setup.op.sign(claims({ nonce: 'keys-down' }));
    const provider = setup.h.services.providers.registry.get('test');
    const saved = provider.metadata.jwks_uri;
    // Another provider object of the same config, its keys at an address where nothing listens.
    const broken = { ...provider, metadata: { ...provider.metadata, jwks_uri: 'http://127.0.0.1:1/jwks' } };
    const { verifyNativeIdToken } = await import('../../src/auth/providers/claims.js');
    await expect(verifyNativeIdToken(broken, token, 'keys-down')).rejects.toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(provider.metadata.jwks_uri).toBe(saved);
  });
});
