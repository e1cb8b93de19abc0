import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * Read-only columns (issue 24, API.md "Access rules", Columns): `/api` writes that set one are 400 naming it; the
 * owner's record routes and SQL can; the description, the types and the OpenAPI document say so.
 */

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, {
    name: 'profiles',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'bio', type: 'text' },
      { name: 'plan', type: 'text', default: 'free', readOnly: true },
    ],
  });
});
afterAll(() => h?.close());

const admin = () => h.request();
const columnsOf = async () => (await admin().get('/admin/tables/profiles').set(owner.auth)).body.data.columns as Array<{ name: string; readOnly: boolean }>;

describe('read-only columns', () => {
  it('are described as such, the others not', async () => {
    expect(Object.fromEntries((await columnsOf()).map((column) => [column.name, column.readOnly]))).toEqual({
      id: false,
      user_id: false,
      bio: false,
      plan: true,
      createdAt: false,
      updatedAt: false,
    });
  });

  it('refuse /api writes that set them, naming the field, and take their default on create', async () => {
    const refused = await h.request().post('/api/profiles').set(member.auth).send({ bio: 'hi', plan: 'pro' });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'plan' } });
    const created = await h.request().post('/api/profiles').set(member.auth).send({ bio: 'hi' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ bio: 'hi', plan: 'free', user_id: member.id });
    const id = created.body.data.id as string;
    expect(errorOf(await h.request().put(`/api/profiles/${id}`).set(member.auth).send({ plan: 'pro' })).details).toEqual({ field: 'plan' });
    expect(errorOf(await h.request().post('/api/profiles').set(member.auth).send([{ bio: 'a' }, { bio: 'b', plan: 'pro' }])).details).toMatchObject({ index: 1, field: 'plan' });
    // The owner's tools set it.
    const upgraded = await admin().put(`/admin/tables/profiles/records/${id}`).set(owner.auth).send({ plan: 'pro' });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.data.plan).toBe('pro');
    // The member still edits the rest.
    expect((await h.request().put(`/api/profiles/${id}`).set(member.auth).send({ bio: 'changed' })).body.data).toMatchObject({ bio: 'changed', plan: 'pro' });
  });

  it('switch on and off with PATCH /admin/tables/:name/columns/:column, on the next request', async () => {
    const on = await admin().patch('/admin/tables/profiles/columns/bio').set(owner.auth).send({ readOnly: true });
    expect(on.status).toBe(200);
    expect(on.body.data.columns.find((column: { name: string }) => column.name === 'bio').readOnly).toBe(true);
    expect(errorOf(await h.request().post('/api/profiles').set(member.auth).send({ bio: 'x' })).details).toEqual({ field: 'bio' });
    const off = await admin().patch('/admin/tables/profiles/columns/bio').set(owner.auth).send({ readOnly: false });
    expect(off.body.data.columns.find((column: { name: string }) => column.name === 'bio').readOnly).toBe(false);
    expect((await h.request().post('/api/profiles').set(member.auth).send({ bio: 'x' })).status).toBe(201);
  });

  it('refuse a bad settings body or an unknown column, and members', async () => {
    for (const body of [{}, { readOnly: 'yes' }, { readOnly: true, extra: 1 }]) {
      expect((await admin().patch('/admin/tables/profiles/columns/bio').set(owner.auth).send(body)).status).toBe(400);
    }
    expect((await admin().patch('/admin/tables/profiles/columns/nope').set(owner.auth).send({ readOnly: true })).status).toBe(404);
    expect((await admin().patch('/admin/tables/profiles/columns/bio').set(member.auth).send({ readOnly: true })).status).toBe(403);
  });

  it('are left out of the generated Insert and Update types and of the OpenAPI write bodies', async () => {
    const types = (await admin().get('/admin/types').set(owner.auth)).body.data.typescript as string;
    const block = types.slice(types.indexOf('profiles: {'));
    const insert = block.slice(block.indexOf('Insert: {'), block.indexOf('Update: {'));
    const update = block.slice(block.indexOf('Update: {'), block.indexOf('}', block.indexOf('Update: {')));
    expect(block.slice(0, block.indexOf('Insert: {'))).toContain('plan');
    expect(insert).not.toContain('plan');
    expect(update).not.toContain('plan');
    const document = (await h.request().get('/openapi.json').set(member.auth)).body as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    const writes = Object.entries(document.components.schemas).filter(([name]) => name === 'table.profiles.api.insert' || name === 'table.profiles.api.update');
    expect(writes).toHaveLength(2);
    for (const [, schema] of writes) expect(Object.keys(schema.properties ?? {})).not.toContain('plan');
  });
});
