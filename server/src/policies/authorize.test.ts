import { describe, expect, it } from 'vitest';
import { ANON, type Caller, type UserCaller } from './caller.js';
import { authorize, authorizeOwnerTools, type Operation } from './authorize.js';

const owner: UserCaller = { kind: 'user', id: 'owner-1', role: 'owner', sessionId: 's1' };
const member: UserCaller = { kind: 'user', id: 'member-1', role: 'member', sessionId: 's2' };

describe('authorize', () => {
  const cases: Array<[string, Caller, Operation, 'allow' | 'scoped' | 'deny']> = [
    ['owner-scoped', ANON, 'read', 'deny'],
    ['owner-scoped', ANON, 'write', 'deny'],
    ['owner-scoped', member, 'read', 'scoped'],
    ['owner-scoped', member, 'write', 'scoped'],
    ['owner-scoped', owner, 'read', 'scoped'],
    ['owner-scoped', owner, 'write', 'scoped'],
    ['public-read', ANON, 'read', 'allow'],
    ['public-read', ANON, 'write', 'deny'],
    ['public-read', member, 'read', 'allow'],
    ['public-read', member, 'write', 'deny'],
    ['public-read', owner, 'read', 'allow'],
    ['public-read', owner, 'write', 'allow'],
    ['private', ANON, 'read', 'deny'],
    ['private', ANON, 'write', 'deny'],
    ['private', member, 'read', 'deny'],
    ['private', member, 'write', 'deny'],
    ['private', owner, 'read', 'allow'],
    ['private', owner, 'write', 'allow'],
  ];
  it.each(cases)('%s: %o %s -> %s', (policy, caller, operation, expected) => {
    const decision = authorize(policy as 'private', caller, operation);
    if (expected === 'deny') expect(decision).toEqual({ allowed: false, reason: 'policy' });
    else if (expected === 'allow') expect(decision).toEqual({ allowed: true, ownerScope: null });
    else expect(decision).toEqual({ allowed: true, ownerScope: caller.kind === 'user' ? caller.id : 'never' });
  });
});

describe('authorize: a read API key', () => {
  const key = (caller: UserCaller, access: 'read' | 'read-write'): Caller => ({ ...caller, sessionId: null, key: { id: 'k', hash: 'h', access, version: 1 } });
  const cases: Array<[string, Caller, Operation, 'allow' | 'scoped' | 'policy' | 'read-only-key']> = [
    ['owner-scoped', key(member, 'read'), 'read', 'scoped'],
    ['owner-scoped', key(member, 'read'), 'write', 'read-only-key'],
    ['owner-scoped', key(member, 'read-write'), 'write', 'scoped'],
    ['public-read', key(owner, 'read'), 'write', 'read-only-key'],
    ['public-read', key(member, 'read'), 'write', 'policy'],
    ['private', key(owner, 'read'), 'read', 'allow'],
    ['private', key(owner, 'read'), 'write', 'read-only-key'],
    ['private', key(member, 'read'), 'write', 'policy'],
  ];
  it.each(cases)('%s: %o %s -> %s', (policy, caller, operation, expected) => {
    const decision = authorize(policy as 'private', caller, operation);
    if (expected === 'allow') expect(decision).toEqual({ allowed: true, ownerScope: null });
    else if (expected === 'scoped') expect(decision).toEqual({ allowed: true, ownerScope: member.id });
    else expect(decision).toEqual({ allowed: false, reason: expected });
  });
});

describe('authorizeOwnerTools', () => {
  it.each([
    ['anon', ANON, { allowed: false, reason: 'not-signed-in' }],
    ['a member', member, { allowed: false, reason: 'not-owner' }],
    ['the owner', owner, { allowed: true }],
  ] as const)('%s -> %o', (_name, caller, expected) => {
    expect(authorizeOwnerTools(caller)).toEqual(expected);
  });
});
