import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * Access rules (issue 24, API.md "Access rules: policy `rules`"): the blog, the project tasks shared by membership and
 * the profiles of docs/api.md, on a real Postgres: lists, reads, totals, writes (bulk too), embeds, refusals.
 */

let h: Harness;
let owner: Account;
let ann: Account;
let bob: Account;
let cat: Account;

const admin = () => h.request();
const setRules = (table: string, rules: Record<string, string>) => admin().patch(`/admin/tables/${table}`).set(owner.auth).send({ policy: 'rules', rules });

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  cat = await signUp(h);
  await createTable(h, owner, { name: 'posts', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'published', type: 'boolean', default: false }] });
  await createTable(h, owner, {
    name: 'comments',
    columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }, { name: 'post_id', type: 'text', references: { table: 'posts', onDelete: 'cascade' } }],
  });
  await createTable(h, owner, { name: 'projects', policy: 'private', columns: [{ name: 'name', type: 'text' }] });
  await createTable(h, owner, {
    name: 'memberships',
    policy: 'private',
    columns: [{ name: 'user_id', type: 'text' }, { name: 'role', type: 'text' }, { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } }],
  });
  await createTable(h, owner, { name: 'tasks', columns: [{ name: 'title', type: 'text' }, { name: 'project_id', type: 'text', references: { table: 'projects', onDelete: 'cascade' } }] });
  const blog = { read: 'published = true or user_id = @auth.id', create: 'user_id = @auth.id', update: 'user_id = @auth.id', delete: 'user_id = @auth.id' };
  expect((await setRules('posts', blog)).status).toBe(200);
  expect((await setRules('comments', { read: 'post.published = true', create: 'user_id = @auth.id and post.published = true', delete: 'user_id = @auth.id' })).status).toBe(200);
  const member = 'project.memberships.user_id = @auth.id';
  // Members read their projects (the memberships table stays private: rules read it whole).
  expect((await setRules('projects', { read: 'memberships.user_id = @auth.id', create: "@auth.role = 'owner'", update: "@auth.role = 'owner'", delete: "@auth.role = 'owner'" })).status).toBe(200);
  expect((await setRules('tasks', { read: member, create: member, update: member, updateCheck: member, delete: `project.memberships.user_id = @auth.id and project.memberships.role = 'admin'` })).status).toBe(200);
});
afterAll(() => h?.close());

describe('the blog: everyone reads published posts, each author writes their own', () => {
  let draft: string;
  let published: string;
  beforeAll(async () => {
    const created = await h.request().post('/api/posts').set(ann.auth).send([{ title: 'draft' }, { title: 'hello', published: true }]);
    expect(created.status).toBe(201);
    [draft, published] = created.body.data.map((row: { id: string }) => row.id);
    // The owner column left out is set to the caller: the create rule has the conjunct user_id = @auth.id.
    expect(created.body.data.map((row: { user_id: string }) => row.user_id)).toEqual([ann.id, ann.id]);
  });

  it('lists and counts what each caller may read, anon included', async () => {
    const anon = await h.request().get('/api/posts').set(anonHeaders(h));
    expect(anon.status).toBe(200);
    expect([anon.body.data.map((row: { title: string }) => row.title), anon.body.total]).toEqual([['hello'], 1]);
    const author = await h.request().get('/api/posts?order=title.asc').set(ann.auth);
    expect([author.body.data.map((row: { title: string }) => row.title), author.body.total]).toEqual([['draft', 'hello'], 2]);
    expect((await h.request().get(`/api/posts/${draft}`).set(bob.auth)).status).toBe(404);
    expect((await h.request().get(`/api/posts/${published}`).set(bob.auth)).status).toBe(200);
  });

  it('refuses writes by others: 404 for a row they cannot read, 403 for one they can', async () => {
    expect((await h.request().put(`/api/posts/${draft}`).set(bob.auth).send({ title: 'mine' })).status).toBe(404);
    const refused = await h.request().put(`/api/posts/${published}`).set(bob.auth).send({ title: 'mine' });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).details).toEqual({ table: 'posts', policy: 'rules', operation: 'update' });
    expect((await h.request().delete(`/api/posts/${published}`).set(bob.auth)).status).toBe(403);
    const updated = await h.request().put(`/api/posts/${draft}`).set(ann.auth).send({ title: 'draft 2' });
    expect([updated.status, updated.body.data.title]).toEqual([200, 'draft 2']);
  });

  it('checks the create rule on the row as stored: another user as owner is 403, a bulk insert writes nothing', async () => {
    const forged = await h.request().post('/api/posts').set(bob.auth).send({ title: 'forged', user_id: ann.id });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).details).toEqual({ table: 'posts', policy: 'rules', operation: 'create' });
    const bulk = await h.request().post('/api/posts').set(bob.auth).send([{ title: 'b1' }, { title: 'b2', user_id: ann.id }, { title: 'b3', user_id: ann.id }]);
    expect(bulk.status).toBe(403);
    expect(errorOf(bulk).details).toMatchObject({ operation: 'create', index: 1 });
    expect((await h.request().get('/api/posts').set(bob.auth)).body.data.map((row: { title: string }) => row.title)).toEqual(['hello']);
  });

  it('is 403 before anything when a rule is false for the caller whatever the row (anon writing)', async () => {
    const anon = await h.request().post('/api/posts').set(anonHeaders(h)).send({ title: 'x' });
    expect(anon.status).toBe(403);
    expect(errorOf(anon).details).toEqual({ table: 'posts', policy: 'rules', operation: 'create' });
  });

  it('embeds each table under its own rule, and comments only on published posts', async () => {
    expect((await h.request().post('/api/comments').set(bob.auth).send({ body: 'nice', post_id: published })).status).toBe(201);
    // A draft bob cannot read cannot be referenced at all (400 naming the column, before any rule).
    const sneaky = await h.request().post('/api/comments').set(bob.auth).send({ body: 'sneaky', post_id: draft });
    expect([sneaky.status, errorOf(sneaky).details]).toEqual([400, { field: 'post_id' }]);
    const embedded = await h.request().get(`/api/posts/${published}?select=title,comments(body)`).set(anonHeaders(h));
    expect(embedded.body.data).toEqual({ title: 'hello', comments: [{ body: 'nice' }] });
    const parent = await h.request().get('/api/comments?select=body,post(title)').set(anonHeaders(h));
    expect(parent.body.data).toEqual([{ body: 'nice', post: { title: 'hello' } }]);
  });
});

describe('project tasks shared by membership (a to-many path)', () => {
  let alpha: string;
  let beta: string;
  beforeAll(async () => {
    const projects = await admin().post('/admin/tables/projects/records').set(owner.auth).send([{ name: 'alpha' }, { name: 'beta' }]);
    [alpha, beta] = projects.body.data.map((row: { id: string }) => row.id);
    await admin()
      .post('/admin/tables/memberships/records')
      .set(owner.auth)
      .send([
        { user_id: ann.id, project_id: alpha, role: 'admin' },
        { user_id: bob.id, project_id: alpha, role: 'member' },
        { user_id: bob.id, project_id: beta, role: 'member' },
      ]);
    await admin().post('/admin/tables/tasks/records').set(owner.auth).send([{ title: 'a1', project_id: alpha }, { title: 'a2', project_id: alpha }, { title: 'b1', project_id: beta }]);
  });

  it('lists each member the tasks of their projects with exact totals; a stranger sees none', async () => {
    const titles = async (account: Account) => {
      const page = await h.request().get('/api/tasks?order=title.asc').set(account.auth);
      return [page.body.data.map((row: { title: string }) => row.title), page.body.total];
    };
    expect(await titles(ann)).toEqual([['a1', 'a2'], 2]);
    expect(await titles(bob)).toEqual([['a1', 'a2', 'b1'], 3]);
    expect(await titles(cat)).toEqual([[], 0]);
    expect((await h.request().get('/api/tasks').set(anonHeaders(h))).status).toBe(403);
  });

  it('creates only in a project of the caller, and checks updateCheck on the row after', async () => {
    const elsewhere = await h.request().post('/api/tasks').set(ann.auth).send({ title: 'x', project_id: beta });
    expect([elsewhere.status, errorOf(elsewhere).details]).toEqual([400, { field: 'project_id' }]);
    const nowhere = await h.request().post('/api/tasks').set(ann.auth).send({ title: 'x' });
    expect([nowhere.status, errorOf(nowhere).details]).toEqual([403, { table: 'tasks', policy: 'rules', operation: 'create' }]);
    expect((await h.request().get('/api/projects').set(ann.auth)).body.data.map((row: { name: string }) => row.name)).toEqual(['alpha']);
    const created = await h.request().post('/api/tasks').set(bob.auth).send({ title: 'b2', project_id: beta });
    expect(created.status).toBe(201);
    const moved = await h.request().put(`/api/tasks/${created.body.data.id}`).set(bob.auth).send({ project_id: alpha });
    expect(moved.status).toBe(200);
    // Out of every project: the row after the change fails updateCheck, and nothing changes.
    const away = await h.request().put(`/api/tasks/${created.body.data.id}`).set(bob.auth).send({ project_id: null });
    expect(away.status).toBe(403);
    expect(errorOf(away).details).toEqual({ table: 'tasks', policy: 'rules', operation: 'update', check: true });
    expect((await h.request().get(`/api/tasks/${created.body.data.id}`).set(bob.auth)).body.data.project_id).toBe(alpha);
  });

  it('lets only a project admin delete: one membership row must hold both conditions', async () => {
    const task = (await h.request().get('/api/tasks?title=a1').set(ann.auth)).body.data[0].id as string;
    expect((await h.request().delete(`/api/tasks/${task}`).set(bob.auth)).status).toBe(403);
    expect((await h.request().delete(`/api/tasks/${task}`).set(ann.auth)).status).toBe(200);
  });
});

describe('setting rules', () => {
  it('describes a preset as its expansion and a rules table as stored', async () => {
    const projects = await admin().get('/admin/tables/memberships').set(owner.auth);
    expect(projects.body.data.rules).toEqual({ read: "@auth.role = 'owner'", create: "@auth.role = 'owner'", update: "@auth.role = 'owner'", updateCheck: "@auth.role = 'owner'", delete: "@auth.role = 'owner'" });
    const posts = await admin().get('/admin/tables/posts').set(owner.auth);
    expect(posts.body.data).toMatchObject({ policy: 'rules', rules: { read: 'published = true or user_id = @auth.id' } });
  });

  it.each([
    [{ policy: 'rules' }, 'rules', undefined],
    [{ policy: 'private', rules: { read: 'true' } }, 'rules', undefined],
    [{ policy: 'rules', rules: { view: 'true' } }, 'rules.view', undefined],
    [{ policy: 'rules', rules: { read: 'nope = 1' } }, 'rules.read', 0],
    [{ policy: 'rules', rules: { read: "title = 'x' and" } }, 'rules.read', 15],
    [{ policy: 'rules', rules: { read: 'title = 5' } }, 'rules.read', 8],
    [{ policy: 'rules', rules: { read: 'users.email = @auth.email' } }, 'rules.read', 0],
    [{ policy: 'rules', rules: { read: "title = 'x'; DROP TABLE posts; --'" } }, 'rules.read', 11],
  ])('refuses %j naming %s', async (body, field, position) => {
    const response = await admin().patch('/admin/tables/posts').set(owner.auth).send(body);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual(position === undefined ? { field } : { field, position });
  });

  it('refuses dropping a column or table a rule reads (409 naming the rule)', async () => {
    const column = await admin().delete('/admin/tables/posts/columns/published').set(owner.auth);
    expect(column.status).toBe(409);
    // comments.rules.read reads posts.published through its path (tables are looked at in name order).
    expect(errorOf(column).details).toEqual({ constraint: 'rule', column: 'comments.rules.read' });
    const table = await admin().delete('/admin/tables/memberships').set(owner.auth);
    expect([table.status, errorOf(table).details]).toEqual([409, { constraint: 'rule', column: 'projects.rules.read' }]);
  });
});

describe('profiles everyone reads and each user edits, with a readOnly plan', () => {
  beforeAll(async () => {
    await createTable(h, owner, {
      name: 'profiles',
      policy: 'rules',
      rules: { read: 'true', create: 'user_id = @auth.id', update: 'user_id = @auth.id' },
      columns: [{ name: 'user_id', type: 'text' }, { name: 'bio', type: 'text' }, { name: 'plan', type: 'text', default: 'free', readOnly: true }],
    });
  });

  it('lets each user write their own profile but not its plan, and everyone read it', async () => {
    const mine = await h.request().post('/api/profiles').set(cat.auth).send({ bio: 'hi' });
    expect([mine.status, mine.body.data.user_id, mine.body.data.plan]).toEqual([201, cat.id, 'free']);
    const upgrade = await h.request().put(`/api/profiles/${mine.body.data.id}`).set(cat.auth).send({ plan: 'pro' });
    expect([upgrade.status, errorOf(upgrade).details]).toEqual([400, { field: 'plan' }]);
    expect((await h.request().put(`/api/profiles/${mine.body.data.id}`).set(bob.auth).send({ bio: 'mine now' })).status).toBe(403);
    expect((await h.request().delete(`/api/profiles/${mine.body.data.id}`).set(cat.auth)).status).toBe(403);
    const read = await h.request().get(`/api/profiles/${mine.body.data.id}`).set(anonHeaders(h));
    expect(read.body.data).toMatchObject({ bio: 'hi', plan: 'free' });
  });

  it('refuses creating a table whose rules do not fit it, and leaves no table behind', async () => {
    const response = await admin().post('/admin/tables').set(owner.auth).send({ name: 'broken', policy: 'rules', rules: { read: 'nope = 1' }, columns: [{ name: 'x', type: 'text' }] });
    expect([response.status, errorOf(response).details]).toEqual([400, { field: 'rules.read', position: 0 }]);
    expect((await admin().get('/admin/tables/broken').set(owner.auth)).status).toBe(404);
  });
});

describe('why: rules/check and the records list as another caller', () => {
  const check = (body: object) => admin().post('/admin/tables/posts/rules/check').set(owner.auth).send(body);
  let draft: string;
  let published: string;
  beforeAll(async () => {
    const rows = (await admin().get(`/admin/tables/posts/records?user_id=${ann.id}&order=title.asc`).set(owner.auth)).body.data as Array<{ id: string; published: boolean }>;
    draft = rows.find((row) => !row.published)!.id;
    published = rows.find((row) => row.published)!.id;
  });

  it('lists what a user or anon would see, with cursors bound to that caller', async () => {
    const asAnon = await admin().get('/admin/tables/posts/records?as=anon').set(owner.auth);
    expect([asAnon.status, asAnon.body.data.map((row: { title: string }) => row.title)]).toEqual([200, ['hello']]);
    const asAnn = await admin().get(`/admin/tables/posts/records?as=${ann.id}&order=title.asc&limit=1`).set(owner.auth);
    expect(asAnn.body.total).toBe(2);
    const elsewhere = await admin().get(`/admin/tables/posts/records?as=${bob.id}&order=title.asc&limit=1&after=${encodeURIComponent(asAnn.body.next)}`).set(owner.auth);
    expect([elsewhere.status, errorOf(elsewhere).details]).toEqual([400, { parameter: 'after' }]);
    const unknown = await admin().get('/admin/tables/posts/records?as=nobody').set(owner.auth);
    expect([unknown.status, errorOf(unknown).details]).toEqual([400, { parameter: 'as' }]);
    const tasks = await admin().get('/admin/tables/tasks/records?as=anon').set(owner.auth);
    expect(tasks.status).toBe(403);
    expect((await admin().get(`/admin/tables/posts/records/${draft}?as=anon`).set(owner.auth)).status).toBe(400);
  });

  it('says why a caller may or may not, writing nothing', async () => {
    expect((await check({ as: 'anon', operation: 'read', id: draft })).body.data).toEqual({
      allowed: false,
      operation: 'read',
      rule: 'published = true or user_id = @auth.id',
      reason: expect.stringContaining('not readable'),
    });
    expect((await check({ as: 'anon', operation: 'read', id: published })).body.data).toMatchObject({ allowed: true });
    expect((await check({ as: 'anon', operation: 'create' })).body.data).toMatchObject({ allowed: false, reason: expect.stringContaining('do not allow') });
    expect((await check({ as: bob.id, operation: 'update', id: published })).body.data).toMatchObject({ allowed: false, reason: 'the update rule is false for this row' });
    expect((await check({ as: ann.id, operation: 'delete', id: 'missing' })).body.data).toMatchObject({ allowed: false, reason: 'no such row' });
    expect((await check({ as: bob.id, operation: 'create', record: { title: 't', user_id: ann.id } })).body.data).toMatchObject({ allowed: false });
    expect((await check({ as: bob.id, operation: 'create', record: { title: 't' } })).body.data).toMatchObject({ allowed: true });
    expect((await check({ as: ann.id, operation: 'update', id: published, record: { user_id: bob.id } })).body.data).toMatchObject({ allowed: false, reason: 'updateCheck is false for the row after this change' });
    expect((await check({ as: ann.id, operation: 'update', id: published, record: { title: 'renamed' } })).body.data).toMatchObject({ allowed: true });
    // Nothing was written by any of it.
    expect((await admin().get(`/admin/tables/posts/records/${published}`).set(owner.auth)).body.data).toMatchObject({ title: 'hello', user_id: ann.id });
    expect((await admin().get('/admin/tables/posts/records?title=t').set(owner.auth)).body.total).toBe(0);
  });

  it.each([
    [{ as: 'nobody', operation: 'read' }, 'as'],
    [{ operation: 'read' }, 'as'],
    [{ as: 'anon', operation: 'view' }, 'operation'],
    [{ as: 'anon', operation: 'read', record: {} }, 'record'],
    [{ as: 'member', operation: 'create', record: { nope: 1 } }, 'nope'],
    [{ as: 'anon', operation: 'read', extra: 1 }, 'extra'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await check((body as { as?: string }).as === 'member' ? { ...body, as: bob.id } : body);
    expect([response.status, errorOf(response).details]).toEqual([400, { field }]);
  });
});
