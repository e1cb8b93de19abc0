import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasaltClient } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/** Access rules through the client (issue 24): setting them, the owner's view as another caller, and rules.check. */

let live: Live;
let owner: BasaltClient;
let ann: BasaltClient;
let annId: string;

beforeAll(async () => {
  live = await startLive();
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  ann = live.client();
  annId = (await ann.auth.signUp({ email: uniqueEmail('ann'), password: PASSWORD })).user.id;
  await owner.admin.tables.create({ name: 'posts', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'published', type: 'boolean', default: false }] });
});
afterAll(() => live.stop());

describe('rules through the client', () => {
  it('sets rules, lists as another caller and says why', async () => {
    const table = await owner.admin.tables.setRules('posts', { read: 'published = true or user_id = @auth.id', create: 'user_id = @auth.id' });
    expect(table).toMatchObject({ policy: 'rules', rules: { read: 'published = true or user_id = @auth.id', create: 'user_id = @auth.id' } });
    await ann.from('posts').createMany([{ title: 'draft' }, { title: 'hello', published: true }]);
    expect((await owner.admin.records('posts', { as: 'anon', select: ['title'] })).data).toEqual([{ title: 'hello' }]);
    expect((await owner.admin.records('posts', { as: annId, order: 'title.asc' })).total).toBe(2);
    expect((await owner.admin.records('posts')).total).toBe(2);
    expect(await owner.admin.rules.check('posts', { as: 'anon', operation: 'create' })).toMatchObject({ allowed: false, operation: 'create', rule: 'user_id = @auth.id' });
    expect(await owner.admin.rules.check('posts', { as: annId, operation: 'create', record: { title: 'x' } })).toMatchObject({ allowed: true });
    await expect(owner.admin.tables.setRules('posts', { read: 'nope = 1' })).rejects.toMatchObject({ status: 400, details: { field: 'rules.read', position: 0 } });
    await expect(owner.admin.records('posts', { as: 'nobody' })).rejects.toMatchObject({ status: 400, details: { parameter: 'as' } });
  });
});
