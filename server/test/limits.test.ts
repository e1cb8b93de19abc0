import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREPARED_PER_CONNECTION } from '../src/db/preparedPool.js';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Bounds that keep one caller from taking the service down, and requests Node's own parser refuses. */

let h: Harness;
let owner: Account;

beforeAll(async () => {
  // 50 ms: far below a scan of 600,000 rows with a leading-wildcard pattern, far above an indexed lookup.
  h = await startHarness({ statementTimeoutMs: 50, poolSize: 2 });
  owner = await signUp(h);
  await createTable(h, owner, { name: 'big', policy: 'public-read', columns: [{ name: 'body', type: 'text' }, { name: 'n', type: 'integer' }] });
  await h.services.knex.raw(`INSERT INTO big (id, body, n) SELECT 'r' || g, md5(g::text) || md5((g * 7)::text), g FROM generate_series(1, 600000) g`);
  await h.services.knex.raw('CREATE INDEX big_n ON big (n)');
  await h.services.knex.raw('ANALYZE big');
}, 120_000);
afterAll(() => h.close());

/** Sends raw bytes and returns everything the server answers until it closes the connection. */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('STATEMENT_TIMEOUT', () => {
  it('answers 504 TIMEOUT for a statement that runs too long, while everything else goes on being answered', async () => {
    const slow = Array.from({ length: 4 }, () => h.request().get('/api/big?body[ilike]=*zzzz*&count=exact').set(owner.auth));
    const fast = h.request().get('/api/big/r42').set(owner.auth);
    const [answers, quick] = await Promise.all([Promise.all(slow), fast]);
    for (const answer of answers) {
      expect(answer.status).toBe(504);
      expect(errorOf(answer).code).toBe('TIMEOUT');
    }
    expect(quick.status).toBe(200);
    expect((await h.request().get('/api/big?n[lt]=3').set(owner.auth)).body.total).toBe(2);
  });
});

describe('prepared statements', () => {
  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} per connection, however many query shapes arrive`, async () => {
    await createTable(h, owner, { name: 'small', policy: 'public-read', columns: [{ name: 'body', type: 'text' }, { name: 'n', type: 'integer' }] });
    const columns = ['id', 'body', 'n', 'createdAt', 'updatedAt'];
    const orders = columns.flatMap((column) => [`${column}.asc`, `${column}.desc`]);
    let shapes = 0;
    for (const first of orders) {
      for (const second of orders) {
        for (const count of ['exact', 'none', 'estimated'] as const) {
          for (const select of ['*', 'id', 'n,id']) {
            // Two connections: well past twice the bound, so neither could stay under it by sharing the load.
            if (shapes++ > 2 * MAX_PREPARED_PER_CONNECTION + 100) break;
            const response = await h.request().get(`/api/small?limit=1&n[lt]=5&order=${first},${second}&count=${count}&select=${select}`).set(owner.auth);
            expect(response.status).toBe(200);
          }
        }
      }
    }
    const pool = h.services.records.pool.pool;
    const clients = await Promise.all([pool.connect(), pool.connect()]);
    try {
      for (const client of clients) {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
        expect(rows[0]!.n).toBeLessThanOrEqual(MAX_PREPARED_PER_CONNECTION);
      }
    } finally {
      for (const client of clients) client.release();
    }
  });

  it('keeps a connection and its statements through a statement that failed', async () => {
    await createTable(h, owner, { name: 'uniq', columns: [{ name: 'slug', type: 'text', unique: true }] });
    for (let i = 0; i < 3; i++) await h.request().post('/api/uniq').set(owner.auth).send({ slug: 'same' });
    const pool = h.services.records.pool.pool;
    expect(pool.totalCount).toBeLessThanOrEqual(2);
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(rows[0]!.n).toBeGreaterThan(0);
    } finally {
      client.release();
    }
  });
});

describe('requests Node refuses before the app', () => {
  it('answers headers over the limit with 431 in the error envelope', async () => {
    const answer = await raw(`GET /api/big HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers bytes past a body’s Content-Length with 400 in the error envelope', async () => {
    const answer = await raw(`POST /auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}GARBAGE\r\n\r\n`);
    const last = answer.lastIndexOf('HTTP/1.1 ');
    expect(answer.slice(last)).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n', last) + 4)) as { error: { code: string } };
    expect(body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('names and ids', () => {
  it('creates tables whose names are 63 characters long, with owner, unique columns and indexes, even when they share a prefix', async () => {
    for (const last of ['a', 'b']) {
      const name = `${'t'.repeat(62)}${last}`;
      const response = await h.request().post('/admin/tables').set(owner.auth).send({
        name,
        columns: [
          { name: `${'c'.repeat(62)}x`, type: 'text', unique: true },
          { name: `${'c'.repeat(62)}y`, type: 'text', unique: true },
          { name: 'user_id', type: 'text' },
        ],
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const index = await h.request().post(`/admin/tables/${name}/indexes`).set(owner.auth).send({ columns: [`${'c'.repeat(62)}x`, `${'c'.repeat(62)}y`] });
      expect(index.status).toBe(201);
      expect((index.body.data.indexes as Array<{ name: string }>).every((entry) => Buffer.byteLength(entry.name) <= 63)).toBe(true);
    }
  });

  it('refuses an empty id on create, alone or in a bulk insert', async () => {
    await createTable(h, owner, { name: 'keyed', columns: [{ name: 'v', type: 'text' }] });
    expect(errorOf(await h.request().post('/api/keyed').set(owner.auth).send({ id: '', v: 'x' })).details).toEqual({ field: 'id' });
    expect(errorOf(await h.request().post('/api/keyed').set(owner.auth).send([{ v: 'ok' }, { id: '', v: 'x' }])).details).toEqual({ index: 1, field: 'id' });
  });
});

describe('timestamps outside what Postgres and RFC 3339 readers share', () => {
  it('refuses them with a 400 naming the filter or the field, before the database sees them', async () => {
    await createTable(h, owner, { name: 'dated', columns: [{ name: 'at', type: 'timestamp' }] });
    for (const value of ['-8639999999999999', '8639999999999999', '10000-01-01', '+275760-09-12T23:59:59.999Z']) {
      const filter = await h.request().get(`/api/dated?updatedAt=${encodeURIComponent(value)}`).set(owner.auth);
      expect(errorOf(filter).details, value).toEqual({ parameter: 'updatedAt' });
      const ranged = await h.request().get(`/api/dated?at[gte]=${encodeURIComponent(value)}`).set(owner.auth);
      expect(errorOf(ranged).details, value).toEqual({ parameter: 'at[gte]' });
      const body = await h.request().post('/api/dated').set(owner.auth).send({ at: /^-?\d+$/.test(value) ? Number(value) : value });
      expect(errorOf(body).details, value).toEqual({ field: 'at' });
    }
    expect((await h.request().post('/api/dated').set(owner.auth).send({ at: '9999-12-31T23:59:59.999Z' })).status).toBe(201);
  });
});
