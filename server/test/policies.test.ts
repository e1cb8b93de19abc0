import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * The full policy matrix: owner-scoped / public-read / private / owner-scoped without an owner column, for anon, a
 * member, another member and the owner, over list / get / create / upsert / delete.
 */
let h: Harness;
let owner: Account;
let alice: Account;
let bob: Account;

type CallerName = 'anon' | 'alice' | 'bob' | 'owner';
const TABLES = { scoped: 'm_scoped', public: 'm_public', private: 'm_private', noowner: 'm_noowner' } as const;

function headersOf(caller: CallerName): Record<string, string> {
  if (caller === 'anon') return anonHeaders(h);
  return { alice, bob, owner }[caller].auth;
}

function idOf(caller: Exclude<CallerName, 'anon'>): string {
  return { alice, bob, owner }[caller].id;
}

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  alice = await signUp(h);
  bob = await signUp(h);
  const withOwner = [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }];
  await createTable(h, owner, { name: TABLES.scoped, columns: withOwner });
  await createTable(h, owner, { name: TABLES.public, columns: withOwner, policy: 'public-read' });
  await createTable(h, owner, { name: TABLES.private, columns: withOwner, policy: 'private' });
  await createTable(h, owner, { name: TABLES.noowner, columns: [{ name: 'title', type: 'text' }], policy: 'owner-scoped' });
});
afterAll(() => h.close());

/** Rows owned by alice, bob and the owner (ids `<owner>-1`), put in through the owner's admin record routes. */
async function seed(table: string, withOwnerColumn: boolean): Promise<void> {
  await h.services.knex(table).delete();
  for (const caller of ['alice', 'bob', 'owner'] as const) {
    const row: Record<string, unknown> = { id: `${caller}-1`, title: `${caller}'s` };
    if (withOwnerColumn) row.user_id = idOf(caller);
    const response = await h.request().post(`/admin/tables/${table}/records`).set(owner.auth).send(row);
    expect(response.status).toBe(201);
  }
}

function expectForbidden(response: { status: number; body: unknown }, table: string, policy: string, operation: string): void {
  expect(response.status).toBe(403);
  expect(errorOf(response as never)).toMatchObject({ code: 'FORBIDDEN', details: { table, policy, operation } });
}

describe('owner-scoped', () => {
  const table = TABLES.scoped;
  beforeAll(() => seed(table, true));

  it('refuses anon every operation with 403', async () => {
    const anon = headersOf('anon');
    expectForbidden(await h.request().get(`/api/${table}`).set(anon), table, 'owner-scoped', 'read');
    expectForbidden(await h.request().get(`/api/${table}/alice-1`).set(anon), table, 'owner-scoped', 'read');
    expectForbidden(await h.request().post(`/api/${table}`).set(anon).send({ title: 'x' }), table, 'owner-scoped', 'write');
    expectForbidden(await h.request().put(`/api/${table}/alice-1`).set(anon).send({ title: 'x' }), table, 'owner-scoped', 'write');
    expectForbidden(await h.request().delete(`/api/${table}/alice-1`).set(anon), table, 'owner-scoped', 'write');
  });

  it.each(['alice', 'bob', 'owner'] as const)('limits %s to their own rows on every operation', async (caller) => {
    const headers = headersOf(caller);
    const me = idOf(caller);
    const other = caller === 'alice' ? 'bob' : 'alice';

    const list = await h.request().get(`/api/${table}`).set(headers);
    expect(list.status).toBe(200);
    expect(list.body.data.map((row: { id: string }) => row.id)).toEqual([`${caller}-1`]);
    expect(list.body.total).toBe(1);

    expect((await h.request().get(`/api/${table}/${caller}-1`).set(headers)).status).toBe(200);
    const foreign = await h.request().get(`/api/${table}/${other}-1`).set(headers);
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('NOT_FOUND');

    const created = await h.request().post(`/api/${table}`).set(headers).send({ title: 'mine', user_id: idOf(other) });
    expect(created.status).toBe(201);
    expect(created.body.data.user_id).toBe(me);

    const updatedOwn = await h.request().put(`/api/${table}/${caller}-1`).set(headers).send({ title: 'renamed', user_id: idOf(other) });
    expect(updatedOwn.status).toBe(200);
    expect(updatedOwn.body.data).toMatchObject({ title: 'renamed', user_id: me });

    const upsertForeign = await h.request().put(`/api/${table}/${other}-1`).set(headers).send({ title: 'stolen' });
    expect(upsertForeign.status).toBe(404);
    expect((await h.services.knex(table).where({ id: `${other}-1` }).first()).title).not.toBe('stolen');

    const createdByPut = await h.request().put(`/api/${table}/${caller}-put`).set(headers).send({ title: 'by put', user_id: idOf(other) });
    expect(createdByPut.status).toBe(201);
    expect(createdByPut.body.data.user_id).toBe(me);

    expect((await h.request().delete(`/api/${table}/${other}-1`).set(headers)).status).toBe(404);
    expect(await h.services.knex(table).where({ id: `${other}-1` }).first()).toBeDefined();
    const deleted = await h.request().delete(`/api/${table}/${caller}-put`).set(headers);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.id).toBe(`${caller}-put`);
  });
});

describe('public-read', () => {
  const table = TABLES.public;
  beforeAll(() => seed(table, true));

  it.each(['anon', 'alice', 'bob'] as const)('lets %s read the whole table and refuses every write', async (caller) => {
    const headers = headersOf(caller);
    const list = await h.request().get(`/api/${table}`).set(headers);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.data).toHaveLength(3);
    expect((await h.request().get(`/api/${table}/bob-1`).set(headers)).status).toBe(200);
    expect((await h.request().get(`/api/${table}/alice-1`).set(headers)).status).toBe(200);
    expectForbidden(await h.request().post(`/api/${table}`).set(headers).send({ title: 'x' }), table, 'public-read', 'write');
    expectForbidden(await h.request().put(`/api/${table}/alice-1`).set(headers).send({ title: 'x' }), table, 'public-read', 'write');
    expectForbidden(await h.request().delete(`/api/${table}/alice-1`).set(headers), table, 'public-read', 'write');
    expect(await h.services.knex(table).count({ n: '*' }).first()).toEqual({ n: 3 });
  });

  it('lets the owner read and write every row, the owner column as sent', async () => {
    const headers = headersOf('owner');
    expect((await h.request().get(`/api/${table}`).set(headers)).body.total).toBe(3);
    const created = await h.request().post(`/api/${table}`).set(headers).send({ title: 'for alice', user_id: alice.id });
    expect(created.status).toBe(201);
    expect(created.body.data.user_id).toBe(alice.id);
    expect((await h.request().put(`/api/${table}/alice-1`).set(headers).send({ title: 'edited' })).status).toBe(200);
    expect((await h.request().put(`/api/${table}/owner-new`).set(headers).send({ title: 'new' })).status).toBe(201);
    expect((await h.request().delete(`/api/${table}/bob-1`).set(headers)).status).toBe(200);
  });
});

describe.each([
  ['private', TABLES.private, true],
  ['owner-scoped without an owner column (falls back to private)', TABLES.noowner, false],
] as const)('%s', (_label, table, withOwnerColumn) => {
  beforeAll(() => seed(table, withOwnerColumn));

  it.each(['anon', 'alice', 'bob'] as const)('refuses %s every operation with 403', async (caller) => {
    const headers = headersOf(caller);
    expectForbidden(await h.request().get(`/api/${table}`).set(headers), table, 'private', 'read');
    expectForbidden(await h.request().get(`/api/${table}/alice-1`).set(headers), table, 'private', 'read');
    expectForbidden(await h.request().post(`/api/${table}`).set(headers).send({ title: 'x' }), table, 'private', 'write');
    expectForbidden(await h.request().put(`/api/${table}/alice-1`).set(headers).send({ title: 'x' }), table, 'private', 'write');
    expectForbidden(await h.request().delete(`/api/${table}/alice-1`).set(headers), table, 'private', 'write');
  });

  it('lets the owner do everything on every row', async () => {
    const headers = headersOf('owner');
    const list = await h.request().get(`/api/${table}`).set(headers);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect((await h.request().get(`/api/${table}/alice-1`).set(headers)).status).toBe(200);
    expect((await h.request().post(`/api/${table}`).set(headers).send({ title: 'x' })).status).toBe(201);
    expect((await h.request().put(`/api/${table}/alice-1`).set(headers).send({ title: 'y' })).status).toBe(200);
    expect((await h.request().put(`/api/${table}/fresh`).set(headers).send({ title: 'z' })).status).toBe(201);
    expect((await h.request().delete(`/api/${table}/bob-1`).set(headers)).status).toBe(200);
  });
});

describe('policy changes', () => {
  it('take effect on the very next request', async () => {
    const table = TABLES.private;
    expect((await h.request().get(`/api/${table}`).set(headersOf('anon'))).status).toBe(403);
    const patched = await h.request().patch(`/admin/tables/${table}`).set(owner.auth).send({ policy: 'public-read' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ policy: 'public-read', effectivePolicy: 'public-read' });
    expect((await h.request().get(`/api/${table}`).set(headersOf('anon'))).status).toBe(200);
    await h.request().patch(`/admin/tables/${table}`).set(owner.auth).send({ policy: 'private' });
    expect((await h.request().get(`/api/${table}`).set(headersOf('anon'))).status).toBe(403);
  });

  it('reports owner-scoped without an owner column as effectively private', async () => {
    const response = await h.request().get(`/admin/tables/${TABLES.noowner}`).set(owner.auth);
    expect(response.body.data).toMatchObject({ policy: 'owner-scoped', effectivePolicy: 'private', ownerColumn: null });
  });

  it('gives a new table owner-scoped with a user_id column and private without', async () => {
    await createTable(h, owner, { name: 'm_default_owned', columns: [{ name: 'userId', type: 'text' }] });
    await createTable(h, owner, { name: 'm_default_plain', columns: [{ name: 'title', type: 'text' }] });
    const owned = await h.request().get('/admin/tables/m_default_owned').set(owner.auth);
    const plain = await h.request().get('/admin/tables/m_default_plain').set(owner.auth);
    expect(owned.body.data).toMatchObject({ policy: 'owner-scoped', ownerColumn: 'userId' });
    expect(plain.body.data).toMatchObject({ policy: 'private', ownerColumn: null });
    const created = await h.request().post('/api/m_default_owned').set(alice.auth).send({});
    expect(created.status).toBe(201);
    expect(created.body.data.userId).toBe(alice.id);
  });
});
