import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { testAdminUrl } from '../../test-support/postgres.js';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** What the service answers when the database refuses or goes away: the envelope, never driver text. */
let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  await createTable(h, owner, { name: 'guarded', columns: [{ name: 'qty', type: 'integer' }, { name: 'label', type: 'text' }] });
  await h.services.knex.raw(`ALTER TABLE guarded ADD CONSTRAINT qty_positive CHECK (qty > 0)`);
  await h.services.knex.raw(`
    CREATE FUNCTION guarded_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.label = 'boom' THEN RAISE EXCEPTION 'secret internal detail from the database'; END IF;
      RETURN NEW;
    END $$`);
  await h.services.knex.raw(`CREATE TRIGGER guarded_refuse BEFORE INSERT ON guarded FOR EACH ROW EXECUTE FUNCTION guarded_refuse()`);
  await h.services.cache.reload();
});
afterAll(() => h.close());

describe('database errors', () => {
  it('translates a check constraint into 400 naming nothing the driver said', async () => {
    const response = await h.request().post('/api/guarded').set(owner.auth).send({ qty: -1 });
    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(response.body)).not.toMatch(/violates|qty_positive|constraint "/);
  });

  it('answers an unknown database error with a generic 500', async () => {
    const response = await h.request().post('/api/guarded').set(owner.auth).send({ qty: 1, label: 'boom' });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Something went wrong on the server' } });
  });
});

describe('when the database goes away', () => {
  it('answers 503 UNAVAILABLE on /health and on requests, and recovers when it is back', async () => {
    const admin = new pg.Client({ connectionString: testAdminUrl() });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${h.database.name}" WITH ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [h.database.name]);
      const health = await h.request().get('/health');
      expect(health.status).toBe(503);
      expect(errorOf(health).code).toBe('UNAVAILABLE');
      const list = await h.request().get('/api/guarded').set(owner.auth);
      expect(list.status).toBe(503);
      expect(errorOf(list)).toEqual({ code: 'UNAVAILABLE', message: expect.any(String) });
    } finally {
      await admin.query(`ALTER DATABASE "${h.database.name}" WITH ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    // Back within moments (behind PgBouncer, within its server_login_retry), with nothing restarted.
    await expect.poll(async () => (await h.request().get('/health')).status, { timeout: 5_000, interval: 100 }).toBe(200);
    expect((await h.request().get('/api/guarded').set(owner.auth)).status).toBe(200);
  });
});
