import { describe, expect, it } from 'vitest';
import { ApiError } from '@basalt/client';
import { canResend, isAccountTaken, verificationOf } from './verification';

describe('an account’s address', () => {
  it('reads verified, invited (no password yet) or unverified', () => {
    expect(verificationOf({ verified: true, hasPassword: true })).toBe('verified');
    expect(verificationOf({ verified: true, hasPassword: false })).toBe('verified');
    expect(verificationOf({ verified: false, hasPassword: false })).toBe('invited');
    expect(verificationOf({ verified: false, hasPassword: true })).toBe('unverified');
  });

  it('can be mailed again until it is proven, never for the owner', () => {
    expect(canResend({ role: 'member', verified: false })).toBe(true);
    expect(canResend({ role: 'member', verified: true })).toBe(false);
    expect(canResend({ role: 'owner', verified: false })).toBe(false);
  });
});

describe('an invite’s refusal', () => {
  it('is "taken" for the 409 on users.email only', () => {
    expect(isAccountTaken(new ApiError(409, 'CONFLICT', 'duplicate key', { constraint: 'unique', column: 'users.email' }))).toBe(true);
    expect(isAccountTaken(new ApiError(400, 'VALIDATION_ERROR', '"email" must be a valid email', { field: 'email' }))).toBe(false);
    expect(isAccountTaken(new Error('offline'))).toBe(false);
  });
});
