import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * Access rules (issue 24) for every kind of caller and rule: API keys (a read key is refused every write before any
 * rule), `@auth.role`, `not`, the API description per caller, system tables out of reach, the size bounds, and a
 * rule a psql change broke (`rule_invalid`, `rulesProblem`).
 */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;
let readKey: string;
let writeKey: string;

const admin = () => h.request();
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const setRules = (table: string, rules: Record<string, string>) => admin().patch(`/admin/tables/${table}`).set(owner.auth).send({ policy: 'rules', rules });

async function createKey(account: Account, access: 'read' | 'read-write'): Promise<string> {
  const response = await h.request().post('/auth/keys').set(account.auth).send({ name: `k-${access}`, access });
  expect(response.status).toBe(201);
  return response.body.data.key as string;
}

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  await createTable(h, owner, {
    name: 'notes',
    policy: 'rules',
    rules: { read: "not (status = 'hidden') or user_id = @auth.id", create: 'user_id = @auth.id and @auth.key = false', update: "user_id = @auth.id or @auth.role = 'owner'", delete: "@auth.role = 'owner'" },
    columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'status', type: 'text', default: 'shown' }],
  });
  readKey = await createKey(ann, 'read');
  writeKey = await createKey(ann, 'read-write');
});
afterAll(() => h?.close());

describe('callers under rules', () => {
  it('reads through not, and lets each key act as its user where the rule allows', async () => {
    await h.request().post('/api/notes').set(ann.auth).send([{ title: 'seen' }, { title: 'mine only', status: 'hidden' }]);
    const list = (headers: Record<string, string>) => h.request().get('/api/notes?order=title.asc').set(headers);
    expect((await list(anonHeaders(h))).body.data.map((row: { title: string }) => row.title)).toEqual(['seen']);
    expect((await list(bob.auth)).body.total).toBe(1);
    expect((await list(bearer(readKey))).body.total).toBe(2);
    // `@auth.key = false` in the create rule: a read-write key is refused by the rule, the read key before it.
    const byKey = await h.request().post('/api/notes').set(bearer(writeKey)).send({ title: 'scripted' });
    expect([byKey.status, errorOf(byKey).details]).toEqual([403, { table: 'notes', policy: 'rules', operation: 'create' }]);
    const byReadKey = await h.request().post('/api/notes').set(bearer(readKey)).send({ title: 'scripted' });
    expect([byReadKey.status, errorOf(byReadKey).details]).toEqual([403, { table: 'notes', policy: 'rules', operation: 'create', reason: 'read_only_key' }]);
  });

  it('lets @auth.role decide: the owner updates and deletes any row, a member only updates theirs', async () => {
    const seen = (await h.request().get('/api/notes?title=seen').set(ann.auth)).body.data[0].id as string;
    expect((await h.request().put(`/api/notes/${seen}`).set(bob.auth).send({ title: 'x' })).status).toBe(403);
    expect((await h.request().put(`/api/notes/${seen}`).set(owner.auth).send({ title: 'seen!' })).status).toBe(200);
    const refused = await h.request().delete(`/api/notes/${seen}`).set(ann.auth);
    expect([refused.status, errorOf(refused).details]).toEqual([403, { table: 'notes', policy: 'rules', operation: 'delete' }]);
    expect((await h.request().delete(`/api/notes/${seen}`).set(owner.auth)).status).toBe(200);
  });

  it('describes per caller: anon reads but writes nothing; a member may create; a read key writes nothing', async () => {
    const document = async (headers: Record<string, string>) => (await h.request().get('/openapi.json').set(headers)).body as { paths: Record<string, Record<string, unknown>> };
    const anon = await document(anonHeaders(h));
    expect(Object.keys(anon.paths['/api/notes'] ?? {})).toEqual(['get']);
    const member = await document(bob.auth);
    expect(Object.keys(member.paths['/api/notes'] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
    const read = await document(bearer(readKey));
    expect(Object.keys(read.paths['/api/notes'] ?? {})).toEqual(['get']);
  });

  it.each([
    ['sessions.user_id = @auth.id', 0],
    ['"_basalt_counts".scope = \'x\'', 0],
    ["title = '" + 'x'.repeat(1990) + "'", undefined],
    ["title = '" + 'x'.repeat(1991) + "'", 2000],
    [Array.from({ length: 20 }, (_, index) => `title = 'v${index}'`).join(' or '), undefined],
    [Array.from({ length: 21 }, (_, index) => `title = 'v${index}'`).join(' or '), 330],
    ['title = @auth.id; DELETE FROM notes', 16],
    ["title = 'a' union select 1", 12],
  ])('checks %s when set (position %s)', async (read, position) => {
    const response = await admin().patch('/admin/tables/notes').set(owner.auth).send({ rules: { read, delete: "@auth.role = 'owner'" } });
    if (position === undefined) {
      expect(response.status).toBe(200);
    } else {
      expect(response.status).toBe(400);
      expect(errorOf(response).details).toEqual({ field: 'rules.read', position });
    }
  });

  it('refuses with rule_invalid when a psql change broke a rule, and describes why', async () => {
    await createTable(h, owner, { name: 'cards', columns: [{ name: 'user_id', type: 'text' }, { name: 'label', type: 'text' }] });
    expect((await setRules('cards', { read: "label = 'x' or user_id = @auth.id", create: 'user_id = @auth.id' })).status).toBe(200);
    await h.services.knex.raw('ALTER TABLE cards RENAME COLUMN label TO caption');
    await h.services.cache.reload();
    const refused = await h.request().get('/api/cards').set(ann.auth);
    expect([refused.status, errorOf(refused).details]).toEqual([403, { table: 'cards', policy: 'rules', operation: 'read', reason: 'rule_invalid' }]);
    expect((await h.request().post('/api/cards').set(ann.auth).send({ caption: 'ok' })).status).toBe(201);
    const described = await admin().get('/admin/tables/cards').set(owner.auth);
    expect(described.body.data.rulesProblem).toMatch(/^rules\.read: .*label/);
  });
});
