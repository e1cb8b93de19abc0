import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test-support/database.js';
import { PreparedPool } from './preparedPool.js';

/**
 * The record pool on a real Postgres, as a transaction pooler needs it (issue 25): statements evicted by the
 * protocol's Close (never SQL DEALLOCATE), and in transaction mode the timeout set in each statement's own
 * transaction instead of a startup parameter, leaving nothing behind on the connection.
 */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const onePool = () => new pg.Pool({ connectionString: database.url, max: 1 });
const prepared = async (pool: pg.Pool) => {
  const client = await pool.connect();
  try {
    return (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((row) => row.name);
  } finally {
    client.release();
  }
};

describe('PreparedPool', () => {
  it('keeps at most its bound of statements per connection, closing the least recently used by the protocol', async () => {
    const pool = onePool();
    const records = new PreparedPool(pool, 2);
    try {
      for (const n of [1, 2, 3, 1, 4]) {
        const result = await records.query({ name: `s${n}`, text: `SELECT ${n}::int AS n` });
        expect(result.rows).toEqual([{ n }]);
      }
      // s1 was used again after s3, so s2 and then s3 went: the server forgot them too.
      expect(await prepared(pool)).toEqual(['s1', 's4']);
      // A closed name is prepared again when it comes back.
      expect((await records.query({ name: 's2', text: 'SELECT 2::int AS n' })).rows).toEqual([{ n: 2 }]);
      expect(await prepared(pool)).toEqual(['s2', 's4']);
    } finally {
      await pool.end();
    }
  });

  it('in transaction mode sets the timeout for each statement alone, and keeps the connection after a failure', async () => {
    const pool = onePool();
    const records = new PreparedPool(pool, 10, 150);
    try {
      const slow = records.query({ name: 'slow', text: 'SELECT pg_sleep(1)' });
      await expect(slow).rejects.toMatchObject({ code: '57014' });
      expect((await records.query({ name: 'timeout', text: "SELECT current_setting('statement_timeout') AS t" })).rows).toEqual([{ t: '150ms' }]);
      // Nothing stays on the session: outside the pool's transactions the server's default applies.
      const client = await pool.connect();
      try {
        expect((await client.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).rows[0]!.t).toBe('0');
        expect((await client.query<{ s: boolean }>('SELECT now() = statement_timestamp() AS s')).rows[0]!.s).toBe(true);
      } finally {
        client.release();
      }
      await expect(records.query({ name: 'bad', text: 'SELECT 1/0' })).rejects.toMatchObject({ code: '22012' });
      expect((await records.query({ name: 'after', text: 'SELECT 1::int AS n' })).rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
