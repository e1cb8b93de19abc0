import { describe, expect, it } from 'vitest';
import { fakeJwt } from '../../test/support/fakeServer.js';
import { accessTokenExpiresAt, decodeJwtPayload } from './accessToken.js';

describe('decodeJwtPayload', () => {
  it('reads the claims of a JWT, including non-ASCII text and base64url characters', () => {
    const token = fakeJwt({ sub: 'ünïcødé ✓', exp: 123, pad: '>>>???' });
    expect(decodeJwtPayload(token)).toMatchObject({ sub: 'ünïcødé ✓', exp: 123, pad: '>>>???' });
  });

  it('returns null for anything that is not a JWT with an object payload', () => {
    expect(decodeJwtPayload('')).toBeNull();
    expect(decodeJwtPayload('abc')).toBeNull();
    expect(decodeJwtPayload('a.%%%.c')).toBeNull();
    expect(decodeJwtPayload(`a.${Buffer.from('[1,2]').toString('base64url')}.c`)).toBeNull();
    expect(decodeJwtPayload(`a.${Buffer.from('not json').toString('base64url')}.c`)).toBeNull();
  });
});

describe('accessTokenExpiresAt', () => {
  it('counts the lifetime from receipt, so a skewed local clock neither expires tokens early nor late', () => {
    // The server's clock says iat = 1_000_000 s; ours is two hours ahead.
    const token = fakeJwt({ iat: 1_000_000, exp: 1_003_600 });
    const receivedAt = 1_000_000_000 + 2 * 3600 * 1000;
    expect(accessTokenExpiresAt(token, receivedAt)).toBe(receivedAt + 3600 * 1000);
  });

  it('uses exp as is when the receipt time is unknown, and undefined without exp', () => {
    expect(accessTokenExpiresAt(fakeJwt({ iat: 10, exp: 20 }))).toBe(20_000);
    expect(accessTokenExpiresAt(fakeJwt({ iat: 10 }))).toBeUndefined();
    expect(accessTokenExpiresAt('garbage')).toBeUndefined();
  });
});
