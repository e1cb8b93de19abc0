import { describe, expect, it } from 'vitest';
import { ApiError } from '@basalt/client';
import { LINK_SPENT, isConfirmPage, linkRefusal, parseConfirmFragment, webAddress } from './confirmLink';

describe('a mail’s link', () => {
  it('opens the confirm page at /auth/confirm only', () => {
    expect(isConfirmPage('/auth/confirm')).toBe(true);
    expect(isConfirmPage('/auth/confirm/')).toBe(true);
    expect(isConfirmPage('/console/')).toBe(false);
    expect(isConfirmPage('/console/auth/confirm')).toBe(false);
  });

  it('carries its kind, token and destination in the fragment', () => {
    const redirect = encodeURIComponent('https://app.example/welcome?from=mail');
    expect(parseConfirmFragment(`#type=recover&token=a%2Bb%2Fc%3D&redirectTo=${redirect}`)).toEqual({
      kind: 'recover',
      token: 'a+b/c=',
      redirectTo: 'https://app.example/welcome?from=mail',
    });
    for (const kind of ['verify', 'otp', 'email-change', 'invite']) {
      expect(parseConfirmFragment(`#type=${kind}&token=t`)).toEqual({ kind, token: 't', redirectTo: null });
    }
  });

  it('is not one without a token or with a kind the page does not know', () => {
    expect(parseConfirmFragment('')).toBeNull();
    expect(parseConfirmFragment('#type=verify')).toBeNull();
    expect(parseConfirmFragment('#type=test&token=t')).toBeNull();
    expect(parseConfirmFragment('#token=t')).toBeNull();
  });

  it('never leads to anything but an http(s) address', () => {
    expect(parseConfirmFragment('#type=verify&token=t&redirectTo=javascript%3Aalert(1)')?.redirectTo).toBeNull();
    expect(webAddress('data:text/html,<script>alert(1)</script>')).toBeNull();
    expect(webAddress('/relative/path')).toBeNull();
    expect(webAddress('not a url')).toBeNull();
    expect(webAddress('http://localhost:3000/cb')).toBe('http://localhost:3000/cb');
    expect(webAddress(undefined)).toBeNull();
  });
});

describe('a refused link', () => {
  it('is told in words when the server names the token, and left to the usual words otherwise', () => {
    expect(linkRefusal(new ApiError(400, 'VALIDATION_ERROR', 'token is unknown', { field: 'token' }))).toBe(LINK_SPENT);
    expect(linkRefusal(new ApiError(400, 'VALIDATION_ERROR', 'too short', { field: 'newPassword' }))).toBeUndefined();
    expect(linkRefusal(new ApiError(429, 'RATE_LIMITED', 'slow down'))).toBeUndefined();
    expect(linkRefusal(new Error('offline'))).toBeUndefined();
  });
});
