import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type BasaltClient } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

// The client's methods for the query language's part 2 (issue 30) against a real server: PATCH, changes by filter,
// upsert on a unique column, aggregates, CSV out and in, each under the table's policy.

let live: Live;
let owner: BasaltClient;
let alice: BasaltClient;
let bob: BasaltClient;
let aliceId: string;

beforeAll(async () => {
  live = await startLive();
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  await owner.admin.tables.create({
    name: 'tasks',
    columns: [
      { name: 'title', type: 'text', nullable: false },
      { name: 'status', type: 'text' },
      { name: 'score', type: 'integer' },
      { name: 'weight', type: 'real' },
      { name: 'done', type: 'boolean', default: false },
      { name: 'due', type: 'timestamp' },
      { name: 'meta', type: 'json' },
      { name: 'user_id', type: 'text' },
    ],
  });
  await owner.admin.tables.create({
    name: 'people',
    columns: [
      { name: 'email', type: 'text', unique: true },
      { name: 'name', type: 'text' },
      { name: 'visits', type: 'integer', default: 0 },
      { name: 'user_id', type: 'text' },
    ],
  });
  alice = live.client();
  aliceId = (await alice.auth.signUp({ email: uniqueEmail('alice'), password: PASSWORD })).user.id;
  bob = live.client();
  await bob.auth.signUp({ email: uniqueEmail('bob'), password: PASSWORD });
});
afterAll(() => live.stop());

/** A fresh set of alice's tasks tagged `tag`, so each test owns its rows. */
async function seed(tag: string, count: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
  return alice.from('tasks').createMany(Array.from({ length: count }, (_, i) => ({ title: `${tag} ${i}`, score: i, ...extra(i) })));
}

const ids = (rows: Record<string, unknown>[]) => rows.map((row) => row.id);

describe('update: PATCH one record', () => {
  it('sets the columns sent, answers the record (or the select), never creates', async () => {
    const [task] = await seed('patch', 1, () => ({ status: 'open' }));
    const id = String(task!.id);
    const updated = await alice.from('tasks').update(id, { status: 'closed' });
    expect(updated).toMatchObject({ id, title: 'patch 0', status: 'closed', score: 0, user_id: aliceId });
    expect(await alice.from('tasks').update(id, { score: 9 }, { select: ['id', 'score'] })).toEqual({ id, score: 9 });
    // An empty patch touches updatedAt only.
    const touched = await alice.from('tasks').update(id, {});
    expect(Date.parse(String(touched.updatedAt))).toBeGreaterThan(Date.parse(String(updated.updatedAt)));
    expect(touched).toMatchObject({ status: 'closed', score: 9 });
    await expect(alice.from('tasks').update('no-such-id', { score: 1 })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(alice.from('tasks').get('no-such-id')).rejects.toBeInstanceOf(ApiError);
    await expect(alice.from('tasks').update(id, { id: 'other' })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'id' } });
    // Another member's record is not there for bob.
    await expect(bob.from('tasks').update(id, { score: 1 })).rejects.toMatchObject({ status: 404 });
    // The owner's route takes it too.
    expect(await owner.admin.from('tasks').update(id, { done: true }, { select: ['done'] })).toEqual({ done: true });
  });
});

describe('updateWhere and deleteWhere: changes by filter', () => {
  it('updates every matching record the caller may change, in one request, and answers them', async () => {
    const rows = await seed('bulk-up', 6);
    const theirs = await bob.from('tasks').create({ title: 'bulk-up bob', score: 1 });
    const changed = await alice.from('tasks').updateWhere({ filter: { title: { like: 'bulk-up*' }, score: { lt: 3 } } }, { status: 'low' });
    expect(new Set(ids(changed))).toEqual(new Set(ids(rows.slice(0, 3))));
    expect(changed.every((row) => row.status === 'low')).toBe(true);
    expect((await bob.from('tasks').get(String(theirs.id))).status).toBeNull();
    // where, ANDed with filter; select narrows the answer.
    const narrowed = await alice.from('tasks').updateWhere({ filter: { title: { like: 'bulk-up*' } }, where: 'score >= 4' }, { status: 'high' }, { select: ['id', 'status'] });
    expect(narrowed.map((row) => Object.keys(row).sort())).toEqual([
      ['id', 'status'],
      ['id', 'status'],
    ]);
    expect(await alice.from('tasks').updateWhere({ filter: { status: 'low' } }, { done: true }, { dryRun: true })).toEqual({ matched: 3 });
    expect((await alice.from('tasks').list({ filter: { status: 'low', done: true } })).total).toBe(0);
  });

  it('changes nothing when more records match than limit, and says how many matched', async () => {
    await seed('bulk-limit', 5);
    const error = await alice
      .from('tasks')
      .updateWhere({ filter: { title: { like: 'bulk-limit*' } } }, { status: 'x' }, { limit: 4 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { parameter: 'limit', matched: 5 } });
    expect((await alice.from('tasks').list({ filter: { title: { like: 'bulk-limit*' }, status: 'x' } })).total).toBe(0);
    await expect(alice.from('tasks').deleteWhere({ filter: { title: { like: 'bulk-limit*' } } }, { limit: 2 })).rejects.toMatchObject({
      status: 400,
      details: { parameter: 'limit', matched: 5 },
    });
    expect(await alice.from('tasks').updateWhere({ filter: { title: { like: 'bulk-limit*' } } }, { status: 'x' }, { limit: 5 })).toHaveLength(5);
  });

  it('needs a condition or all: true', async () => {
    await expect(alice.from('tasks').updateWhere({}, { status: 'every' })).rejects.toMatchObject({ status: 400, details: { parameter: 'filter' } });
    await expect(alice.from('tasks').deleteWhere({ filter: {} })).rejects.toMatchObject({ status: 400, details: { parameter: 'filter' } });
    const carol = live.client();
    await carol.auth.signUp({ email: uniqueEmail('carol'), password: PASSWORD });
    await carol.from('tasks').createMany([{ title: 'c1' }, { title: 'c2' }]);
    // all: true is every record of carol's scope, nobody else's.
    expect(await carol.from('tasks').updateWhere({}, { status: 'mine' }, { all: true, dryRun: true })).toEqual({ matched: 2 });
    expect(await carol.from('tasks').updateWhere({}, { status: 'mine' }, { all: true })).toHaveLength(2);
    expect(await carol.from('tasks').deleteWhere({}, { all: true })).toHaveLength(2);
    expect((await carol.from('tasks').list()).total).toBe(0);
  });

  it('deletes every matching record and answers them as they were; dryRun only counts', async () => {
    const rows = await seed('bulk-del', 4);
    expect(await alice.from('tasks').deleteWhere({ filter: { title: { like: 'bulk-del*' } } }, { dryRun: true })).toEqual({ matched: 4 });
    const deleted = await alice.from('tasks').deleteWhere({ filter: { title: { like: 'bulk-del*' } }, where: 'score < 2' }, { select: ['id', 'title'] });
    expect(deleted.map((row) => row.title).sort()).toEqual(['bulk-del 0', 'bulk-del 1']);
    expect(ids((await alice.from('tasks').list({ filter: { title: { like: 'bulk-del*' } }, order: 'score.asc' })).data)).toEqual(ids(rows.slice(2)));
  });

  it('gives the owner bulk edits of chosen records by id through the admin route', async () => {
    const rows = await seed('chosen', 3);
    const chosen = ids(rows.slice(0, 2)).map(String);
    const changed = await owner.admin.from('tasks').updateWhere({ filter: { id: { in: chosen } } }, { done: true });
    expect(new Set(ids(changed))).toEqual(new Set(chosen));
    const removed = await owner.admin.from('tasks').deleteWhere({ filter: { id: { in: chosen } } });
    expect(removed.map((row) => row.done)).toEqual([true, true]);
    expect((await alice.from('tasks').list({ filter: { title: { like: 'chosen*' } } })).total).toBe(1);
  });
});

describe('upsertBy and upsertManyBy: upsert on a unique column', () => {
  it('creates (201), then updates the record with that key (200) with the columns sent', async () => {
    const people = alice.from('people');
    const first = await people.upsertBy('email', { email: 'ann@example.test', name: 'Ann' });
    expect(first).toEqual({ created: true, record: expect.objectContaining({ email: 'ann@example.test', name: 'Ann', visits: 0, user_id: aliceId }) });
    const second = await people.upsertBy('email', { email: 'ann@example.test', visits: 2 }, { select: ['id', 'name', 'visits'] });
    expect(second).toEqual({ created: false, record: { id: first.record.id, name: 'Ann', visits: 2 } });
    // A null key always inserts.
    expect((await people.upsertBy('email', { email: null, name: 'nobody' })).created).toBe(true);
  });

  it('upserts many in the order sent, all or none', async () => {
    const people = alice.from('people');
    await people.create({ email: 'b@example.test', name: 'B', visits: 5 });
    const rows = await people.upsertManyBy('email', [
      { email: 'c@example.test', name: 'C' },
      { email: 'b@example.test', name: 'B2' },
    ]);
    expect(rows.map((row) => [row.email, row.name, row.visits])).toEqual([
      ['c@example.test', 'C', 0],
      ['b@example.test', 'B2', 5],
    ]);
    await expect(
      people.upsertManyBy('email', [
        { email: 'd@example.test', name: 'D' },
        { email: 'd@example.test', name: 'D again' },
      ]),
    ).rejects.toMatchObject({ status: 400, details: { parameter: 'onConflict', index: 1 } });
    await expect(people.upsertManyBy('email', [{ email: 'e@example.test', name: 'E' }, { email: 'f@example.test' }])).rejects.toMatchObject({
      status: 400,
      details: { index: 1 },
    });
    expect((await people.list({ filter: { email: { in: ['d@example.test', 'e@example.test'] } } })).total).toBe(0);
  });

  it('refuses a column that is not unique, and a key held by a record the caller cannot read', async () => {
    await expect(alice.from('people').upsertBy('name', { name: 'x' })).rejects.toMatchObject({ status: 400, details: { parameter: 'onConflict' } });
    await expect(alice.from('people').upsertBy('nope', { name: 'x' })).rejects.toMatchObject({ status: 400, details: { parameter: 'onConflict' } });
    await bob.from('people').create({ email: 'bobs@example.test', name: 'Bob' });
    await expect(alice.from('people').upsertManyBy('email', [{ email: 'g@example.test' }, { email: 'bobs@example.test' }])).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      details: { index: 1 },
    });
    expect((await alice.from('people').list({ filter: { email: 'g@example.test' } })).total).toBe(0);
    expect((await bob.from('people').list({ filter: { email: 'bobs@example.test' } })).data[0]).toMatchObject({ name: 'Bob' });
  });
});

describe('under access rules', () => {
  beforeAll(async () => {
    await owner.admin.tables.create({ name: 'codes', columns: [{ name: 'code', type: 'text', unique: true }, { name: 'label', type: 'text' }, { name: 'user_id', type: 'text' }] });
    await owner.admin.tables.setRules('codes', {
      read: 'true',
      create: 'user_id = @auth.id',
      update: 'user_id = @auth.id',
      updateCheck: "label != 'forbidden'",
      delete: 'user_id = @auth.id',
    });
  });

  it('refuses an upsert onto a record the caller may read but not update, with its index, writing nothing', async () => {
    await bob.from('codes').create({ code: 'B1', label: 'bob' });
    await expect(alice.from('codes').upsertManyBy('code', [{ code: 'A-new' }, { code: 'B1' }])).rejects.toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      details: { index: 1 },
    });
    expect((await alice.from('codes').list({ filter: { code: 'A-new' } })).total).toBe(0);
    expect((await alice.from('codes').upsertBy('code', { code: 'A1', label: 'alice' })).created).toBe(true);
  });

  it('skips records the caller may read but not change, and refuses all when updateCheck refuses one', async () => {
    await alice.from('codes').createMany([{ code: 'A2', label: 'a' }, { code: 'A3', label: 'a' }]);
    await bob.from('codes').create({ code: 'B2', label: 'a' });
    const query = { filter: { code: { in: ['A2', 'A3', 'B2'] } } };
    expect(await alice.from('codes').updateWhere(query, { label: 'b' }, { dryRun: true })).toEqual({ matched: 2 });
    expect((await alice.from('codes').updateWhere(query, { label: 'b' })).map((row) => row.code).sort()).toEqual(['A2', 'A3']);
    const refused = await alice
      .from('codes')
      .updateWhere(query, { label: 'forbidden' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, details: { id: expect.any(String) } });
    expect((await alice.from('codes').list({ ...query, order: 'code.asc' })).data.map((row) => row.label)).toEqual(['b', 'b', 'a']);
    expect((await alice.from('codes').deleteWhere(query)).map((row) => row.code).sort()).toEqual(['A2', 'A3']);
    expect((await bob.from('codes').get(String((await bob.from('codes').list({ filter: { code: 'B2' } })).data[0]!.id))).label).toBe('a');
  });
});

describe('aggregate and aggregateAll', () => {
  beforeAll(async () => {
    await seed('agg', 6, (i) => ({ status: i < 3 ? 'open' : i < 5 ? 'closed' : null, weight: i / 2, due: new Date(Date.UTC(2030, 0, i + 1)).toISOString() }));
  });

  it('counts, sums, averages and finds extremes per group, filtered before grouping', async () => {
    const tasks = alice.from('tasks');
    const page = await tasks.aggregate(
      { groupBy: ['status'], count: true, sum: { total: 'score' }, avg: { mean: 'score' }, min: { first: 'due' }, max: { heaviest: 'weight', last: 'due' } },
      { filter: { title: { like: 'agg*' } }, order: 'count.desc' },
    );
    expect(page.next).toBeNull();
    expect(page.data).toEqual([
      { status: 'open', count: 3, total: 3, mean: 1, first: '2030-01-01T00:00:00.000Z', heaviest: 1, last: '2030-01-03T00:00:00.000Z' },
      { status: 'closed', count: 2, total: 7, mean: 3.5, first: '2030-01-04T00:00:00.000Z', heaviest: 2, last: '2030-01-05T00:00:00.000Z' },
      { status: null, count: 1, total: 5, mean: 5, first: '2030-01-06T00:00:00.000Z', heaviest: 2.5, last: '2030-01-06T00:00:00.000Z' },
    ]);
    expect(typeof page.data[0]!.count).toBe('number');
    // Without groupBy: one group of every matching row; where applies too.
    expect((await tasks.aggregate({ count: 'n', sum: { total: 'score' } }, { filter: { title: { like: 'agg*' } }, where: 'score >= 2' })).data).toEqual([{ n: 4, total: 14 }]);
  });

  it('pages groups by cursor, bound to the select, and walks them all', async () => {
    const tasks = alice.from('tasks');
    const query = { filter: { title: { like: 'agg*' } }, order: ['status.asc'], limit: 1 } as const;
    const first = await tasks.aggregate({ groupBy: ['status'], count: true }, query);
    expect(first.data).toEqual([{ status: 'closed', count: 2 }]);
    expect(first.next).toEqual(expect.any(String));
    const second = await tasks.aggregate({ groupBy: ['status'], count: true }, { ...query, after: first.next });
    expect(second.data).toEqual([{ status: 'open', count: 3 }]);
    await expect(tasks.aggregate({ groupBy: ['status'], count: 'rows' }, { ...query, after: first.next })).rejects.toMatchObject({ status: 400 });
    const all = [];
    for await (const group of tasks.aggregateAll({ groupBy: ['status'], count: true }, { filter: { title: { like: 'agg*' } }, order: 'status.asc', limit: 1 })) all.push(group);
    expect(all.map((group) => group.count)).toEqual([2, 3, 1]);
  });

  it('answers the mistakes with a 400 naming the parameter', async () => {
    const tasks = alice.from('tasks');
    await expect(tasks.aggregate({ count: 'total', sum: { total: 'score' } })).rejects.toMatchObject({ status: 400, details: { parameter: 'select' } });
    await expect(tasks.aggregate({ sum: { t: 'title' } } as never)).rejects.toMatchObject({ status: 400, details: { parameter: 'select' } });
    // Under the policy: bob's groups hold none of alice's rows.
    const bobs = await bob.from('tasks').aggregate({ count: true }, { filter: { title: { like: 'agg*' } } });
    expect(bobs.data.every((group) => group.count === 0)).toBe(true);
  });
});

describe('exportCsv and importCsv', () => {
  it('exports every page as one CSV text with one header row, cells as the contract writes them', async () => {
    await alice.from('tasks').createMany([
      { title: 'csv a', status: 'csv', score: 1, done: true, meta: { a: [1, 'x'] } },
      { title: '', status: 'csv', score: null, done: false },
      { title: '=HYPERLINK("http://evil")', status: 'csv', score: -3 },
      { title: 'csv "quoted", and\nsplit', status: 'csv', score: 4 },
      { title: '+1', status: 'csv', score: 5 },
    ]);
    const csv = await alice.from('tasks').exportCsv({ filter: { status: 'csv' }, select: ['title', 'score', 'done', 'meta'], order: 'score.asc', limit: 2 });
    const lines = csv.trimEnd().split(/\r?\n/);
    expect(lines[0]).toBe('title,score,done,meta');
    expect(lines.filter((line) => line === 'title,score,done,meta')).toHaveLength(1);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")",-3,false,`);
    expect(csv).toContain(`csv a,1,true,"{""a"":[1,""x""]}"`);
    expect(csv).toContain(`"csv ""quoted"", and\nsplit",4,false,`);
    expect(csv).toContain(`'+1,5,false,`);
    expect(csv).toMatch(/^"",,false,$/m);
    expect(lines).toHaveLength(1 + 5 + 1);
    // Groups as CSV.
    expect(await alice.from('tasks').exportAggregateCsv({ groupBy: ['status'], count: 'n', max: { top: 'score' } }, { filter: { status: 'csv' }, limit: 1 })).toBe('status,n,top\ncsv,5,5\n');
    // The owner's route exports too, past the policy.
    const ownerCsv = await owner.admin.from('tasks').exportCsv({ filter: { title: 'csv a' }, select: ['title', 'user_id'] });
    expect(ownerCsv.trimEnd().split(/\r?\n/)).toEqual(['title,user_id', `csv a,${aliceId}`]);
  });

  it('exports with every column when no select is given, and refuses embeds', async () => {
    const csv = await alice.from('tasks').exportCsv({ filter: { title: 'csv a' } });
    const [header, row] = csv.trimEnd().split(/\r?\n/);
    expect(header!.split(',')).toEqual(expect.arrayContaining(['id', 'title', 'status', 'score', 'weight', 'done', 'due', 'meta', 'user_id', 'createdAt', 'updatedAt']));
    expect(row).toContain('csv a');
    await expect(alice.from('tasks').exportCsv({ select: ['title', { steps: '*' }] } as never)).rejects.toMatchObject({ status: 400, details: { parameter: 'select' } });
  });

  it('imports a CSV text as one bulk insert, absent cells to their defaults, errors by line', async () => {
    const rows = await alice.from('tasks').importCsv('title,score,done,meta,status\nimported 1,7,true,"{""k"":1}",\nimported 2,,,,""\n', { select: ['title', 'score', 'done', 'meta', 'status', 'user_id'] });
    expect(rows).toEqual([
      { title: 'imported 1', score: 7, done: true, meta: { k: 1 }, status: null, user_id: aliceId },
      { title: 'imported 2', score: null, done: false, meta: null, status: '', user_id: aliceId },
    ]);
    await expect(alice.from('tasks').importCsv('title,score\nfine,1\n"two\nlines",2\nbad,notanumber\n')).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: { index: 2, line: 5, field: 'score' },
    });
    await expect(alice.from('tasks').importCsv('title,nope\nx,1\n')).rejects.toMatchObject({ status: 400, details: { field: 'nope' } });
    expect((await alice.from('tasks').list({ filter: { title: 'fine' } })).total).toBe(0);
  });

  it('upserts from CSV with onConflict', async () => {
    await alice.from('people').create({ email: 'csv@example.test', name: 'Before', visits: 1 });
    const rows = await alice.from('people').importCsv('email,name\ncsv@example.test,After\nnew@example.test,New\n', { onConflict: 'email' });
    expect(rows.map((row) => [row.email, row.name, row.visits])).toEqual([
      ['csv@example.test', 'After', 1],
      ['new@example.test', 'New', 0],
    ]);
  });
});

describe('auth.signOut against the server', () => {
  it('forgets the session at once and ends it on the server', async () => {
    const dave = live.client();
    await dave.auth.signUp({ email: uniqueEmail('dave'), password: PASSWORD });
    const session = (await dave.auth.getSession())!;
    await dave.auth.signOut();
    expect(await dave.auth.getSession()).toBeNull();
    const refreshed = await fetch(`${live.server.url}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken: session.refreshToken }) });
    expect(refreshed.status).toBe(401);
  });
});
