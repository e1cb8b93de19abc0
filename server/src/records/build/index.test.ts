import { describe, expect, it } from 'vitest';
import { column, table, todos } from '../../../test/fixtures/tables.js';
import { quote } from '../../db/identifiers.js';
import { buildStatement, listStatement } from './index.js';
import { cursorKeyFrom } from '../query/cursor.js';
import type { Access } from '../authorize.js';
import { planRequest } from '../plan/index.js';
import type { ListParams } from '../query/parse.js';

const KEY = cursorKeyFrom('build-test-secret');
const access: Access = { scope: { kind: 'owner', ownerColumn: 'user_id', userId: 'member-1' }, surface: 'api', writer: 'member-1' };
const listPlan = (params: Partial<ListParams>, schema = todos()) =>
  planRequest({ action: 'list', table: schema.name, params: { limit: 20, offset: null, order: [], filters: [], select: null, embedOptions: {}, after: null, count: 'exact', filter: null, ...params } }, { table: schema, access }, KEY);

describe('build', () => {
  it('quotes identifiers by doubling quotes', () => {
    expect(quote('a"b')).toBe('"a""b"');
  });

  it('binds the scope, every filter value, the limit and the offset as parameters, in that order', () => {
    const { statement, values } = buildStatement(listPlan({ limit: 5, offset: 10, filters: [{ key: 'title', column: 'title', op: 'eq', value: "x' OR 1=1 --" }, { key: 'score', column: 'score', op: 'eq', value: '3' }] }));
    expect(values).toEqual(['member-1', "x' OR 1=1 --", 3, 6, 10]);
    expect(statement.text).not.toContain('OR 1=1');
    expect(statement.text).toContain('"todos"."user_id" = $1 AND "title" = $2 AND "score" = $3');
    expect(statement.text).toContain('ORDER BY "id" ASC LIMIT $4 OFFSET $5');
  });

  it('keeps a hostile column name inside its quotes', () => {
    const hostile = table('t', [column('a"; DROP TABLE users; --', 'text')], 'private');
    const plan = listPlan({ filters: [{ key: 'a"; DROP TABLE users; --', column: 'a"; DROP TABLE users; --', op: 'eq', value: 'v' }] }, hostile);
    if (plan.kind !== 'list') throw new Error('expected a list plan');
    const { statement } = listStatement(hostile, plan.query, null, true);
    expect(statement.text).toContain('"a""; DROP TABLE users; --" = $1');
  });

  it('makes one prepared statement per shape: other values, same name and text', () => {
    const a = buildStatement(listPlan({ filters: [{ key: 'score', column: 'score', op: 'eq', value: '1' }] }));
    const b = buildStatement(listPlan({ filters: [{ key: 'score', column: 'score', op: 'eq', value: '2' }] }));
    const c = buildStatement(listPlan({ filters: [{ key: 'done', column: 'done', op: 'eq', value: 'true' }] }));
    expect(b.statement).toEqual(a.statement);
    expect(c.statement.name).not.toBe(a.statement.name);
  });

  it('builds each write with its guards: the schema version, the scope and the writer account', () => {
    const schema = todos();
    const authorized = { table: schema, access };
    const plan = (request: Parameters<typeof planRequest>[0]) => planRequest(request, authorized, KEY);
    const create = buildStatement(plan({ action: 'create', table: 'todos', body: { title: 't' } }));
    expect(create.statement.text).toMatch(/^\/\* b\d+ \*\/ INSERT INTO "todos" .* WHERE \(SELECT version FROM _basalt_schema\) = \$\d+ AND EXISTS \(SELECT 1 FROM users WHERE id = \$\d+\) RETURNING \*$/);
    expect(create.values.slice(-2)).toEqual([schema.schemaVersion, 'member-1']);

    const upsert = buildStatement(plan({ action: 'upsert', table: 'todos', id: 'a', body: { title: 't' } }));
    expect(upsert.statement.text).toContain('ON CONFLICT ("id") DO UPDATE SET');
    expect(upsert.statement.text).toContain('WHERE "todos"."user_id" = $');

    const update = buildStatement(plan({ action: 'upsert', table: 'todos', id: 'a', body: { score: 1 } }));
    expect(update.statement.text).toMatch(/^\/\* b\d+ \*\/ UPDATE "todos" SET "score" = \$1, "updatedAt" = now\(\) WHERE "id" = \$2 AND .*"user_id" = \$4 AND EXISTS/);
    expect(update.values).toEqual([1, 'a', schema.schemaVersion, 'member-1', 'member-1']);

    const remove = buildStatement(plan({ action: 'delete', table: 'todos', id: 'a' }));
    expect(remove.statement.text).toMatch(/^\/\* b\d+ \*\/ DELETE FROM "todos" WHERE "id" = \$1 AND .* RETURNING \*$/);

    const get = buildStatement(plan({ action: 'get', table: 'todos', id: 'a' }));
    expect(get.statement.text).toMatch(/^\/\* b\d+ \*\/ SELECT \*, .* FROM "todos" WHERE "id" = \$1 AND "todos"."user_id" = \$2$/);
    expect(get.values).toEqual(['a', 'member-1']);
  });
});
