import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { decideAccess, readRuleLeavingId } from '../src/policies/access.js';
import type { Caller } from '../src/policies/caller.js';
import { changeRows, idsFilterOf, ruleFilterOf } from '../src/realtime/changeRows.js';
import type { Change } from '../src/realtime/log.js';
import { createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * A read rule turned around for streams (issue 24, RT2: realtime/changeRows.ts idsFilterOf): "which of these ids may
 * read the row", one query for all subscribers who differ only in their id, must give for every subscriber and row
 * exactly what the subscriber's own folded rule gives (ruleFilterOf, the verdict the record API's lists use). Each
 * rule below is set on a real table, and both verdicts are read from Postgres for every (row, member) pair.
 */

let database: TestDatabase;
let h: Harness;
let owner: Account;
const members: Account[] = [];
let changes: Change[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startHarness({ database });
  owner = await signUp(h);
  for (let i = 0; i < 4; i += 1) members.push(await signUp(h));
  await createTable(h, owner, { name: 'projects', policy: 'private', columns: [{ name: 'name', type: 'text' }] });
  await createTable(h, owner, {
    name: 'memberships',
    policy: 'private',
    columns: [{ name: 'user_id', type: 'text' }, { name: 'role', type: 'text' }, { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } }],
  });
  await createTable(h, owner, {
    name: 'tasks',
    policy: 'private',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'editor', type: 'text' },
      { name: 'published', type: 'boolean', default: false },
      { name: 'priority', type: 'integer', default: 1 },
      { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } },
    ],
  });
  const admin = (path: string, body: object) => h.request().post(`/admin/tables/${path}/records`).set(owner.auth).send(body);
  const [m0, m1, m2, m3] = members.map((member) => member.id);
  const projects = (await admin('projects', [{ name: 'p1' }, { name: 'p2' }, { name: 'p3' }])).body.data.map((row: { id: string }) => row.id);
  await admin('memberships', [
    { user_id: m0, role: 'admin', project_id: projects[0] },
    { user_id: m1, role: 'member', project_id: projects[0] },
    { user_id: m1, role: 'admin', project_id: projects[1] },
    { user_id: m2, role: 'member', project_id: projects[2] },
    { user_id: null, role: 'admin', project_id: projects[2] },
  ]);
  const tasks = await admin('tasks', [
    { title: 'a', editor: m0, project_id: projects[0], priority: 3 },
    { title: 'b', editor: m1, project_id: projects[0], published: true },
    { title: 'c', editor: m2, project_id: projects[1] },
    { title: 'x', editor: null, project_id: projects[2], priority: 5 },
    { title: 'd', editor: m3, project_id: null, published: true },
    { title: 'e', editor: `${m0}'; DROP TABLE tasks; --`, project_id: projects[1], priority: 2 },
    { title: 'f', editor: m1, project_id: projects[2], priority: 4 },
  ]);
  expect(tasks.status).toBe(201);
  const rows = (await h.services.knex.raw(`SELECT to_jsonb(t) AS record FROM tasks t ORDER BY title`)).rows as Array<{ record: Record<string, unknown> }>;
  changes = rows.map((row, n) => ({ xid: 1n, id: 1, n, table: 'tasks', op: 'i', record: row.record }));
});
afterAll(async () => {
  await h?.close();
  await database?.drop();
});

const RULES: Array<[rule: string, turnsAround: boolean]> = [
  ['editor = @auth.id', true],
  ["@auth.id = editor and priority >= 2", true],
  ['project.memberships.user_id = @auth.id', true],
  ["project.memberships.user_id = @auth.id and project.memberships.role = 'admin'", true],
  ['editor = @auth.id or project.memberships.user_id = @auth.id', true],
  ['project.memberships.user_id = @auth.id and editor = @auth.id', true],
  ["editor = @auth.id and @auth.role = 'member'", true],
  ["(project.memberships.user_id = @auth.id or editor = @auth.id) and title != 'x'", true],
  ['editor = @auth.id or published = true', false],
  ['not (editor = @auth.id)', false],
  ['editor != @auth.id and priority > 1', false],
  ["editor like 'a%' or project.memberships.user_id = @auth.id", false],
];

describe('a read rule turned around for streams', () => {
  it.each(RULES)('%s: the same verdict for every member and row as each member\'s own folded rule', async (rule, turnsAround) => {
    const patched = await h.request().patch('/admin/tables/tasks').set(owner.auth).send({ policy: 'rules', rules: { read: rule } });
    expect(patched.status).toBe(200);
    await h.services.cache.reload();
    const table = h.services.cache.served('tasks')!;
    const now = new Date();
    const callers: Caller[] = members.map((member) => ({ kind: 'user', id: member.id, role: member.role, sessionId: null }));
    const shared = idsFilterOf(readRuleLeavingId(table, callers[0]!, now)!);
    expect(shared !== null).toBe(turnsAround);
    if (!shared) return;
    // Ids that are no member's, quotes included, match nothing and change nothing.
    for (const id of [...members.map((member) => member.id), "' OR '1'='1", 'nobody']) shared.ids!.among.add(id);
    const turned = (await changeRows(h.services.pool, 'tasks', changes, [shared])).readers.get(shared.key)!;
    let matched = 0;
    for (const caller of callers) {
      const decision = decideAccess(table, caller, 'read', 'api', {}, now);
      expect(decision.allowed).toBe(true);
      if (!decision.allowed || decision.scope?.kind !== 'rule') throw new Error(`expected a rule scope for ${rule}`);
      const own = ruleFilterOf(decision.scope);
      const verdicts = (await changeRows(h.services.pool, 'tasks', changes, [own])).matches.get(own.key)!;
      expect(turned.map((ids) => caller.kind === 'user' && ids.includes(caller.id))).toEqual(verdicts);
      matched += verdicts.filter(Boolean).length;
    }
    expect(turned.flat()).not.toContain("' OR '1'='1");
    // Each rule lets some member read some row, and no member read every row: the comparison is not vacuous.
    expect(matched).toBeGreaterThan(0);
    expect(matched).toBeLessThan(callers.length * changes.length);
  });
});
