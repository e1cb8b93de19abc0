import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

let h: Harness;
let owner: Account;
let member: Account;
const T = 'items';

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, {
    name: T,
    columns: [
      { name: 'title', type: 'text', nullable: false },
      { name: 'slug', type: 'text', unique: true },
      { name: 'score', type: 'integer' },
      { name: 'ratio', type: 'real' },
      { name: 'done', type: 'boolean', default: false },
      { name: 'dueAt', type: 'timestamp' },
      { name: 'meta', type: 'json' },
      { name: 'user_id', type: 'text' },
    ],
  });
});
afterAll(() => h.close());

const post = (body: unknown, account = member) => h.request().post(`/api/${T}`).set(account.auth).send(body as object);
const put = (id: string, body: unknown, account = member) => h.request().put(`/api/${T}/${id}`).set(account.auth).send(body as object);
const list = (query = '', account = member) => h.request().get(`/api/${T}${query}`).set(account.auth);

describe('create', () => {
  it('answers 201 with the record as stored: generated id, ISO timestamps, coerced values', async () => {
    const response = await post({ title: 'one', score: 3, ratio: 1.5, dueAt: '2030-01-02T03:04:05Z', meta: { tags: ['a'] } });
    expect(response.status).toBe(201);
    const record = response.body.data;
    expect(record.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(record).toMatchObject({ title: 'one', score: 3, ratio: 1.5, done: false, dueAt: '2030-01-02T03:04:05.000Z', meta: { tags: ['a'] }, user_id: member.id });
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect(record.updatedAt).toBe(record.createdAt);
  });

  it('keeps a client-chosen id', async () => {
    const response = await post({ id: 'chosen-id', title: 'x' });
    expect(response.status).toBe(201);
    expect(response.body.data.id).toBe('chosen-id');
  });

  it('accepts epoch milliseconds and plain decimal strings for typed columns', async () => {
    const response = await post({ title: 'typed', dueAt: 0, score: '-12', ratio: '1e3', done: 'true' });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ dueAt: '1970-01-01T00:00:00.000Z', score: -12, ratio: 1000, done: true });
  });

  it.each([
    [{ title: 'x', nope: 1 }, 'nope'],
    [JSON.parse('{"title":"x","__proto__":{"admin":true}}'), '__proto__'],
    [{ title: 'x', constructor: 1 }, 'constructor'],
    [{ title: 'x', prototype: 1 }, 'prototype'],
    [{ title: 'x', createdAt: '2020-01-01T00:00:00Z' }, 'createdAt'],
    [{ title: 'x', updatedAt: '2020-01-01T00:00:00Z' }, 'updatedAt'],
    [{}, 'title'],
    [{ title: null }, 'title'],
    [{ title: 5 }, 'title'],
    [{ title: 'nul \u0000 byte' }, 'title'],
    [{ title: 'x', score: 1.5 }, 'score'],
    [{ title: 'x', score: '0x10' }, 'score'],
    [{ title: 'x', score: '' }, 'score'],
    [{ title: 'x', score: 2147483648 }, 'score'],
    [{ title: 'x', score: true }, 'score'],
    [{ title: 'x', ratio: 'Infinity' }, 'ratio'],
    [{ title: 'x', ratio: 'NaN' }, 'ratio'],
    [{ title: 'x', ratio: '1e309' }, 'ratio'],
    [{ title: 'x', ratio: '' }, 'ratio'],
    [{ title: 'x', done: 'yes' }, 'done'],
    [{ title: 'x', done: 1 }, 'done'],
    [{ title: 'x', dueAt: 'infinity' }, 'dueAt'],
    [{ title: 'x', dueAt: '2024-02-30' }, 'dueAt'],
    [{ title: 'x', dueAt: 'tomorrow' }, 'dueAt'],
    [{ title: 'x', dueAt: 1.5 }, 'dueAt'],
    [{ title: 'x', meta: { bad: 'nul \u0000' } }, 'meta'],
  ])('refuses %j with 400 naming %s, and stores nothing', async (body, field) => {
    const before = await h.services.knex(T).count({ n: '*' }).first();
    const response = await post(body);
    expect(response.status).toBe(400);
    const error = errorOf(response);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(error.message).toContain(field);
    expect(await h.services.knex(T).count({ n: '*' }).first()).toEqual(before);
  });

  it('refuses 1e309 sent as a JSON number (it parses to Infinity)', async () => {
    const response = await h.request().post(`/api/${T}`).set(member.auth).set('Content-Type', 'application/json').send('{"title":"x","ratio":1e309}');
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'ratio' });
  });

  it('answers 409 with the constraint and column for a duplicate unique value or id', async () => {
    expect((await post({ title: 'a', slug: 'taken' })).status).toBe(201);
    const duplicate = await post({ title: 'b', slug: 'taken' });
    expect(duplicate.status).toBe(409);
    expect(errorOf(duplicate)).toMatchObject({ code: 'CONFLICT', details: { constraint: 'unique', column: `${T}.slug` } });
    const sameId = await post({ id: 'chosen-id', title: 'again' });
    expect(sameId.status).toBe(409);
    expect(errorOf(sameId).details).toEqual({ constraint: 'unique', column: `${T}.id` });
    expect(JSON.stringify(duplicate.body)).not.toMatch(/duplicate key|violates|constraint "/);
  });
});

describe('get', () => {
  it('returns the record, and 404 for an unknown id', async () => {
    const created = await post({ title: 'to read' });
    const response = await h.request().get(`/api/${T}/${created.body.data.id}`).set(member.auth);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: created.body.data });
    const missing = await h.request().get(`/api/${T}/nope`).set(member.auth);
    expect(missing.status).toBe(404);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
  });

  it('reads the same record and page with a trailing slash, by HEAD, and with a percent-encoded id', async () => {
    const created = await put(encodeURIComponent('with space/and slash'), { title: 'encoded' });
    expect(created.status).toBe(201);
    const path = `/api/${T}/${encodeURIComponent('with space/and slash')}`;
    const plain = await h.request().get(path).set(member.auth);
    expect(plain.status).toBe(200);
    expect(plain.body.data.id).toBe('with space/and slash');
    expect((await h.request().get(`${path}/`).set(member.auth)).body).toEqual(plain.body);
    const head = await h.request().head(path).set(member.auth);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    const page = await h.request().get(`/api/${T}/?limit=1`).set(member.auth);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect((await h.request().get(`/api/${encodeURIComponent(T)}/${encodeURIComponent('with space/and slash')}`).set(member.auth)).body).toEqual(plain.body);
  });

  it('answers 400 for a path that is not valid percent-encoding, after the credentials', async () => {
    for (const path of [`/api/${T}/%E0%A4%A`, `/api/${T}/%zz`, '/api/%zz', '/api/%zz/1']) {
      const response = await h.request().get(path).set(member.auth);
      expect(response.status, path).toBe(400);
      expect(errorOf(response).code).toBe('VALIDATION_ERROR');
      expect((await h.request().get(path)).status, `${path} without credentials`).toBe(401);
    }
    // The routes Express matches decode their parameters the same way, with the same answer.
    const write = await h.request().put(`/api/${T}/%zz`).set(member.auth).send({ title: 'x' });
    expect(write.status).toBe(400);
    expect(errorOf(write).code).toBe('VALIDATION_ERROR');
  });

  it('answers 404 for paths with more segments, with an empty segment, and for methods the API does not have', async () => {
    for (const path of [`/api/${T}/a/b`, `/api//${T}`, `/api/${T}//`]) {
      const response = await h.request().get(path).set(member.auth);
      expect(response.status, path).toBe(404);
      expect(errorOf(response).code).toBe('NOT_FOUND');
    }
    expect((await h.request().patch(`/api/${T}/x`).set(member.auth).send({})).status).toBe(404);
  });
});

describe('upsert (PUT)', () => {
  it('creates at the path id with 201, then updates only the columns sent with 200', async () => {
    const created = await put('put-1', { title: 'first', score: 1 });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: 'put-1', title: 'first', score: 1 });
    const updated = await put('put-1', { score: 2 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: 'put-1', title: 'first', score: 2 });
    expect(updated.body.data.createdAt).toBe(created.body.data.createdAt);
    expect(new Date(updated.body.data.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.body.data.updatedAt).getTime());
  });

  it('accepts an empty body on an existing record and a body id equal to the path id', async () => {
    await put('put-2', { title: 'x' });
    expect((await put('put-2', {})).status).toBe(200);
    expect((await put('put-2', { id: 'put-2', title: 'y' })).status).toBe(200);
  });

  it('refuses a body id other than the path id', async () => {
    const response = await put('put-3', { id: 'other', title: 'x' });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'id' });
  });

  it('refuses a create that lacks a required column with 400, not 500', async () => {
    const response = await put('put-4', { score: 1 });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'title' } });
    expect(await h.services.knex(T).where({ id: 'put-4' }).first()).toBeUndefined();
  });

  it('validates as strictly as POST', async () => {
    for (const [body, field] of [[{ nope: 1 }, 'nope'], [{ createdAt: 0 }, 'createdAt'], [{ score: 'x' }, 'score'], [{ title: null }, 'title']] as const) {
      const response = await put('put-1', body);
      expect(response.status).toBe(400);
      expect(errorOf(response).details).toEqual({ field });
    }
  });

  it('answers 409 when an update collides with a unique value', async () => {
    await put('put-5', { title: 'x', slug: 'slug-5' });
    await put('put-6', { title: 'x', slug: 'slug-6' });
    const response = await put('put-6', { slug: 'slug-5' });
    expect(response.status).toBe(409);
    expect(errorOf(response).details).toEqual({ constraint: 'unique', column: `${T}.slug` });
  });
});

describe('delete', () => {
  it('answers 200 with the deleted record, then 404', async () => {
    const created = await post({ title: 'doomed' });
    const id = created.body.data.id;
    const deleted = await h.request().delete(`/api/${T}/${id}`).set(member.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: created.body.data });
    expect((await h.request().delete(`/api/${T}/${id}`).set(member.auth)).status).toBe(404);
  });

  it('ignores a body', async () => {
    const created = await post({ title: 'doomed' });
    const response = await h.request().delete(`/api/${T}/${created.body.data.id}`).set(member.auth).send({ anything: true });
    expect(response.status).toBe(200);
  });
});

describe('list', () => {
  let reader: Account;
  beforeAll(async () => {
    reader = await signUp(h);
    for (let i = 0; i < 30; i++) {
      const response = await post(
        {
          id: `row-${String(i).padStart(2, '0')}`,
          title: `title ${i % 3}`,
          score: i % 5,
          ratio: i / 2,
          done: i % 2 === 0,
          dueAt: new Date(Date.UTC(2030, 0, 1 + i)).toISOString(),
          meta: { i },
        },
        reader,
      );
      expect(response.status).toBe(201);
    }
  });
  const ids = (response: { body: { data: Array<{ id: string }> } }) => response.body.data.map((row) => row.id);

  it('defaults to 20 rows ordered by id, with the total of all matching rows', async () => {
    const response = await list('', reader);
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(20);
    expect(response.body.total).toBe(30);
    expect(ids(response)[0]).toBe('row-00');
    expect(ids(response)[19]).toBe('row-19');
  });

  it('pages with limit and offset; limit above 100 is clamped; limit=0 gives only the total', async () => {
    const page = await list('?limit=5&offset=10', reader);
    expect(ids(page)).toEqual(['row-10', 'row-11', 'row-12', 'row-13', 'row-14']);
    expect(page.body.total).toBe(30);
    const clamped = await list('?limit=1000', reader);
    expect(clamped.status).toBe(200);
    expect(clamped.body.data).toHaveLength(30);
    const none = await list('?limit=0', reader);
    expect(none.body).toEqual({ data: [], total: 30, next: null });
    const past = await list('?offset=100', reader);
    expect(past.body).toEqual({ data: [], total: 30, next: null });
  });

  it('orders by one or more columns, id breaking ties', async () => {
    const response = await list('?order=score.desc,title.asc&limit=100', reader);
    const rows = response.body.data as Array<{ id: string; score: number; title: string }>;
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      expect(a.score > b.score || (a.score === b.score && (a.title < b.title || (a.title === b.title && a.id < b.id)))).toBe(true);
    }
    expect(ids(await list('?order=id.desc&limit=2', reader))).toEqual(['row-29', 'row-28']);
  });

  it('filters by equality, coercing to each column type, total counting the matches', async () => {
    const byScore = await list('?score=3&limit=100', reader);
    expect(byScore.body.total).toBe(6);
    expect(byScore.body.data.every((row: { score: number }) => row.score === 3)).toBe(true);
    expect((await list('?done=true&limit=1', reader)).body.total).toBe(15);
    expect((await list('?done=true&score=0', reader)).body.total).toBe(3);
    expect((await list('?ratio=1.5', reader)).body.total).toBe(1);
    expect((await list('?title=title%201', reader)).body.total).toBe(10);
    expect((await list('?dueAt=2030-01-03T00:00:00Z', reader)).body.total).toBe(1);
    expect((await list(`?dueAt=${Date.UTC(2030, 0, 3)}`, reader)).body.total).toBe(1);
    expect((await list('?dueAt=2030-01-03', reader)).body.total).toBe(1);
    expect((await list('?meta=%7B%22i%22%3A%204%7D', reader)).body.total).toBe(1);
  });

  it.each([
    ['?nope=1', 'nope'],
    ['?order=nope.asc', 'order'],
    ['?order=score', 'order'],
    ['?order=score.up', 'order'],
    ['?order=', 'order'],
    ['?limit=-1', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=', 'limit'],
    ['?offset=-5', 'offset'],
    ['?limit=1&limit=2', 'limit'],
    ['?score=1&score=2', 'score'],
    ['?score=abc', 'score'],
    ['?score=1.5', 'score'],
    ['?score=0x10', 'score'],
    ['?score=', 'score'],
    ['?score=99999999999', 'score'],
    ['?ratio=Infinity', 'ratio'],
    ['?ratio=NaN', 'ratio'],
    ['?ratio=1e309', 'ratio'],
    ['?done=1', 'done'],
    ['?done=TRUE', 'done'],
    ['?dueAt=yesterday', 'dueAt'],
    ['?dueAt=infinity', 'dueAt'],
    ['?title=a%00b', 'title'],
    ['?a[b]=1', 'a[b]'],
  ])('refuses %s with 400 naming %s', async (query, parameter) => {
    const response = await list(query, reader);
    expect(response.status).toBe(400);
    const error = errorOf(response);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { parameter } });
    expect(error.message).toContain(parameter);
  });
});

describe('tables', () => {
  it('answers 404 for unknown, reserved and system tables', async () => {
    for (const table of ['nope', 'users', 'sessions', '_policies', '_migrations', '_migrations_lock']) {
      const response = await h.request().get(`/api/${table}`).set(owner.auth);
      expect(response.status, table).toBe(404);
      expect(errorOf(response).code).toBe('NOT_FOUND');
    }
  });

  it('answers 404 for an id that cannot be the id column type', async () => {
    await h.services.knex.raw('CREATE TABLE numbered (id serial primary key, label text)');
    await h.services.cache.reload();
    const created = await h.request().post('/api/numbered').set(owner.auth).send({ label: 'a' });
    expect(created.status).toBe(201);
    expect(created.body.data.id).toBe(1);
    expect((await h.request().get('/api/numbered/1').set(owner.auth)).status).toBe(200);
    expect((await h.request().get('/api/numbered/abc').set(owner.auth)).status).toBe(404);
    expect((await h.request().delete('/api/numbered/1.5').set(owner.auth)).status).toBe(404);
  });

  it('requires a body id for an id column without default that is not text', async () => {
    await h.services.knex.raw('CREATE TABLE keyed (id integer primary key, label text)');
    await h.services.cache.reload();
    const response = await h.request().post('/api/keyed').set(owner.auth).send({ label: 'a' });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'id' });
    expect((await h.request().post('/api/keyed').set(owner.auth).send({ id: 7, label: 'a' })).status).toBe(201);
  });

  it('does not serve a table without an id column', async () => {
    await h.services.knex.raw('CREATE TABLE no_id (name text)');
    await h.services.cache.reload();
    expect((await h.request().get('/api/no_id').set(owner.auth)).status).toBe(404);
  });
});
