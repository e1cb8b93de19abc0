import type { Policy } from '@basalt/contract';
import { isOwner, isReadOnly, type Caller } from './caller.js';

export type Operation = 'read' | 'write';

/**
 * Why a caller is refused: the table's policy refuses their user (`policy`), or the policy would allow the user but
 * the caller is a `read` API key writing (`read-only-key`), which a refusal has to say so the developer is not sent
 * looking at the policy.
 */
export type Refusal = 'policy' | 'read-only-key';

export type Decision =
  | { allowed: true; ownerScope: null }
  /** Allowed, limited to rows whose owner column equals this user id. */
  | { allowed: true; ownerScope: string }
  | { allowed: false; reason: Refusal };

const ALLOW: Decision = { allowed: true, ownerScope: null };
const DENY: Decision = { allowed: false, reason: 'policy' };
const READ_ONLY_KEY: Decision = { allowed: false, reason: 'read-only-key' };

/** The policy's decision for the caller's user, whatever credential they came with. */
function byPolicy(effectivePolicy: Policy, caller: Caller, operation: Operation): Decision {
  switch (effectivePolicy) {
    case 'owner-scoped':
      return caller.kind === 'user' ? { allowed: true, ownerScope: caller.id } : DENY;
    case 'public-read':
      return operation === 'read' || isOwner(caller) ? ALLOW : DENY;
    case 'private':
      return isOwner(caller) ? ALLOW : DENY;
    case 'rules':
      // Rules are decided by policies/access.ts (decideByRule), never here.
      return DENY;
  }
}

/**
 * Who may do what on a table, from its effective policy (a table without an owner column is never owner-scoped).
 * - owner-scoped: any signed-in user, the project owner included, on their own rows only; anon is refused.
 * - public-read: everyone reads the whole table; only the project owner writes.
 * - private: only the project owner.
 * A `read` API key acts as its user for reads and writes nothing: where the policy refuses the user anyway, the
 * policy is the reason given (a read-write key would not help).
 */
export function authorize(effectivePolicy: Policy, caller: Caller, operation: Operation): Decision {
  const decision = byPolicy(effectivePolicy, caller, operation);
  return decision.allowed && operation === 'write' && isReadOnly(caller) ? READ_ONLY_KEY : decision;
}

/** The owner's tools (`/admin/*`, its record routes included): who may use them, and who gets which refusal. */
export type OwnerToolsDecision = { allowed: true } | { allowed: false; reason: 'not-signed-in' | 'not-owner' };

/**
 * Only the project owner uses the administrative area: anon (or no user) is told to sign in, a member is refused.
 * What it allows on a table is every row, whatever the table's policy (`authorize` does not apply there).
 */
export function authorizeOwnerTools(caller: Caller): OwnerToolsDecision {
  if (caller.kind !== 'user') return { allowed: false, reason: 'not-signed-in' };
  return caller.role === 'owner' ? { allowed: true } : { allowed: false, reason: 'not-owner' };
}
