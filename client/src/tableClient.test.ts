import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import type { FetchLike } from './http.js';

/** A client whose requests are answered in turn by `answers`; `calls` keeps what was sent. */
function clientAnswering(...answers: (() => Response)[]) {
  const calls: { method: string; url: URL; headers: Record<string, string>; body: unknown }[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ method: init?.method ?? 'GET', url: new URL(url), headers: init?.headers as Record<string, string>, body: init?.body });
    const answer = answers[calls.length - 1];
    if (!answer) throw new Error(`no answer for request ${calls.length}`);
    return answer();
  };
  return { calls, client: createClient('http://api.test', 'anon', { fetch, storage: false, autoRefresh: false }) };
}

const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status });
const csv = (text: string, link?: string) => () => new Response(text, { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8', ...(link ? { link } : {}) } });

describe('TableClient, query language part 2 (requests and answers)', () => {
  it('exports every page of CSV by following Link rel=next, one header', async () => {
    const { calls, client } = clientAnswering(
      csv('id,title\n1,a\n', '<http://elsewhere.test/api/t?select=id%2Ctitle&after=c1>; rel="next"'),
      csv('id,title\n2,b\n', '<http://elsewhere.test/api/t?after=c2>; rel="next"'),
      csv('id,title\n3,c\n'),
    );
    const text = await client.from('t').exportCsv({ filter: { done: false }, select: ['id', 'title'], order: 'title.asc', limit: 1 });
    expect(text).toBe('id,title\n1,a\n2,b\n3,c\n');
    expect(calls.map((call) => [call.url.origin + call.url.pathname, call.url.searchParams.get('after'), call.headers.accept])).toEqual([
      ['http://api.test/api/t', null, 'text/csv'],
      ['http://api.test/api/t', 'c1', 'text/csv'],
      ['http://api.test/api/t', 'c2', 'text/csv'],
    ]);
    expect(Object.fromEntries(calls[1]!.url.searchParams)).toEqual({ limit: '1', order: 'title.asc', select: 'id,title', after: 'c1', count: 'none', done: 'false' });
  });

  it('exports the groups of an aggregate as CSV, every page', async () => {
    const { calls, client } = clientAnswering(csv('status,n\nopen,2\n', '</api/t?after=g1>; rel="next"'), csv('status,n\nclosed,1\n'));
    expect(await client.from('t').exportAggregateCsv({ groupBy: ['status'], count: 'n' }, { order: 'n.desc' })).toBe('status,n\nopen,2\nclosed,1\n');
    expect(calls.map((call) => decodeURIComponent(call.url.search))).toEqual(['?limit=100&order=n.desc&select=status,n:count()', '?limit=100&order=n.desc&select=status,n:count()&after=g1']);
  });

  it('imports CSV as text/csv and answers the rows; onConflict makes it an upsert', async () => {
    const { calls, client } = clientAnswering(json(201, { data: [{ id: '1', email: 'a@x' }] }));
    const rows = await client.from('people').importCsv('email\na@x\n', { onConflict: 'email' });
    expect(rows).toEqual([{ id: '1', email: 'a@x' }]);
    expect(calls[0]).toMatchObject({ method: 'POST', headers: { 'content-type': 'text/csv', accept: 'application/json' }, body: 'email\na@x\n' });
    expect(calls[0]!.url.search).toBe('?onConflict=email');
  });

  it('tells an upsert that created (201) from one that updated (200)', async () => {
    const { calls, client } = clientAnswering(json(201, { data: { id: '1' } }), json(200, { data: { id: '1' } }), json(201, { data: [{ id: '1' }, { id: '2' }] }));
    const people = client.from('people');
    expect(await people.upsertBy('email', { email: 'a@x' }, { select: ['id'] })).toEqual({ record: { id: '1' }, created: true });
    expect(await people.upsertBy('email', { email: 'a@x' })).toEqual({ record: { id: '1' }, created: false });
    expect(await people.upsertManyBy('email', [{ email: 'a@x' }, { email: 'b@x' }])).toHaveLength(2);
    expect(calls.map((call) => call.url.search)).toEqual(['?select=id&onConflict=email', '?onConflict=email', '?onConflict=email']);
  });

  it('patches one record, and changes or deletes by filter with the guards as parameters', async () => {
    const { calls, client } = clientAnswering(json(200, { data: { id: 'a', done: true } }), json(200, { data: [{ id: 'a' }] }), json(200, { data: { matched: 4 } }));
    const todos = client.from('todos');
    await todos.update('a/b', { done: true }, { select: ['id', 'done'] });
    await todos.updateWhere({ filter: { score: { lt: 3 } } }, { done: true }, { limit: 10 });
    expect(await todos.deleteWhere({ where: 'score > 1' }, { dryRun: true })).toEqual({ matched: 4 });
    expect(calls.map((call) => `${call.method} ${call.url.pathname}${decodeURIComponent(call.url.search)}`)).toEqual([
      'PATCH /api/todos/a%2Fb?select=id,done',
      'PATCH /api/todos?limit=10&score[lt]=3',
      'DELETE /api/todos?filter=score+>+1&dryRun=true',
    ]);
    expect(calls[1]!.body).toBe('{"done":true}');
  });

  it('asks for aggregates as a select and follows next through every page of groups', async () => {
    const { calls, client } = clientAnswering(json(200, { data: [{ status: 'a', count: 2 }], next: 'g1' }), json(200, { data: [{ status: 'b', count: 1 }], next: null }));
    const groups = [];
    for await (const group of client.from('todos').aggregateAll({ groupBy: ['status'], count: true }, { order: 'count.desc' })) groups.push(group);
    expect(groups).toEqual([{ status: 'a', count: 2 }, { status: 'b', count: 1 }]);
    expect(calls.map((call) => decodeURIComponent(call.url.search))).toEqual(['?limit=100&order=count.desc&select=status,count()', '?limit=100&order=count.desc&select=status,count()&after=g1']);
  });
});
