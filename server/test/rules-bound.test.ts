import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * A rule is folded once per kind of caller and compiled once per place in a statement, with `@auth.id` and `@now`
 * bound per request (policies/access.ts foldFor, records/query/expression.ts boundSql). These requests would tell if
 * a value were kept from an earlier request (one caller's rows to the next, a frozen clock), or if a rule whose fold
 * depends on the values (`@auth.id = '<id>'`, `@now` against a literal) were shared: it must stay a 403 for the
 * callers it refuses, not become an empty list.
 */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;

const setRules = (table: string, rules: Record<string, string>) => h.request().patch(`/admin/tables/${table}`).set(owner.auth).send({ policy: 'rules', rules });
const titles = async (account: Account, path = '/api/notes?order=title.asc') => {
  const response = await h.request().get(path).set(account.auth);
  expect(response.status).toBe(200);
  return (response.body.data as Array<{ title: string }>).map((row) => row.title);
};

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  await createTable(h, owner, {
    name: 'notes',
    columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'visibleFrom', type: 'timestamp' }],
  });
  const soon = new Date(Date.now() + 1_500).toISOString();
  const past = new Date(Date.now() - 60_000).toISOString();
  const rows = [
    { user_id: ann.id, title: 'ann-past', visibleFrom: past },
    { user_id: ann.id, title: 'ann-soon', visibleFrom: soon },
    { user_id: bob.id, title: 'bob-past', visibleFrom: past },
  ];
  expect((await h.request().post('/admin/tables/notes/records').set(owner.auth).send(rows)).status).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

describe('rules folded once per kind of caller', () => {
  it('binds each caller their own id, request after request', async () => {
    expect((await setRules('notes', { read: 'user_id = @auth.id or title = \'shared\'' })).status).toBe(200);
    for (let round = 0; round < 3; round += 1) {
      expect(await titles(ann)).toEqual(['ann-past', 'ann-soon']);
      expect(await titles(bob)).toEqual(['bob-past']);
    }
  });

  it('binds @now per request: a row becomes readable when its time comes', async () => {
    expect((await setRules('notes', { read: '"visibleFrom" <= @now and user_id = @auth.id' })).status).toBe(200);
    expect(await titles(ann)).toEqual(['ann-past']);
    expect(await titles(bob)).toEqual(['bob-past']);
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect(await titles(ann)).toEqual(['ann-past', 'ann-soon']);
  });

  it('keeps a rule that compares @auth.id with a literal a 403 for everyone else, not an empty list', async () => {
    expect((await setRules('notes', { read: `@auth.id = '${ann.id}'` })).status).toBe(200);
    expect(await titles(ann)).toEqual(['ann-past', 'ann-soon', 'bob-past']);
    const refused = await h.request().get('/api/notes').set(bob.auth);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).details).toMatchObject({ table: 'notes', policy: 'rules', operation: 'read' });
    expect(await titles(ann)).toEqual(['ann-past', 'ann-soon', 'bob-past']);
  });

  it('folds @now against a literal per request, and ANDs it with a bound comparison', async () => {
    expect((await setRules('notes', { read: "@now > '2000-01-01T00:00:00Z' and user_id = @auth.id" })).status).toBe(200);
    expect(await titles(bob)).toEqual(['bob-past']);
    expect((await setRules('notes', { read: "@now < '2000-01-01T00:00:00Z' or user_id = @auth.id" })).status).toBe(200);
    expect(await titles(ann)).toEqual(['ann-past', 'ann-soon']);
    expect((await setRules('notes', { read: "@now < '2000-01-01T00:00:00Z'" })).status).toBe(200);
    expect((await h.request().get('/api/notes').set(ann.auth)).status).toBe(403);
  });

  it('answers a create under a bound rule by the caller: their own row, or 403 naming create', async () => {
    expect((await setRules('notes', { read: 'user_id = @auth.id', create: 'user_id = @auth.id and "visibleFrom" <= @now' })).status).toBe(200);
    const now = new Date(Date.now() - 1_000).toISOString();
    const mine = await h.request().post('/api/notes').set(bob.auth).send({ user_id: bob.id, title: 'bob-new', visibleFrom: now });
    expect(mine.status).toBe(201);
    expect(mine.body.data).toMatchObject({ title: 'bob-new', user_id: bob.id });
    const theirs = await h.request().post('/api/notes').set(bob.auth).send({ user_id: ann.id, title: 'for ann', visibleFrom: now });
    expect(theirs.status).toBe(403);
    expect(errorOf(theirs).details).toMatchObject({ operation: 'create' });
    const later = await h.request().post('/api/notes').set(ann.auth).send({ user_id: ann.id, title: 'later', visibleFrom: new Date(Date.now() + 60_000).toISOString() });
    expect(later.status).toBe(403);
    expect(await titles(bob)).toEqual(['bob-new', 'bob-past']);
  });
});
