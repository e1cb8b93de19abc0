import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { eventually } from '../../test-support/wait.js';
import { anonHeaders, signUp, startHarness, type Account, type Harness } from './harness.js';

describe('the schema cache', () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  let owner: Account;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Two service instances on one database, each with its own cache and listener, as two processes would be.
    a = await startHarness({ database });
    b = await startHarness({ database });
    owner = await signUp(a);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  it('serves a table created with psql at once (event trigger on ddl_command_end)', async () => {
    await a.services.knex.raw('CREATE TABLE from_psql (id text primary key, label text)');
    await eventually(async () => {
      expect((await a.request().get('/api/from_psql').set(owner.auth)).status).toBe(200);
      expect((await b.request().get('/api/from_psql').set(owner.auth)).status).toBe(200);
    });
  });

  it("reloads on NOTIFY basalt, 'reload schema' where no event trigger is installed", async () => {
    // The psql table above gets its capture and counting triggers and its first count in the background, and each
    // step notifies a reload: let that finish, or its notification would tell the caches about the next table.
    await eventually(async () => {
      for (const h of [a, b]) {
        expect(h.services.cache.served('from_psql')).toMatchObject({ captured: true, counted: true });
        await h.services.counting.settled();
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await a.services.knex.raw('DROP EVENT TRIGGER IF EXISTS _basalt_ddl_notify');
    await a.services.knex.raw('CREATE TABLE quiet (id text primary key)');
    // Without the trigger nothing tells the caches: the table stays unknown...
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await b.request().get('/api/quiet').set(owner.auth)).status).toBe(404);
    // ...until someone sends the notification.
    await a.services.knex.raw(`NOTIFY basalt, 'reload schema'`);
    await eventually(async () => {
      expect((await b.request().get('/api/quiet').set(owner.auth)).status).toBe(200);
    });
  });

  it('carries a policy change made through one instance to the other', async () => {
    const created = await a.request().post('/admin/tables').set(owner.auth).send({ name: 'shared', columns: [{ name: 'title', type: 'text' }], policy: 'private' });
    expect(created.status).toBe(201);
    await eventually(async () => {
      expect((await b.request().get('/api/shared').set(anonHeaders(b))).status).toBe(403);
    });
    await a.request().patch('/admin/tables/shared').set(owner.auth).send({ policy: 'public-read' });
    await eventually(async () => {
      expect((await b.request().get('/api/shared').set(anonHeaders(b))).status).toBe(200);
    });
  });

  it('forgets a dropped table', async () => {
    await a.request().delete('/admin/tables/shared').set(owner.auth);
    await eventually(async () => {
      expect((await b.request().get('/api/shared').set(owner.auth)).status).toBe(404);
    });
  });
});

describe('the schema version guard, without any notification', () => {
  let database: TestDatabase;
  let a: Harness;
  let deaf: Harness;
  let owner: Account;
  let member: Account;

  beforeAll(async () => {
    database = await createTestDatabase();
    a = await startHarness({ database });
    // This instance never hears NOTIFY: only the version its statements carry can tell it the schema moved.
    deaf = await startHarness({ database, listen: false });
    owner = await signUp(a);
    member = await signUp(a);
  });
  afterAll(async () => {
    await a.close();
    await deaf.close();
    await database.drop();
  });

  it('serves a table created through another process on the next request', async () => {
    expect((await a.request().post('/admin/tables').set(owner.auth).send({ name: 'later', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] })).status).toBe(201);
    const created = await deaf.request().post('/api/later').set(member.auth).send({ title: 'x' });
    expect(created.status).toBe(201);
    expect(created.body.data.user_id).toBe(member.id);
  });

  it('obeys every policy change on the next request, for reads and writes', async () => {
    const anon = anonHeaders(deaf);
    await a.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'public-read' });
    expect((await deaf.request().get('/api/later').set(anon)).status).toBe(200);
    await a.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'private' });
    const refused = await deaf.request().get('/api/later').set(anon);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.policy).toBe('private');
    // A write allowed by the old policy is refused by the new one and writes nothing.
    await a.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'owner-scoped' });
    expect((await deaf.request().post('/api/later').set(member.auth).send({ title: 'y' })).status).toBe(201);
    await a.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'public-read' });
    const write = await deaf.request().post('/api/later').set(member.auth).send({ title: 'z' });
    expect(write.status).toBe(403);
    expect(await a.services.knex('later').where({ title: 'z' }).first()).toBeUndefined();
  });

  it('publishes a new version to record reads when the change commits, never before, and never for a rollback', async () => {
    const versions = async () => {
      const { rows } = await a.services.pool.query<{ row: number; published: number }>(
        `SELECT (SELECT version FROM _basalt_schema) AS row, pg_sequence_last_value('public._basalt_schema_published') AS published`,
      );
      return rows[0]!;
    };
    const before = await versions();
    expect(before.published).toBe(before.row);
    await expect(
      a.services.knex.transaction(async (trx) => {
        await trx.raw('UPDATE _basalt_schema SET version = version + 1');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await versions()).toEqual(before);

    const anon = anonHeaders(deaf);
    await a.request().patch('/admin/tables/later').set(owner.auth).send({ policy: 'public-read' });
    expect((await deaf.request().get('/api/later').set(anon)).status).toBe(200);
    const committed = await versions();
    const trx = await a.services.knex.transaction();
    try {
      // A policy change in flight: until it commits, readers go on with the committed policy (and version).
      await trx('_policies').where({ table_name: 'later' }).update({ policy: 'private' });
      await trx.raw('UPDATE _basalt_schema SET version = version + 1');
      expect(await versions()).toEqual(committed);
      expect((await deaf.request().get('/api/later').set(anon)).status).toBe(200);
      await trx.commit();
    } catch (error) {
      await trx.rollback();
      throw error;
    }
    expect(await versions()).toEqual({ row: committed.row + 1, published: committed.row + 1 });
    expect((await deaf.request().get('/api/later').set(anon)).status).toBe(403);
  });

  it('lets the owner reuse a table or column name another process just freed', async () => {
    const define = (h: Harness) => h.request().post('/admin/tables').set(owner.auth).send({ name: 'reused', columns: [{ name: 'title', type: 'text' }] });
    expect((await define(a)).status).toBe(201);
    expect((await a.request().post('/admin/tables/reused/columns').set(owner.auth).send({ name: 'extra', type: 'text' })).status).toBe(201);
    // The deaf instance learns of the table and its column (a refusal double-checks the version), then both go.
    expect((await deaf.request().get('/admin/tables/reused').set(owner.auth)).body.data.columns.map((c: { name: string }) => c.name)).toContain('extra');
    expect((await a.request().delete('/admin/tables/reused/columns/extra').set(owner.auth)).status).toBe(200);
    const column = await deaf.request().post('/admin/tables/reused/columns').set(owner.auth).send({ name: 'extra', type: 'integer' });
    expect(column.status).toBe(201);
    expect((await a.request().delete('/admin/tables/reused').set(owner.auth)).status).toBe(200);
    const table = await define(deaf);
    expect(table.status).toBe(201);
    // A name that is really taken is still 409.
    expect((await define(a)).status).toBe(409);
  });

  it('accepts a column added through another process and forgets a dropped table', async () => {
    await a.request().post('/admin/tables/later/columns').set(owner.auth).send({ name: 'rank', type: 'integer' });
    const ranked = await deaf.request().post('/api/later').set(owner.auth).send({ title: 'r', rank: 3 });
    expect(ranked.status).toBe(201);
    expect(ranked.body.data.rank).toBe(3);
    await a.request().delete('/admin/tables/later').set(owner.auth);
    expect((await deaf.request().get('/api/later').set(owner.auth)).status).toBe(404);
  });
});

// Its own database: the DDL below sends notifications whose reloads must not land in another test's window.
describe('DDL by another database role', () => {
  let database: TestDatabase;
  let h: Harness;
  let owner: Account;

  beforeAll(async () => {
    database = await createTestDatabase();
    h = await startHarness({ database });
    owner = await signUp(h);
  });
  afterAll(async () => {
    await h.close();
    await database.drop();
  });

  it('lets another database role run DDL, and serves its table at once', async () => {
    const knex = h.services.knex;
    const role = `basalt_other_${Date.now().toString(36)}`;
    await knex.raw(`CREATE ROLE ${role}`);
    try {
      await knex.raw(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
      // The event trigger runs for this role's DDL too: it must neither fail it nor miss it.
      await knex.transaction(async (trx) => {
        await trx.raw(`SET LOCAL ROLE ${role}`);
        await trx.raw('CREATE TABLE by_other_role (id text primary key, label text)');
      });
      await eventually(async () => {
        expect((await h.request().get('/api/by_other_role').set(owner.auth)).status).toBe(200);
      });
      // The table's triggers and first count go on in the background: the DROP below waits for them (it would race
      // their locks, and Postgres would pick one of the three as a deadlock's victim).
      await eventually(async () => expect(h.services.cache.served('by_other_role')).toMatchObject({ captured: true, counted: true }));
      await h.services.placement.settled();
      await h.services.counting.settled();
    } finally {
      await knex.raw('DROP TABLE IF EXISTS by_other_role');
      await knex.raw(`DROP OWNED BY ${role}`);
      await knex.raw(`DROP ROLE ${role}`);
    }
  });
});
