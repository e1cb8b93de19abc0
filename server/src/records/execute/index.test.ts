import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/database.js';
import { ApiError } from '../../errors.js';
import { createServices, type Services } from '../../services.js';
import { authorizeRecords } from '../authorize.js';
import { execute } from './index.js';
import { StaleSchemaError } from '../../db/fresh.js';
import type { RecordRequest } from '../parse.js';
import { planRequest } from '../plan/index.js';

/** The execute stage on a real Postgres: what each plan does to the rows, and how a write that did nothing says why. */

let database: TestDatabase;
let services: Services;
const alice = { kind: 'user' as const, id: 'alice', role: 'member' as const, sessionId: 's-a' };
const bob = { kind: 'user' as const, id: 'bob', role: 'member' as const, sessionId: 's-b' };

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createServices({ databaseUrl: database.url, jwtSecret: 'x'.repeat(40), bcryptCost: 4, signupEnabled: true, listen: false });
  await services.knex('users').insert([
    { id: 'alice', email: 'alice@example.test', password_hash: 'x', role: 'member' },
    { id: 'bob', email: 'bob@example.test', password_hash: 'x', role: 'member' },
  ]);
  await services.knex.raw(`CREATE TABLE notes (id text PRIMARY KEY, user_id text REFERENCES users(id), body text NOT NULL, n integer)`);
  await services.cache.reload();
});

afterAll(async () => {
  await services?.close();
  await database?.drop();
});

const run = (caller: typeof alice, request: RecordRequest) => {
  const operation = request.action === 'list' || request.action === 'get' ? 'read' : 'write';
  const authorized = authorizeRecords(services.cache, 'api', 'notes', caller, operation);
  return execute(services.records, planRequest(request, authorized, services.records.cursorKey));
};

async function refusal(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('execute', () => {
  it('creates, reads, lists with the exact total, and deletes within the caller scope', async () => {
    const created = await run(alice, { action: 'create', table: 'notes', body: { id: 'a1', body: 'hello', user_id: 'bob' } });
    expect(created).toEqual({ kind: 'record', row: { id: 'a1', user_id: 'alice', body: 'hello', n: null }, created: true });
    await run(bob, { action: 'create', table: 'notes', body: { id: 'b1', body: 'mine' } });
    expect(await run(alice, { action: 'get', table: 'notes', id: 'a1' })).toMatchObject({ row: { id: 'a1' } });
    expect(await refusal(run(alice, { action: 'get', table: 'notes', id: 'b1' }))).toBe(404);
    const page = await run(alice, { action: 'list', table: 'notes', params: { limit: 0, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null } });
    expect(page).toEqual({ kind: 'page', rows: [], total: 1, next: null });
    expect(await refusal(run(alice, { action: 'delete', table: 'notes', id: 'b1' }))).toBe(404);
    expect(await services.knex('notes').where({ id: 'b1' }).first()).toBeDefined();
  });

  it('upserts in one statement, and says whether it created', async () => {
    expect(await run(alice, { action: 'upsert', table: 'notes', id: 'u1', body: { body: 'first' } })).toMatchObject({ created: true });
    expect(await run(alice, { action: 'upsert', table: 'notes', id: 'u1', body: { body: 'second' } })).toMatchObject({ created: false, row: { body: 'second' } });
    expect(await refusal(run(bob, { action: 'upsert', table: 'notes', id: 'u1', body: { body: 'stolen' } }))).toBe(404);
  });

  it('updates first when the body cannot create, and only then says what is missing', async () => {
    expect(await run(alice, { action: 'upsert', table: 'notes', id: 'u1', body: { n: 5 } })).toMatchObject({ created: false, row: { n: 5, body: 'second' } });
    expect(await refusal(run(alice, { action: 'upsert', table: 'notes', id: 'fresh', body: { n: 5 } }))).toBe(400);
    expect(await refusal(run(bob, { action: 'upsert', table: 'notes', id: 'u1', body: { n: 6 } }))).toBe(404);
  });

  it('writes nothing for an account that is gone (401)', async () => {
    const ghost = { ...alice, id: 'ghost' };
    expect(await refusal(run(ghost, { action: 'create', table: 'notes', body: { body: 'boo' } }))).toBe(401);
    expect(await refusal(run(ghost, { action: 'delete', table: 'notes', id: 'a1' }))).toBe(401);
    expect(await services.knex('notes').where({ body: 'boo' }).first()).toBeUndefined();
  });

  it('refuses to answer from a plan whose schema version the database has moved past', async () => {
    const authorized = authorizeRecords(services.cache, 'api', 'notes', alice, 'read');
    await services.knex.raw('UPDATE _basalt_schema SET version = version + 1');
    const list = planRequest({ action: 'list', table: 'notes', params: { limit: 5, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null } }, authorized, services.records.cursorKey);
    await expect(execute(services.records, list)).rejects.toBeInstanceOf(StaleSchemaError);
    const write = authorizeRecords(services.cache, 'api', 'notes', alice, 'write');
    await expect(execute(services.records, planRequest({ action: 'create', table: 'notes', body: { body: 'late' } }, write, services.records.cursorKey))).rejects.toBeInstanceOf(StaleSchemaError);
    expect(await services.knex('notes').where({ body: 'late' }).first()).toBeUndefined();
  });
});
