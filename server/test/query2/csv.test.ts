import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from '../harness.js';

/** CSV out (`Accept: text/csv`) and in (`Content-Type: text/csv`): API.md, "Part 2 in detail", Query language, part 2. */

let h: Harness;
let owner: Account;
let ann: Account;

type Row = Record<string, unknown>;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  await createTable(h, owner, {
    name: 'sheet',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'label', type: 'text' },
      { name: 'n', type: 'integer', default: 5 },
      { name: 'ok', type: 'boolean' },
      { name: 'at', type: 'timestamp' },
      { name: 'meta', type: 'json' },
      { name: 'email', type: 'text', unique: true },
    ],
  });
});
afterAll(() => h.close());

const csvGet = (query: string, account: Account = ann, accept = 'text/csv') => h.request().get(`/api/sheet?${query}`).set(account.auth).set('Accept', accept).buffer(true).parse((res, done) => {
  let text = '';
  res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  res.on('end', () => done(null, text));
});
const csvPost = (text: string, query = '', account: Account = ann) => h.request().post(`/api/sheet${query}`).set(account.auth).set('Content-Type', 'text/csv').send(text);

describe('CSV out', () => {
  it('answers a page as RFC 4180 CSV with typed cells, formula cells neutralised, the total and the next page', async () => {
    const rows = [
      { label: '=HYPERLINK("http://evil")', n: -3, ok: true, at: '2030-01-02T03:04:05.678Z', meta: { a: [1, 'x,y'] } },
      { label: '', n: 0, ok: false, meta: '+cmd' },
      { label: 'line\nbreak, "quoted"', n: 7, ok: null, meta: -5 },
      { label: '@SUM(A1)', n: 1 },
      { label: '\tTab', n: 2 },
      { label: null, n: 3 },
    ];
    await h.request().post('/api/sheet').set(ann.auth).send(rows).expect(201);
    const response = await csvGet('select=label,n,ok,at,meta&order=n.asc&limit=4');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['x-total-count']).toBe('6');
    const text = response.body as string;
    expect(text.split('\n')[0]).toBe('label,n,ok,at,meta');
    const records = parse(text, { columns: true }) as Row[];
    expect(records).toEqual([
      { label: `'=HYPERLINK("http://evil")`, n: '-3', ok: 'true', at: '2030-01-02T03:04:05.678Z', meta: '{"a":[1,"x,y"]}' },
      { label: '', n: '0', ok: 'false', at: '', meta: '"+cmd"' },
      { label: `'@SUM(A1)`, n: '1', ok: '', at: '', meta: '' },
      { label: `'\tTab`, n: '2', ok: '', at: '', meta: '' },
    ]);
    // The empty string is quoted, null is not.
    expect(text).toContain('\n"",0,false,,');
    const link = response.headers.link as string;
    expect(link).toMatch(/^<\/api\/sheet\?select=label%2Cn%2Cok%2Cat%2Cmeta&order=n.asc&limit=4&after=[^>]+>; rel="next"$/);
    const next = await csvGet(link.slice(link.indexOf('?') + 1, link.indexOf('>')));
    const rest = parse(next.body as string, { columns: true }) as Row[];
    expect(rest.map((row) => row.n)).toEqual(['3', '7']);
    expect(rest[1]).toMatchObject({ label: 'line\nbreak, "quoted"', meta: `'-5` });
    expect(next.headers.link).toBeUndefined();
  });

  it('has every column in table order without select, no X-Total-Count under count=none, JSON unless CSV is preferred', async () => {
    const whole = await csvGet('count=none&limit=1');
    expect((whole.body as string).split('\n')[0]).toBe('id,user_id,label,n,ok,at,meta,email,createdAt,updatedAt');
    expect(whole.headers['x-total-count']).toBeUndefined();
    const json = await h.request().get('/api/sheet?limit=1').set(ann.auth).set('Accept', 'application/json, text/csv;q=0.5');
    expect(json.headers['content-type']).toMatch(/application\/json/);
    const star = await h.request().get('/api/sheet?limit=1').set(ann.auth).set('Accept', '*/*');
    expect(star.headers['content-type']).toMatch(/application\/json/);
    const empty = await csvGet('label=nothing-matches');
    expect(empty.body).toBe('id,user_id,label,n,ok,at,meta,email,createdAt,updatedAt\n');
  });

  it('refuses embeds with CSV (400 naming select, in the JSON envelope), exports aggregates and the owner route', async () => {
    await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'sheet_id', type: 'text', references: { table: 'sheet' } }] });
    const embedded = await h.request().get('/api/sheet?select=id,notes(id)').set(ann.auth).set('Accept', 'text/csv');
    expect([embedded.status, errorOf(embedded).details]).toEqual([400, { parameter: 'select' }]);
    const groups = await csvGet('select=ok,count()&order=ok.asc');
    expect(groups.body).toBe('ok,count\nfalse,1\ntrue,1\n,4\n');
    expect(groups.headers['x-total-count']).toBeUndefined();
    const admin = await h.request().get('/admin/tables/sheet/records?select=n&order=n.desc&limit=1').set(owner.auth).set('Accept', 'text/csv');
    expect(admin.text).toBe('n\n7\n');
  });
});

describe('CSV in', () => {
  it('inserts every record, an empty unquoted cell meaning the default and "" the empty string, cells read as their types', async () => {
    const text = 'label,n,ok,at,meta,email\r\nfirst,,true,2030-05-06T07:08:09.000Z,"{""k"":1}",a@csv.io\r\n"",12,false,,[1],\r\n"multi\nline",3,,,,c@csv.io\r\n';
    const response = await csvPost(text);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data.map((row: Row) => [row.label, row.n, row.ok, row.at, row.meta, row.email, row.user_id])).toEqual([
      ['first', 5, true, '2030-05-06T07:08:09.000Z', { k: 1 }, 'a@csv.io', ann.id],
      ['', 12, false, null, [1], null, ann.id],
      ['multi\nline', 3, null, null, null, 'c@csv.io', ann.id],
    ]);
  });

  it('names the record, its line and the field of an error, and writes nothing', async () => {
    const bad = await csvPost('label,n\nok,1\n"two\nlines",2\nthree,not-a-number\n');
    expect([bad.status, errorOf(bad).details]).toEqual([400, { index: 2, line: 5, field: 'n' }]);
    const unknown = await csvPost('label,nope\nx,1\n');
    expect([unknown.status, errorOf(unknown).details]).toEqual([400, { field: 'nope', line: 1 }]);
    const ragged = await csvPost('label,n\nx,1\ny,2,3\n');
    expect([ragged.status, errorOf(ragged).details]).toMatchObject([400, { field: 'body', line: 3 }]);
    const badJson = await csvPost('label,meta\n\nx,{nope\n');
    expect([badJson.status, errorOf(badJson).details]).toEqual([400, { index: 0, field: 'meta', line: 3 }]);
    const headerOnly = await csvPost('label,n\n');
    expect(headerOnly.status).toBe(400);
    const duplicate = await csvPost('label,n\nx,1\n', '');
    expect(duplicate.status).toBe(201);
    const conflict = await csvPost('label,email\nx,dup@csv.io\ny,dup@csv.io\n');
    expect([conflict.status, errorOf(conflict).details]).toMatchObject([409, { index: 1, line: 3 }]);
    expect((await h.request().get('/api/sheet?label=three').set(ann.auth)).body.total).toBe(0);
  });

  it('keeps injection in cells as data: formulas, SQL and quotes are stored as sent', async () => {
    const cells = ["'; DROP TABLE sheet; --", '=1+1', 'Robert"); DELETE FROM users;--'];
    const text = `label\n${cells.map((cell) => `"${cell.replaceAll('"', '""')}"`).join('\n')}\n`;
    const response = await csvPost(text);
    expect(response.status).toBe(201);
    expect(response.body.data.map((row: Row) => row.label)).toEqual(cells);
    expect((await h.request().get('/api/sheet?limit=1').set(ann.auth)).status).toBe(200);
  });

  it('upserts with onConflict, and takes the owner route', async () => {
    const first = await csvPost('email,label\nup@csv.io,one\n', '?onConflict=email');
    expect(first.status).toBe(201);
    const again = await csvPost('email,label\nup@csv.io,two\nnew@csv.io,three\n', '?onConflict=email');
    expect([again.status, again.body.data.map((row: Row) => row.label)]).toEqual([201, ['two', 'three']]);
    const admin = await h.request().post('/admin/tables/sheet/records').set(owner.auth).set('Content-Type', 'text/csv').send(`label,user_id\nby owner,${ann.id}\n`);
    expect([admin.status, admin.body.data[0].user_id]).toEqual([201, ann.id]);
    const notCsvWhereObject = await h.request().put('/api/sheet/x').set(ann.auth).set('Content-Type', 'text/csv').send('label\nx\n');
    expect(notCsvWhereObject.status).toBe(400);
  });
});
