import { isApiError } from '@basalt/client';
import type { Profile } from '@basalt/contract';

export const ACCOUNT_EXISTS = 'An account with this address exists.';

/** How the users list marks an account's address: proven, invited (no password set yet), or not yet proven. */
export function verificationOf(user: Pick<Profile, 'verified' | 'hasPassword'>): 'verified' | 'invited' | 'unverified' {
  if (user.verified) return 'verified';
  return user.hasPassword ? 'unverified' : 'invited';
}

/** Whether the owner can send an account's mail again: the invite, or the verification mail, until the address is proven. */
export function canResend(user: Pick<Profile, 'role' | 'verified'>): boolean {
  return user.role !== 'owner' && !user.verified;
}

/** An invite refused because the address already has an account (409 on `users.email`). */
export function isAccountTaken(error: unknown): boolean {
  return isApiError(error) && error.code === 'CONFLICT';
}
