import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasaltClient } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

let live: Live;
let owner: BasaltClient;
let member: BasaltClient;
let memberId: string;

beforeAll(async () => {
  live = await startLive();
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  member = live.client();
  memberId = (await member.auth.signUp({ email: uniqueEmail('member'), password: PASSWORD })).user.id;
});
afterAll(() => live.stop());

describe('admin helpers for the owner', () => {
  it('creates, lists, reads, re-polices and drops tables', async () => {
    const created = await owner.admin.tables.create({ name: 'notes', columns: [{ name: 'body', type: 'text' }, { name: 'userId', type: 'text' }] });
    expect(created).toMatchObject({ name: 'notes', policy: 'owner-scoped', ownerColumn: 'userId', effectivePolicy: 'owner-scoped', rowCount: { value: 0, exact: true } });
    expect(created.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'body', 'userId']));
    expect((await owner.admin.tables.list()).map((table) => table.name)).toContain('notes');
    await expect(owner.admin.tables.get('notes')).resolves.toMatchObject({ name: 'notes' });
    await expect(owner.admin.tables.setPolicy('notes', 'public-read')).resolves.toMatchObject({ policy: 'public-read', effectivePolicy: 'public-read' });
    await expect(owner.admin.tables.drop('notes')).resolves.toMatchObject({ name: 'notes' });
    await expect(owner.admin.tables.get('notes')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('adds and drops columns', async () => {
    await owner.admin.tables.create({ name: 'items', columns: [{ name: 'label', type: 'text' }] });
    const added = await owner.admin.columns.add('items', { name: 'price', type: 'real', nullable: true });
    expect(added.columns.find((column) => column.name === 'price')).toMatchObject({ type: 'real', nullable: true });
    const dropped = await owner.admin.columns.drop('items', 'price');
    expect(dropped.columns.map((column) => column.name)).not.toContain('price');
  });

  it('refuses bad definitions with 400 and an existing table with 409', async () => {
    await expect(owner.admin.tables.create({ name: 'Bad Name', columns: [] })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(owner.admin.tables.create({ name: 'items', columns: [] })).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      details: { constraint: 'unique', column: 'tables.name' },
    });
  });

  it('reads and writes every record of a table, whatever its policy', async () => {
    await owner.admin.tables.create({ name: 'secrets', columns: [{ name: 'value', type: 'text' }, { name: 'user_id', type: 'text' }] });
    const records = owner.admin.from('secrets');
    // The owner column is an ordinary column here: the owner may set it to any existing user.
    const row = await records.create({ value: 'for the member', user_id: memberId });
    expect(row).toMatchObject({ user_id: memberId });
    await expect(records.upsert(String(row.id), { value: 'changed' })).resolves.toMatchObject({ value: 'changed', user_id: memberId });
    await records.create({ value: 'another' });
    const listed = await owner.admin.records('secrets', { order: 'value.asc', limit: 1 });
    expect(listed).toMatchObject({ total: 2, data: [{ value: 'another' }] });
    await expect(owner.admin.records('secrets', { filter: { value: 'changed' } })).resolves.toMatchObject({ total: 1 });
    await expect(records.delete(String(row.id))).resolves.toMatchObject({ id: row.id });
    // The member sees the row the owner gave them through the scoped API, and nothing of the admin API.
    await records.create({ value: 'mine', user_id: memberId });
    await expect(member.from('secrets').list()).resolves.toMatchObject({ total: 1, data: [{ value: 'mine' }] });
  });

  it('lists users with createdAt, pages them, and returns the settings', async () => {
    const users = await owner.admin.users.list();
    expect(users.total).toBe(2);
    expect(users.data[0]).toMatchObject({ role: 'owner', verified: expect.any(Boolean), hasPassword: true, locale: null, identities: [], mfa: false });
    expect(Date.parse(users.data[0]?.createdAt ?? '')).not.toBeNaN();
    await expect(owner.admin.users.list({ limit: 1, offset: 1 })).resolves.toMatchObject({ total: 2, data: [{ id: memberId }] });
    await expect(owner.admin.settings()).resolves.toEqual({
      anonKey: live.server.anonKey,
      signupEnabled: true,
      smtp: { configured: false, from: null },
      providers: [],
    });
  });

  it('returns the generated TypeScript source', async () => {
    const source = await owner.admin.types();
    expect(source).toContain('export interface Database');
    expect(source).toMatch(/secrets: \{/);
  });

  it('gives a member 403 FORBIDDEN and the anon key 401 on every admin helper', async () => {
    const anon = live.client();
    const calls = (client: BasaltClient) => [
      client.admin.tables.list(),
      client.admin.tables.get('items'),
      client.admin.tables.create({ name: 'x', columns: [] }),
      client.admin.tables.setPolicy('items', 'private'),
      client.admin.tables.drop('items'),
      client.admin.columns.add('items', { name: 'y', type: 'text' }),
      client.admin.columns.drop('items', 'label'),
      client.admin.records('items'),
      client.admin.from('items').create({}),
      client.admin.users.list(),
      client.admin.settings(),
      client.admin.types(),
    ];
    for (const outcome of await Promise.allSettled(calls(member))) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    }
    for (const outcome of await Promise.allSettled(calls(anon))) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
    await expect(owner.admin.tables.get('items')).resolves.toMatchObject({ name: 'items' });
  });
});
