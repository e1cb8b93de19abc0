import { describe, expect, it } from 'vitest';
import type { Policy } from '@basalt/contract';
import { refusal } from '../../test/fixtures/refusal.js';
import { ANON, type Caller } from '../policies/caller.js';
import type { TableSchema } from '../db/schema.js';
import { column, table, todos } from '../../test/fixtures/tables.js';
import { authorizeRecords, type TableLookup } from './authorize.js';

const owner: Caller = { kind: 'user', id: 'owner-1', role: 'owner', sessionId: 's1' };
const member: Caller = { kind: 'user', id: 'member-1', role: 'member', sessionId: 's2' };

function lookup(...tables: TableSchema[]): TableLookup {
  const byName = new Map(tables.map((entry) => [entry.name, entry]));
  return { served: (name) => byName.get(name) };
}


const withPolicy = (policy: Policy) => table('notes', [column('user_id', 'text'), column('body', 'text')], policy);

describe('authorizeRecords on /api', () => {
  it('answers 404 for a table that is not served', () => {
    expect(refusal(() => authorizeRecords(lookup(), 'api', 'nope', member, 'read')).status).toBe(404);
  });

  it('scopes owner-scoped tables to the caller, and names the writer of a write', () => {
    const tables = lookup(todos());
    expect(authorizeRecords(tables, 'api', 'todos', member, 'read').access).toEqual({
      scope: { kind: 'owner', ownerColumn: 'user_id', userId: 'member-1' },
      surface: 'api',
      writer: null,
    });
    expect(authorizeRecords(tables, 'api', 'todos', owner, 'write').access).toEqual({
      scope: { kind: 'owner', ownerColumn: 'user_id', userId: 'owner-1' },
      surface: 'api',
      writer: 'owner-1',
    });
  });

  it('refuses with a 403 that says which rule refused', () => {
    expect(refusal(() => authorizeRecords(lookup(todos()), 'api', 'todos', ANON, 'read'))).toEqual({
      status: 403,
      details: { table: 'todos', policy: 'owner-scoped', operation: 'read' },
    });
    expect(refusal(() => authorizeRecords(lookup(withPolicy('public-read')), 'api', 'notes', member, 'write'))).toEqual({
      status: 403,
      details: { table: 'notes', policy: 'public-read', operation: 'write' },
    });
  });

  it('lets everyone read a public-read table unscoped', () => {
    expect(authorizeRecords(lookup(withPolicy('public-read')), 'api', 'notes', ANON, 'read').access).toEqual({ scope: null, surface: 'api', writer: null });
  });

  it('treats owner-scoped without an owner column as private', () => {
    const bare = table('bare', [column('body', 'text')], 'owner-scoped');
    expect(refusal(() => authorizeRecords(lookup(bare), 'api', 'bare', member, 'read'))).toEqual({
      status: 403,
      details: { table: 'bare', policy: 'private', operation: 'read' },
    });
    expect(authorizeRecords(lookup(bare), 'api', 'bare', owner, 'read').access.scope).toBeNull();
  });
});

describe('authorizeRecords on the owner tools', () => {
  it('gives the owner every row of any policy, the owner column unforced', () => {
    for (const policy of ['owner-scoped', 'public-read', 'private'] as const) {
      expect(authorizeRecords(lookup(withPolicy(policy)), 'admin', 'notes', owner, 'write').access).toEqual({ scope: null, surface: 'admin', writer: null });
    }
  });

  it('names a reserved table with a 400 and an unknown one with a 404', () => {
    expect(refusal(() => authorizeRecords(lookup(), 'admin', 'users', owner, 'read'))).toEqual({ status: 400, details: { parameter: 'name' } });
    expect(refusal(() => authorizeRecords(lookup(), 'admin', '_policies', owner, 'read'))).toEqual({ status: 400, details: { parameter: 'name' } });
    expect(refusal(() => authorizeRecords(lookup(), 'admin', 'nope', owner, 'read')).status).toBe(404);
  });

  it('refuses members (403) and anon (401) even when called without the router in front', () => {
    expect(refusal(() => authorizeRecords(lookup(todos()), 'admin', 'todos', member, 'read')).status).toBe(403);
    expect(refusal(() => authorizeRecords(lookup(todos()), 'admin', 'todos', ANON, 'read')).status).toBe(401);
  });
});
