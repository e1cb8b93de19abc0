import { describe, expect, it } from 'vitest';
import { ApiError } from '@basalt/client';
import { isSpentCode, providerErrorText, providerLanding, withoutProviderReturn } from './providerReturn';

const ACCOUNT = '/console/account';
const at = (pathAndQuery: string) => providerLanding(`https://api.example${pathAndQuery}`, ACCOUNT);

describe('a provider’s answer in the address', () => {
  it('is a sign-in’s one-time code wherever it lands, and a link’s provider', () => {
    expect(at('/console/?code=abc123')).toEqual({ purpose: 'sign-in', code: 'abc123' });
    expect(at('/console/account?code=x%2By')).toEqual({ purpose: 'sign-in', code: 'x+y' });
    expect(at('/console/account?linked=google')).toEqual({ purpose: 'link', linked: 'google' });
  });

  it('is a link’s error on the Account screen (with or without a trailing slash), a sign-in’s anywhere else', () => {
    expect(at('/console/account?error=ACCOUNT_EXISTS')).toEqual({ purpose: 'link', error: 'ACCOUNT_EXISTS' });
    expect(at('/console/account/?error=access_denied')).toEqual({ purpose: 'link', error: 'access_denied' });
    expect(at('/console/?error=ACCOUNT_EXISTS')).toEqual({ purpose: 'sign-in', error: 'ACCOUNT_EXISTS' });
    expect(at('/console/tables?error=PROVIDER_ERROR')).toEqual({ purpose: 'sign-in', error: 'PROVIDER_ERROR' });
  });

  it('is an error when the address carries one beside a code: that code is not spent', () => {
    expect(at('/console/?code=abc&error=access_denied&error_description=User+cancelled')).toEqual({ purpose: 'sign-in', error: 'access_denied' });
  });

  it('is nothing in an address without one, or with empty values', () => {
    expect(at('/console/')).toBeNull();
    expect(at('/console/tables/posts?id=42')).toBeNull();
    expect(at('/console/?code=&error=')).toBeNull();
  });

  it('is taken out of the address, which keeps its path, other parameters and fragment', () => {
    expect(withoutProviderReturn('https://api.example/console/?code=abc')).toBe('/console/');
    expect(withoutProviderReturn('https://api.example/console/account?linked=google#top')).toBe('/console/account#top');
    expect(withoutProviderReturn('https://api.example/console/?error=access_denied&error_description=no&state=s&keep=1')).toBe('/console/?keep=1');
    expect(withoutProviderReturn('https://api.example/console/tables/posts?id=7')).toBe('/console/tables/posts?id=7');
  });
});

describe('a provider’s error in words', () => {
  it('tells an existing account to sign in with its password and link from the account screen', () => {
    expect(providerErrorText('ACCOUNT_EXISTS', 'sign-in')).toBe(
      'An account with this email already exists: sign in with its password, then link the provider from your account screen.',
    );
    expect(providerErrorText('ACCOUNT_EXISTS', 'link')).toMatch(/another account/);
  });

  it('names each code the server sends, and the provider’s own cancellation', () => {
    expect(providerErrorText('SIGNUP_DISABLED', 'sign-in')).toMatch(/sign-up is disabled/);
    expect(providerErrorText('EMAIL_REQUIRED', 'sign-in')).toMatch(/did not share an email address/);
    expect(providerErrorText('PROVIDER_ERROR', 'link')).toMatch(/could not be used/);
    expect(providerErrorText('EMAIL_NOT_VERIFIED', 'sign-in')).toMatch(/requires a verified one/);
    expect(providerErrorText('CONFLICT', 'link')).toBe('Your account already has an identity of this provider: unlink it first.');
    expect(providerErrorText('access_denied', 'sign-in')).toBe('The sign-in was cancelled at the provider.');
    expect(providerErrorText('access_denied', 'link')).toBe('Linking was cancelled at the provider.');
  });

  it('quotes a code it does not know', () => {
    expect(providerErrorText('temporarily_unavailable', 'sign-in')).toBe('The provider sign-in failed (temporarily_unavailable). Try again.');
  });
});

describe('an exchange refused for its code', () => {
  it('is a 400 naming code or codeVerifier, nothing else', () => {
    expect(isSpentCode(new ApiError(400, 'VALIDATION_ERROR', 'code is unknown, used or expired', { field: 'code' }))).toBe(true);
    expect(isSpentCode(new ApiError(400, 'VALIDATION_ERROR', 'codeVerifier does not match', { field: 'codeVerifier' }))).toBe(true);
    expect(isSpentCode(new ApiError(429, 'RATE_LIMITED', 'slow down', { retryAfter: 3 }))).toBe(false);
    expect(isSpentCode(new ApiError(400, 'VALIDATION_ERROR', 'bad', { field: 'email' }))).toBe(false);
    expect(isSpentCode(new Error('offline'))).toBe(false);
  });
});
