import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';

/** Aggregates in `select` (API.md, "Query language, part 2"): groups, aliases, order, cursors, types, rules. */

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
    name: 'tickets',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'status', type: 'text' },
      { name: 'score', type: 'integer' },
      { name: 'weight', type: 'real' },
      { name: 'meta', type: 'json' },
      { name: 'dueAt', type: 'timestamp' },
    ],
  });
  const rows = (statuses: Array<[string | null, number | null, string]>) => statuses.map(([status, score, dueAt]) => ({ status, score, weight: score === null ? null : score / 2, dueAt }));
  await h
    .request()
    .post('/api/tickets')
    .set(ann.auth)
    .send(
      rows([
        ['open', 1, '2030-01-01T00:00:00.000Z'],
        ['open', 2, '2030-01-02T00:00:00.000Z'],
        ['open', 6, '2030-01-03T00:00:00.000Z'],
        ['done', 4, '2030-02-01T00:00:00.000Z'],
        ['wip', null, '2030-03-01T00:00:00.000Z'],
        [null, 3, '2030-04-01T00:00:00.000Z'],
      ]),
    )
    .expect(201);
  await h.request().post('/api/tickets').set(bob.auth).send(rows([['open', 100, '2031-01-01T00:00:00.000Z']])).expect(201);
});
afterAll(() => h.close());

const list = (query: string, account: Account = ann) => h.request().get(`/api/tickets?${query}`).set(account.auth);

describe('aggregates', () => {
  it('groups by the plain columns, counts, sums, averages, mins and maxes, under the caller\'s scope', async () => {
    const response = await list('select=status,count(),total:sum(score),avg(score),min(dueAt),max(score)');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).not.toHaveProperty('total');
    expect(response.body.next).toBeNull();
    expect(response.body.data).toEqual([
      { status: 'done', count: 1, total: 4, avg: 4, min: '2030-02-01T00:00:00.000Z', max: 4 },
      { status: 'open', count: 3, total: 9, avg: 3, min: '2030-01-01T00:00:00.000Z', max: 6 },
      { status: 'wip', count: 1, total: null, avg: null, min: '2030-03-01T00:00:00.000Z', max: null },
      { status: null, count: 1, total: 3, avg: 3, min: '2030-04-01T00:00:00.000Z', max: 3 },
    ]);
    const whole = await list('select=count(),sum(weight)');
    expect(whole.body.data).toEqual([{ count: 6, sum: 8 }]);
    const everyone = await h.request().get('/admin/tables/tickets/records?select=count()&status=open').set(owner.auth);
    expect(everyone.body.data).toEqual([{ count: 4 }]);
  });

  it('applies filters before grouping, orders by an alias, pages by cursor over groups', async () => {
    const ordered = await list('select=state:status,n:count()&order=n.desc&score[gte]=1');
    expect(ordered.body.data.map((row: Row) => [row.state, row.n])).toEqual([
      ['open', 3],
      ['done', 1],
      [null, 1],
    ]);
    const seen: Row[] = [];
    let after = '';
    for (let page = 0; page < 5; page++) {
      const response = await list(`select=status,count()&order=count.desc&limit=1${after}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...response.body.data);
      if (!response.body.next) break;
      after = `&after=${encodeURIComponent(response.body.next)}`;
    }
    expect(seen.map((row) => row.status)).toEqual(['open', 'done', 'wip', null]);
    const first = await list('select=status,count()&limit=1');
    const moved = await list(`select=status,sum(score)&limit=1&after=${encodeURIComponent(first.body.next)}`);
    expect([moved.status, errorOf(moved).details]).toEqual([400, { parameter: 'after' }]);
  });

  it('refuses what aggregates cannot do: count=, embeds, wrong types, clashing names, order by a non-key, singles and writes', async () => {
    const refusals: Array<[string, string]> = [
      ['select=status,count()&count=exact', 'count'],
      ['select=status,sum(status)', 'select'],
      ['select=status,avg(dueAt)', 'select'],
      ['select=min(meta)', 'select'],
      ['select=count(),count()', 'select'],
      ['select=sum(score),sum(weight)', 'select'],
      ['select=count(score)', 'select'],
      ['select=*,count()', 'select'],
      ['select=status,count()&order=score.asc', 'order'],
      ['select=status,nope()', 'select'],
      ['select=status,sum(nope)', 'select'],
      ['select=x:status', 'select'],
    ];
    for (const [query, parameter] of refusals) {
      const response = await list(query);
      expect([query, response.status, errorOf(response).details?.parameter]).toEqual([query, 400, parameter]);
    }
    const id = (await list('limit=1')).body.data[0].id as string;
    expect(errorOf(await h.request().get(`/api/tickets/${id}?select=count()`).set(ann.auth)).details).toEqual({ parameter: 'select' });
    expect(errorOf(await h.request().post('/api/tickets?select=count()').set(ann.auth).send({ status: 'x' })).details).toEqual({ parameter: 'select' });
    expect(errorOf(await h.request().patch('/api/tickets?status=x&select=count()').set(ann.auth).send({})).details).toEqual({ parameter: 'select' });
    const stream = await h.request().get('/realtime/tickets?select=count()').set(ann.auth);
    expect([stream.status, errorOf(stream).details]).toEqual([400, { parameter: 'select' }]);
  });

  it('quotes aliases and names: injection in aliases and aggregate names is a 400 or a literal name, never SQL', async () => {
    const attempts = [
      `select=${encodeURIComponent('"x":count()')}`,
      `select=${encodeURIComponent('a;drop table tickets:count()')}`,
      `select=${encodeURIComponent('count() FROM users --')}`,
      `select=${encodeURIComponent('sum(score)::text')}`,
      `select=${encodeURIComponent('sum(score); DELETE FROM tickets')}`,
      `select=${encodeURIComponent('status,count(*)')}`,
      `select=${encodeURIComponent('pg_sleep(1)')}`,
    ];
    for (const query of attempts) {
      const response = await list(query);
      expect([query, response.status]).toEqual([query, 400]);
      expect(JSON.stringify(response.body)).not.toMatch(/syntax error|at character|SQLSTATE|INTERNAL/i);
    }
    const weird = await list(`select=${encodeURIComponent('_x1:count()')}`);
    expect(weird.body.data).toEqual([{ _x1: 6 }]);
    expect((await list('select=count()')).body.data).toEqual([{ count: 6 }]);
    // json (jsonb) groups by value.
    expect((await list('select=meta,count()')).body.data).toEqual([{ meta: null, count: 6 }]);
  });

  it('runs under rules and for anon as the read rule allows', async () => {
    await h.request().patch('/admin/tables/tickets').set(owner.auth).send({ policy: 'rules', rules: { read: "status = 'open'", create: 'false', update: 'false', delete: 'false' } }).expect(200);
    const response = await h.request().get('/api/tickets?select=status,count()').set(anonHeaders(h));
    expect(response.body.data).toEqual([{ status: 'open', count: 4 }]);
    await h.request().patch('/admin/tables/tickets').set(owner.auth).send({ policy: 'owner-scoped' }).expect(200);
  });
});
