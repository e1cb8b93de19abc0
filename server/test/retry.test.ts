import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * A record statement Postgres aborts as a deadlock's victim (40P01: triggers going on a table being written to can
 * cause one) or on a serialization failure (40001) rolled back whole: it runs once more, and if that fails too the
 * caller gets 503, never a 500. Real errors with those codes come from a trigger on a real table.
 */

let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  const sql = await h.sql();
  await sql.query(`CREATE TABLE flaky (id text PRIMARY KEY DEFAULT md5(random()::text), label text)`);
  await sql.query(`CREATE SEQUENCE flaky_tries`);
  // Fails the first insert (and, for label 'always', every one) with the code the label names.
  await sql.query(`CREATE FUNCTION flaky_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.label LIKE 'always%' OR nextval('flaky_tries') = 1 THEN
        RAISE EXCEPTION 'secret trigger text' USING ERRCODE = CASE WHEN NEW.label LIKE '%serial' THEN '40001' ELSE '40P01' END;
      END IF;
      RETURN NEW;
    END $$`);
  await sql.query(`CREATE TRIGGER flaky_fail BEFORE INSERT ON flaky FOR EACH ROW EXECUTE FUNCTION flaky_fail()`);
  await h.services.cache.reload();
  await h.services.placement.settled();
  await h.services.counting.settled();
});
afterAll(() => h?.close());

describe('a write that lost a deadlock', () => {
  it('is run once more and succeeds, written once', async () => {
    const response = await h.request().post('/api/flaky').set(owner.auth).send({ label: 'once' });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const list = await h.request().get('/api/flaky').set(owner.auth);
    expect(list.body.data.map((row: { label: string }) => row.label)).toEqual(['once']);
  });

  it('answers 503 UNAVAILABLE when it loses again, for deadlocks and serialization failures alike', async () => {
    for (const label of ['always', 'always serial']) {
      const response = await h.request().post('/api/flaky').set(owner.auth).send({ label });
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('UNAVAILABLE');
      expect(JSON.stringify(response.body)).not.toContain('secret trigger text');
    }
    expect((await h.request().get('/api/flaky').set(owner.auth)).body.total).toBe(1);
  });
});
