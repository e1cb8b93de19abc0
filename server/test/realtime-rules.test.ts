import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';
import { openStream, type StreamEvent, type TestStream } from './sse.js';

/**
 * Realtime under access rules (issue 24, item 3; API.md "Access rules"), on two processes sharing one database: each
 * change reaches exactly the subscribers whose read rule holds for it (a membership path evaluated at delivery), a
 * rule changed through one process re-checks the streams open on the other, and `filter=` works on a stream.
 */

let database: TestDatabase;
let a: Harness;
let b: Harness;
let owner: Account;
let ann: Account;
let bob: Account;
let alpha: string;
let beta: string;
const streams: TestStream[] = [];
const member = 'project.memberships.user_id = @auth.id';

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startHarness({ database });
  b = await startHarness({ database });
  owner = await signUp(a);
  ann = await signUp(a);
  bob = await signUp(a);
  await createTable(a, owner, { name: 'projects', policy: 'private', columns: [{ name: 'name', type: 'text' }] });
  await createTable(a, owner, {
    name: 'memberships',
    policy: 'private',
    columns: [{ name: 'user_id', type: 'text' }, { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } }],
  });
  await createTable(a, owner, {
    name: 'tasks',
    policy: 'rules',
    rules: { read: member, create: "@auth.role = 'owner'" },
    columns: [{ name: 'title', type: 'text' }, { name: 'priority', type: 'integer', default: 1 }, { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } }],
  });
  const projects = await a.request().post('/admin/tables/projects/records').set(owner.auth).send([{ name: 'alpha' }, { name: 'beta' }]);
  [alpha, beta] = projects.body.data.map((row: { id: string }) => row.id);
  await a.request().post('/admin/tables/memberships/records').set(owner.auth).send([{ user_id: ann.id, project_id: alpha }, { user_id: bob.id, project_id: beta }]);
});
afterAll(async () => {
  streams.forEach((stream) => stream.close());
  await a?.close();
  await b?.close();
  await database?.drop();
});

async function stream(h: Harness, path: string, headers: Record<string, string>): Promise<TestStream> {
  const opened = await openStream(`${h.url}${path}`, headers);
  streams.push(opened);
  if (opened.status === 200) await new Promise((resolve) => setTimeout(resolve, 120));
  return opened;
}

const titles = (events: StreamEvent[]) => events.filter((event) => event.event === 'insert').map((event) => (event.data as { record: { title: string } }).record.title);
const addTasks = (rows: object[]) => a.request().post('/api/tasks').set(owner.auth).send(rows);

describe('streams under rules', () => {
  it('delivers each change to exactly the members of its project, psql writes included', async () => {
    const anns = await stream(b, '/realtime/tasks', ann.auth);
    const bobs = await stream(b, '/realtime/tasks', bob.auth);
    expect((await addTasks([{ title: 'a1', project_id: alpha }, { title: 'b1', project_id: beta }, { title: 'a2', project_id: alpha }])).status).toBe(201);
    await a.services.knex.raw(`INSERT INTO tasks (id, title, project_id) VALUES ('psql-b2', 'b2', ?)`, [beta]);
    await anns.waitFor(2);
    await bobs.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(titles(anns.events)).toEqual(['a1', 'a2']);
    expect(titles(bobs.events)).toEqual(['b1', 'b2']);
    expect((await openStream(`${b.url}/realtime/tasks`, anonHeaders(b))).status).toBe(403);
  });

  it('takes filter= on a stream, ANDed with the rule; a bad one is 400 naming it', async () => {
    const urgent = await stream(b, `/realtime/tasks?filter=${encodeURIComponent('priority >= 3 or title = \'x\'')}`, ann.auth);
    await addTasks([{ title: 'low', priority: 1, project_id: alpha }, { title: 'high', priority: 5, project_id: alpha }, { title: 'other', priority: 9, project_id: beta }]);
    await urgent.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(titles(urgent.events)).toEqual(['high']);
    const bad = await openStream(`${b.url}/realtime/tasks?filter=${encodeURIComponent('priority >')}`, ann.auth);
    expect([bad.status, (bad.body as { error: { details: unknown } }).error.details]).toEqual([400, { parameter: 'filter', position: 10 }]);
    bad.close();
  });

  it('re-checks open streams when the rule changes through the other process', async () => {
    const anns = await stream(b, '/realtime/tasks', ann.auth);
    const changed = await a.request().patch('/admin/tables/tasks').set(owner.auth).send({ rules: { read: "@auth.role = 'owner'", create: "@auth.role = 'owner'" } });
    expect(changed.status).toBe(200);
    await addTasks([{ title: 'after', project_id: alpha }]);
    await anns.waitForEnd();
    expect(anns.events.some((event) => event.event === 'insert')).toBe(false);
    expect(anns.events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'FORBIDDEN', details: { table: 'tasks', policy: 'rules', operation: 'read' } } } });
    expect(errorOf(await a.request().get('/api/tasks').set(ann.auth)).code).toBe('FORBIDDEN');
  });
});
