import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { appleSecret } from './registry.js';
import { parseProviders } from './settings.js';

describe('apple', () => {
  it('mints its client secret: ES256 by the team key, iss the team, sub the client id, aud Apple, minutes long', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const [apple] = parseProviders({ apple: { clientId: 'com.example.web', teamId: 'TEAM123456', keyId: 'KEY9876543', privateKeyEnv: 'APPLE_KEY' } }, { APPLE_KEY: await exportPKCS8(privateKey) }, 'config.json');
    const secret = await appleSecret(apple!, 'https://appleid.apple.com');
    expect(decodeProtectedHeader(secret)).toEqual({ alg: 'ES256', kid: 'KEY9876543' });
    const { payload } = await jwtVerify(secret, await importSPKI(await exportSPKI(publicKey), 'ES256'), { issuer: 'TEAM123456', audience: 'https://appleid.apple.com', subject: 'com.example.web' });
    expect(payload.exp! - payload.iat!).toBe(300);
  });
});
