import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';

/** `POST ?onConflict=<unique column>` (API.md, "Query language, part 2"): single and bulk, presets and rules. */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;

type Row = Record<string, unknown>;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  await createTable(h, owner, {
    name: 'contacts',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'email', type: 'text', unique: true },
      { name: 'name', type: 'text', nullable: false },
      { name: 'score', type: 'integer', default: 0 },
    ],
  });
  await createTable(h, owner, { name: 'cards', columns: [{ name: 'user_id', type: 'text' }, { name: 'code', type: 'text', unique: true }, { name: 'label', type: 'text' }, { name: 'frozen', type: 'boolean', default: false }] });
  const rules = await h
    .request()
    .patch('/admin/tables/cards')
    .set(owner.auth)
    .send({ policy: 'rules', rules: { read: "user_id = @auth.id or label = 'shared'", create: 'user_id = @auth.id', update: 'user_id = @auth.id', updateCheck: 'frozen = false', delete: 'user_id = @auth.id' } });
  expect(rules.status, JSON.stringify(rules.body)).toBe(200);
});
afterAll(() => h.close());

const upsert = (body: unknown, account: Account, query = 'onConflict=email', table = 'contacts') => h.request().post(`/api/${table}?${query}`).set(account.auth).send(body as object);

describe('upsert on a unique column', () => {
  it('inserts a new key (201), updates an existing one with the columns sent (200), keeping the rest', async () => {
    const created = await upsert({ email: 'a@x.io', name: 'A', score: 3 }, ann);
    expect([created.status, created.body.data.name, created.body.data.user_id]).toEqual([201, 'A', ann.id]);
    const updated = await upsert({ email: 'a@x.io', name: 'A2' }, ann);
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: created.body.data.id, email: 'a@x.io', name: 'A2', score: 3 });
    const selected = await upsert({ email: 'a@x.io', name: 'A3' }, ann, 'onConflict=email&select=name');
    expect([selected.status, selected.body.data]).toEqual([200, { name: 'A3' }]);
  });

  it('takes an array: each element inserted or updated, in the order sent, all in one statement (201)', async () => {
    await upsert({ email: 'b@x.io', name: 'B' }, ann);
    const response = await upsert(
      [
        { email: 'c@x.io', name: 'C', score: 1 },
        { email: 'b@x.io', name: 'B2', score: 2 },
        { email: null, name: 'no key', score: 3 },
      ],
      ann,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data.map((row: Row) => [row.email, row.name, row.score])).toEqual([
      ['c@x.io', 'C', 1],
      ['b@x.io', 'B2', 2],
      [null, 'no key', 3],
    ]);
  });

  it('refuses a column that is not unique or not there, duplicate keys, elements sending other columns', async () => {
    expect(errorOf(await upsert({ email: 'z@x.io', name: 'Z' }, ann, 'onConflict=name')).details).toEqual({ parameter: 'onConflict' });
    expect(errorOf(await upsert({ email: 'z@x.io', name: 'Z' }, ann, 'onConflict=nope')).details).toEqual({ parameter: 'onConflict' });
    expect(errorOf(await upsert({ name: 'Z' }, ann, 'onConflict=email&onConflict=id')).details).toEqual({ parameter: 'onConflict' });
    const duplicate = await upsert([{ email: 'd@x.io', name: 'D' }, { email: 'e@x.io', name: 'E' }, { email: 'd@x.io', name: 'D2' }], ann);
    expect([duplicate.status, errorOf(duplicate).details]).toEqual([400, { parameter: 'onConflict', index: 2 }]);
    const uneven = await upsert([{ email: 'd@x.io', name: 'D' }, { email: 'e@x.io', name: 'E', score: 1 }], ann);
    expect([uneven.status, errorOf(uneven).details]).toEqual([400, { index: 1, field: 'score' }]);
    const injected = await upsert({ email: 'y@x.io', name: 'Y' }, ann, `onConflict=${encodeURIComponent('email) DO NOTHING; --')}`);
    expect([injected.status, errorOf(injected).details]).toEqual([400, { parameter: 'onConflict' }]);
    expect((await h.request().get('/api/contacts?email[in]=d@x.io,e@x.io,y@x.io').set(ann.auth)).body.total).toBe(0);
  });

  it("is 409 on another user's row under owner-scoped (it cannot be read), writing nothing", async () => {
    await upsert({ email: 'bob@x.io', name: 'Bob' }, bob);
    const refused = await upsert([{ email: 'new@x.io', name: 'N' }, { email: 'bob@x.io', name: 'taken over' }], ann);
    expect([refused.status, errorOf(refused).code, errorOf(refused).details]).toEqual([409, 'CONFLICT', { constraint: 'unique', column: 'contacts.email', index: 1 }]);
    const bobs = await h.request().get('/api/contacts?email=bob@x.io').set(bob.auth);
    expect(bobs.body.data[0].name).toBe('Bob');
    expect((await h.request().get('/api/contacts?email=new@x.io').set(ann.auth)).body.total).toBe(0);
  });

  it('under rules: 403 with index for a readable row the caller may not update, 409 for an unreadable one, checks per element', async () => {
    const cards = (account: Account, body: unknown) => upsert(body, account, 'onConflict=code', 'cards');
    expect((await cards(bob, [{ code: 'shared-1', label: 'shared' }, { code: 'hidden-1', label: 'bob only' }])).status).toBe(201);
    const readable = await cards(ann, [{ code: 'ann-1', label: 'mine' }, { code: 'shared-1', label: 'mine now' }]);
    expect([readable.status, errorOf(readable).details]).toEqual([403, { table: 'cards', policy: 'rules', operation: 'update', index: 1 }]);
    const hidden = await cards(ann, [{ code: 'ann-1', label: 'mine' }, { code: 'hidden-1', label: 'mine now' }]);
    expect([hidden.status, errorOf(hidden).details]).toEqual([409, { constraint: 'unique', column: 'cards.code', index: 1 }]);
    expect((await h.request().get('/api/cards?code=ann-1').set(ann.auth)).body.total).toBe(0);
    const mine = await cards(ann, [{ code: 'ann-1', label: 'mine' }]);
    expect(mine.status).toBe(201);
    const freezing = await cards(ann, [{ code: 'ann-2', label: 'x', frozen: false }, { code: 'ann-1', label: 'y', frozen: true }]);
    expect([freezing.status, errorOf(freezing).details]).toEqual([403, { table: 'cards', policy: 'rules', operation: 'update', check: true, index: 1 }]);
    const forged = await cards(ann, [{ code: 'ann-3', label: 'x', user_id: bob.id }]);
    expect([forged.status, errorOf(forged).details]).toEqual([403, { table: 'cards', policy: 'rules', operation: 'create', index: 0 }]);
    const single = await cards(ann, { code: 'ann-1', label: 'renamed' });
    expect([single.status, single.body.data.label]).toEqual([200, 'renamed']);
  });

  it('works on the owner route and for a CSV-like second unique column of another type', async () => {
    const first = await h.request().post('/admin/tables/contacts/records?onConflict=email').set(owner.auth).send([{ email: 'o@x.io', name: 'O' }]);
    expect(first.status).toBe(201);
    const again = await h.request().post('/admin/tables/contacts/records?onConflict=email').set(owner.auth).send({ email: 'o@x.io', name: 'O2', user_id: ann.id });
    expect([again.status, again.body.data.name, again.body.data.user_id]).toEqual([200, 'O2', ann.id]);
  });
});
