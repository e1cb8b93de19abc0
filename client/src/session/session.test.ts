import { describe, expect, it } from 'vitest';
import { fakeJwt } from '../../test/support/fakeServer.js';
import { parseSession, sameSession, serializeSession, sessionFromAuthResult, sessionFromRefresh } from './session.js';

const user = { id: 'u1', email: 'a@x.test', role: 'member' as const };

describe('sessions', () => {
  it('round-trips through storage', () => {
    const session = sessionFromAuthResult({ user, accessToken: fakeJwt({ iat: 1, exp: 3601 }), refreshToken: 'r' }, 5_000);
    expect(session.expiresAt).toBe(5_000 + 3600 * 1000);
    expect(parseSession(serializeSession(session))).toEqual(session);
  });

  it('keeps a token without exp, to be refreshed when the server says it expired', () => {
    const session = sessionFromAuthResult({ user, accessToken: 'opaque', refreshToken: 'r' });
    expect(session.expiresAt).toBe(Number.POSITIVE_INFINITY);
    expect(parseSession(serializeSession(session))?.expiresAt).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads what another tab or an older version stored: expiresAt missing is taken from the token', () => {
    const stored = JSON.stringify({ user, accessToken: fakeJwt({ exp: 42 }), refreshToken: 'r' });
    expect(parseSession(stored)?.expiresAt).toBe(42_000);
  });

  it('treats unreadable stored values as no session', () => {
    for (const raw of [null, undefined, '', 'not json', '42', 'null', '{}', JSON.stringify({ accessToken: 'a', refreshToken: 'r' })]) {
      expect(parseSession(raw)).toBeNull();
    }
    expect(parseSession(JSON.stringify({ user: { ...user, role: 'admin' }, accessToken: 'a', refreshToken: 'r' }))).toBeNull();
  });

  it('takes the role of the refreshed access token and keeps the user', () => {
    const before = sessionFromAuthResult({ user, accessToken: fakeJwt({ exp: 1 }), refreshToken: 'r1' });
    const after = sessionFromRefresh(before, { accessToken: fakeJwt({ role: 'owner', iat: 0, exp: 3600 }), refreshToken: 'r2' });
    expect(after.user).toEqual({ ...user, role: 'owner' });
    expect(after.refreshToken).toBe('r2');
    expect(sameSession(before, after)).toBe(false);
    expect(sameSession(after, { ...after })).toBe(true);
    expect(sameSession(null, null)).toBe(true);
  });
});
