import { AS_ANON } from '@basalt/contract';
import type { AccountService } from '../auth/accounts.js';
import { ApiError } from '../errors.js';
import { ANON, type Caller } from '../policies/caller.js';

/**
 * The caller the owner looks through (`?as=` on the records list, `as` of `rules/check`): `anon`, or an account by
 * id, as it would call `/api` with an access token. Anything else is 400 naming `as` (`parameter` or `field`).
 */
export async function viewerOf(accounts: AccountService, as: unknown, where: 'parameter' | 'field'): Promise<Caller> {
  const refuse = (message: string) => new ApiError('VALIDATION_ERROR', message, { [where]: 'as' });
  if (typeof as !== 'string' || as === '') throw refuse('as must be a user id or "anon"');
  if (as === AS_ANON) return ANON;
  const profile = await accounts.profile(as).catch(() => undefined);
  if (!profile) throw refuse(`as: no user ${as}`);
  return { kind: 'user', id: profile.id, role: profile.role, sessionId: null, verified: profile.verified, email: profile.verified ? profile.email : null };
}
