import { describe, expect, it } from 'vitest';
import { column, table } from '../../test/fixtures/tables.js';
import { decideAccess } from './access.js';
import { ANON, type UserCaller } from './caller.js';
import { compileRules, expressionSchema } from './rules.js';

/**
 * The one access decision under `rules` (issue 24): folding for the caller, the 403 before anything when a rule is
 * false whatever the row, and a rule of exactly `<owner> = @auth.id` becoming the owner scope (its `(owner, id)` index
 * and maintained counts, item 7), while any other rule stays a condition.
 */

const member: UserCaller = { kind: 'user', id: 'member-1', role: 'member', sessionId: 's1' };
const owner: UserCaller = { kind: 'user', id: 'owner-1', role: 'owner', sessionId: 's2' };

function ruled(read: string) {
  const posts = table('posts', [column('user_id', 'text'), column('published', 'boolean')], 'rules');
  posts.rules = compileRules('posts', { read, create: 'user_id = @auth.id' }, expressionSchema(new Map([['posts', posts]])));
  return posts;
}

describe('decideAccess under rules', () => {
  it('turns exactly <owner> = @auth.id into the owner scope, either way round', () => {
    for (const read of ['user_id = @auth.id', '@auth.id = user_id']) {
      expect(decideAccess(ruled(read), member, 'read', 'api')).toMatchObject({ allowed: true, scope: { kind: 'owner', ownerColumn: 'user_id', userId: 'member-1' } });
    }
  });

  it('keeps any other rule a condition, and a true one no condition at all', () => {
    expect(decideAccess(ruled('user_id = @auth.id or published = true'), member, 'read', 'api')).toMatchObject({ allowed: true, scope: { kind: 'rule' } });
    expect(decideAccess(ruled("user_id = @auth.id or @auth.role = 'owner'"), owner, 'read', 'api')).toMatchObject({ allowed: true, scope: null });
  });

  it('refuses before anything when the rule is false or null for the caller whatever the row, and absent members', () => {
    const refusal = decideAccess(ruled('user_id = @auth.id'), ANON, 'read', 'api');
    expect(refusal.allowed).toBe(false);
    expect(refusal.allowed ? null : refusal.refusal.details).toEqual({ table: 'posts', policy: 'rules', operation: 'read' });
    const absent = decideAccess(ruled('true'), member, 'delete', 'api');
    expect(absent.allowed ? null : absent.refusal.details).toEqual({ table: 'posts', policy: 'rules', operation: 'delete' });
    const check = decideAccess(ruled('true'), ANON, 'updateCheck', 'api');
    expect(check.allowed ? null : check.refusal.details).toEqual({ table: 'posts', policy: 'rules', operation: 'update', check: true });
    expect(decideAccess(ruled('false'), member, 'read', 'admin')).toMatchObject({ allowed: true, scope: null });
  });
});
