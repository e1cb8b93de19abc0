import pg from 'pg';
import { BARE, ITEM_PREFIX, ITEMS, MY_ITEM_PREFIX, MY_ITEMS, SHARED_ITEMS, R3_SCORE, SCORE_RANGE, type BenchProject } from './scenarios.js';
import { onServer } from './processes.js';
import { COMMENTS_PER_POST, POSTS, r4Range, SEED_EPOCH } from './queryScenarios.js';
import { ARTICLE_PREFIX, ARTICLE_READ, ARTICLES, MEMBER_RULE, MEMBERSHIPS, memberProjectIds, PROJECT_PREFIX, PROJECT_STRIDE, PROJECTS, RULED, TASK_PREFIX, TASKS, TICKETS } from './ruleScenarios.js';

const PASSWORD = 'bench-password-1';
/** W2 updates random rows among these; W1 adds rows beside them. */
const MY_ROWS = 10_000;

export async function call(baseUrl: string, method: string, path: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as { data?: Record<string, unknown> };
  if (!response.ok || !json.data) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data;
}

const COLUMNS = [
  { name: 'user_id', type: 'text' },
  { name: 'title', type: 'text', nullable: false },
  { name: 'score', type: 'integer', nullable: false },
  { name: 'done', type: 'boolean', nullable: false, default: false },
];

/**
 * Accounts and tables made through the API, as a user would (owner first, then the member who reads and writes),
 * then rows seeded with SQL straight into the tables the API created: 10,000 inserts through the API would take
 * longer than the benchmark.
 */
export async function createProject(basaltUrl: string, databaseUrl: string, rows: number): Promise<BenchProject> {
  const owner = await call(basaltUrl, 'POST', '/auth/signup', { email: 'owner@bench.test', password: PASSWORD });
  const ownerToken = owner.accessToken as string;
  const signedUp = await call(basaltUrl, 'POST', '/auth/signup', { email: 'member@bench.test', password: PASSWORD });
  const memberUser = signedUp.user as { id: string; email: string };
  const settings = await call(basaltUrl, 'GET', '/admin/settings', undefined, ownerToken);
  await call(basaltUrl, 'POST', '/admin/tables', { name: ITEMS, columns: COLUMNS, policy: 'public-read' }, ownerToken);
  await call(basaltUrl, 'POST', '/admin/tables', { name: MY_ITEMS, columns: COLUMNS, policy: 'owner-scoped' }, ownerToken);
  const project: BenchProject = {
    anonKey: settings.anonKey as string,
    member: { id: memberUser.id, email: memberUser.email, password: PASSWORD, accessToken: signedUp.accessToken as string },
    rows: 0,
    r3Total: 0,
    myRows: MY_ROWS,
    myTotal: MY_ROWS,
    r4: { ...r4Range(), total: 0 },
    posts: 0,
    sharedMine: 0,
    ownerToken,
    deep: null,
    ruled: { memberProjects: memberProjectIds(), tasksMine: 0 },
  };
  await createRelations(basaltUrl, ownerToken);
  await onServer(databaseUrl, async (client) => {
    await insertRows(client, MY_ITEMS, MY_ITEM_PREFIX, MY_ROWS, memberUser.id);
    await client.query(`VACUUM ANALYZE ${MY_ITEMS}`);
    project.posts = await seedRelations(client);
    await createBareTables(client);
  });
  await seedItems(databaseUrl, project, rows);
  await seedShared(basaltUrl, databaseUrl, project, SHARED_MAIN_ROWS, { analyze: true });
  await seedRuled(basaltUrl, databaseUrl, project);
  return project;
}

/** R10: shared_items holds this many rows, the member owning 5 in 8 (issue 22: 500,000 of 800,000). */
export const SHARED_MAIN_ROWS = 1_600;
export const SHARED_GROWTH_ROWS = 800_000;

/**
 * (Re)makes shared_items through the admin API (so it has the owner-column index Basalt makes: (user_id, id)) and
 * fills it with SQL, the member's rows and the owner's interleaved by id. Without `analyze` the table is as after a
 * bulk load that autovacuum has not reached yet (autovacuum off on it): no statistics, the planner on its defaults.
 * The baseline's copy gets the same rows and indexes, in the same state.
 */
export async function seedShared(basaltUrl: string, databaseUrl: string, project: BenchProject, rows: number, options: { analyze: boolean }): Promise<void> {
  const exists = await fetch(`${basaltUrl}/admin/tables/${SHARED_ITEMS}`, { headers: { authorization: `Bearer ${project.ownerToken}` } });
  if (exists.ok) await call(basaltUrl, 'DELETE', `/admin/tables/${SHARED_ITEMS}`, undefined, project.ownerToken);
  await call(basaltUrl, 'POST', '/admin/tables', { name: SHARED_ITEMS, columns: COLUMNS, policy: 'owner-scoped' }, project.ownerToken);
  await onServer(databaseUrl, async (client) => {
    const owner = (await client.query<{ id: string }>(`SELECT id FROM users WHERE role = 'owner'`)).rows[0]!.id;
    if (!options.analyze) await client.query(`ALTER TABLE ${SHARED_ITEMS} SET (autovacuum_enabled = false)`);
    // In chunks: a statement's change-log row holds all of its rows.
    for (let from = 1; from <= rows; from += 100_000) {
      await client.query(
        `INSERT INTO ${SHARED_ITEMS} (id, user_id, title, score, done)
         SELECT substr(md5('shared-' || i), 1, 22), CASE WHEN i % 8 < 5 THEN $1 ELSE $2 END, 'Shared ' || i, i % ${SCORE_RANGE}, false
           FROM generate_series($3::int, $4::int) AS i`,
        [project.member.id, owner, from, Math.min(rows, from + 99_999)],
      );
    }
    if (options.analyze) await client.query(`VACUUM ANALYZE ${SHARED_ITEMS}`);
    await client.query(`DROP TABLE IF EXISTS ${BARE}.${SHARED_ITEMS}`);
    await client.query(`CREATE TABLE ${BARE}.${SHARED_ITEMS} (LIKE public.${SHARED_ITEMS} INCLUDING ALL)`);
    await client.query(`ALTER TABLE ${BARE}.${SHARED_ITEMS} ADD FOREIGN KEY (user_id) REFERENCES public.users (id) ON DELETE CASCADE`);
    if (!options.analyze) await client.query(`ALTER TABLE ${BARE}.${SHARED_ITEMS} SET (autovacuum_enabled = false)`);
    await client.query(`INSERT INTO ${BARE}.${SHARED_ITEMS} SELECT * FROM public.${SHARED_ITEMS}`);
    if (options.analyze) await client.query(`VACUUM ANALYZE ${BARE}.${SHARED_ITEMS}`);
    project.sharedMine = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SHARED_ITEMS} WHERE user_id = $1`, [project.member.id])).rows[0]!.n;
  });
}

/** R6's tables, made through the admin API as a user would: each reference column gets its index there. */
async function createRelations(basaltUrl: string, ownerToken: string): Promise<void> {
  const text = (name: string) => ({ name, type: 'text' });
  await call(basaltUrl, 'POST', '/admin/tables', { name: 'authors', policy: 'public-read', columns: [text('name')] }, ownerToken);
  const author = { ...text('author_id'), references: { table: 'authors' } };
  await call(basaltUrl, 'POST', '/admin/tables', { name: POSTS, policy: 'public-read', columns: [text('title'), author] }, ownerToken);
  const post = { ...text('post_id'), references: { table: POSTS, onDelete: 'cascade' } };
  await call(basaltUrl, 'POST', '/admin/tables', { name: 'comments', policy: 'public-read', columns: [text('body'), post] }, ownerToken);
}

/** 200 authors, 10,000 posts, five comments on each (one a second apart, so "latest" is well defined). */
async function seedRelations(client: pg.Client): Promise<number> {
  await client.query(`INSERT INTO authors (id, name) SELECT 'a' || i, 'Author ' || i FROM generate_series(1, 200) AS i`);
  await client.query(`INSERT INTO ${POSTS} (id, title, author_id) SELECT 'p' || lpad(i::text, 5, '0'), 'Post ' || i, 'a' || (1 + i % 200) FROM generate_series(1, 10000) AS i`);
  await client.query(
    `INSERT INTO comments (id, body, post_id, "createdAt")
     SELECT 'c' || p || '-' || k, 'Comment ' || k, 'p' || lpad(p::text, 5, '0'), to_timestamp($1::float8 / 1000) + (p * 10 + k) * interval '1 second'
       FROM generate_series(1, 10000) AS p, generate_series(1, ${COMMENTS_PER_POST}) AS k`,
    [SEED_EPOCH],
  );
  await client.query('VACUUM ANALYZE authors, posts, comments');
  return 10_000;
}

/**
 * The baseline's own tables, as a hand-written backend would have them: the same columns, keys, references and
 * indexes as Basalt's (so the same statements plan the same way), in schema `bare`, where Basalt puts no trigger:
 * its writes pay for no change capture and no maintained counts. Their rows are copies of Basalt's.
 */
async function createBareTables(client: pg.Client): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${BARE} CASCADE`);
  await client.query(`CREATE SCHEMA ${BARE}`);
  for (const table of [ITEMS, MY_ITEMS, 'authors', POSTS, 'comments']) {
    // INCLUDING ALL copies defaults, NOT NULLs, the primary key and every index, never triggers or foreign keys.
    await client.query(`CREATE TABLE ${BARE}.${table} (LIKE public.${table} INCLUDING ALL)`);
  }
  for (const table of [ITEMS, MY_ITEMS]) {
    await client.query(`ALTER TABLE ${BARE}.${table} ADD FOREIGN KEY (user_id) REFERENCES public.users (id) ON DELETE CASCADE`);
  }
  await client.query(`ALTER TABLE ${BARE}.${POSTS} ADD FOREIGN KEY (author_id) REFERENCES ${BARE}.authors (id)`);
  await client.query(`ALTER TABLE ${BARE}.comments ADD FOREIGN KEY (post_id) REFERENCES ${BARE}.${POSTS} (id) ON DELETE CASCADE`);
  for (const table of ['authors', POSTS, 'comments']) await client.query(`INSERT INTO ${BARE}.${table} SELECT * FROM public.${table}`);
  await client.query(`VACUUM ANALYZE ${BARE}.authors, ${BARE}.${POSTS}, ${BARE}.comments`);
  await copyToBare(client, MY_ITEMS);
}

/** The baseline's copy of one of Basalt's tables, refilled with the same rows (indexes rebuilt after, as seeding does). */
async function copyToBare(client: pg.Client, table: string): Promise<void> {
  await client.query(`TRUNCATE ${BARE}.${table}`);
  const indexes = await client.query<{ name: string; definition: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS definition FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1::regclass AND NOT x.indisprimary`,
    [`public.${table}`],
  );
  // The copy gets exactly the indexes the original has now (seedItems drops and rebuilds them).
  await client.query(`DO $$ DECLARE i record; BEGIN
    FOR i IN SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = '${BARE}.${table}'::regclass AND NOT x.indisprimary
    LOOP EXECUTE format('DROP INDEX ${BARE}.%I', i.relname); END LOOP; END $$`);
  await client.query(`INSERT INTO ${BARE}.${table} SELECT * FROM public.${table}`);
  for (const index of indexes.rows) {
    await client.query(index.definition.replace(/^CREATE (UNIQUE )?INDEX (\S+) ON public\./, `CREATE $1INDEX $2 ON ${BARE}.`));
  }
  await client.query(`VACUUM ANALYZE ${BARE}.${table}`);
}

async function insertRows(client: pg.Client, table: string, prefix: string, rows: number, userId: string): Promise<void> {
  // The id formula is scenarios.ts' seededId(); scores cycle so that score=42 matches rows/SCORE_RANGE rows; row i
  // was created i seconds after SEED_EPOCH (R4 asks for a range of them).
  await client.query(
    `INSERT INTO ${table} (id, user_id, title, score, done, "createdAt", "updatedAt")
     SELECT substr(md5($1 || '-' || i), 1, 22), $2, 'Item ' || i, i % ${SCORE_RANGE}, i % 2 = 0,
            to_timestamp($4::float8 / 1000) + i * interval '1 second', to_timestamp($4::float8 / 1000) + i * interval '1 second'
       FROM generate_series(1, $3::int) AS i`,
    [prefix, userId, rows, SEED_EPOCH],
  );
}

/**
 * (Re)fills `items` with `rows` rows owned by the member, with the index on score the issue asks for. The score index
 * is built after the insert (faster than maintaining it row by row), and VACUUM sets the visibility map, as
 * autovacuum would soon do on a real table, so counts can use index-only scans.
 */
export async function seedItems(databaseUrl: string, project: BenchProject, rows: number): Promise<void> {
  await onServer(databaseUrl, async (client) => {
    await client.query(`DROP INDEX IF EXISTS ${ITEMS}_score_idx`);
    await client.query(`DROP INDEX IF EXISTS ${ITEMS}_created_idx`);
    await client.query(`TRUNCATE ${ITEMS}`);
    await insertRows(client, ITEMS, ITEM_PREFIX, rows, project.member.id);
    await client.query(`CREATE INDEX ${ITEMS}_score_idx ON ${ITEMS} (score)`);
    // R4's index: one index on (createdAt, id) serves order=createdAt.desc and its id tie-breaker in both directions.
    await client.query(`CREATE INDEX ${ITEMS}_created_idx ON ${ITEMS} ("createdAt", id)`);
    await client.query(`VACUUM ANALYZE ${ITEMS}`);
    await copyToBare(client, ITEMS);
    const counted = await client.query<{ total: number; r3: number; r4: number }>(
      `SELECT count(*)::int AS total, (count(*) FILTER (WHERE score = $1))::int AS r3,
              (count(*) FILTER (WHERE "createdAt" >= $2 AND "createdAt" < $3))::int AS r4 FROM ${ITEMS}`,
      [R3_SCORE, project.r4.from, project.r4.to],
    );
    project.rows = counted.rows[0]!.total;
    project.r3Total = counted.rows[0]!.r3;
    project.r4.total = counted.rows[0]!.r4;
  });
}

/**
 * The growth part's owner-scoped rows (issue 16): the member's own table is refilled with exactly `rows` rows of
 * theirs (what W1, B1 and M1 wrote in the main part goes: its size depended on their speed), so their first page with
 * its total is asked of that many; `myTotal` is what that total must be.
 */
export async function seedMyItems(databaseUrl: string, project: BenchProject, rows: number): Promise<void> {
  await onServer(databaseUrl, async (client) => {
    await client.query(`TRUNCATE ${MY_ITEMS}`);
    await insertRows(client, MY_ITEMS, `${MY_ITEM_PREFIX}g`, rows, project.member.id);
    await client.query(`VACUUM ANALYZE ${MY_ITEMS}`);
    await copyToBare(client, MY_ITEMS);
    const counted = await client.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${MY_ITEMS} WHERE user_id = $1`, [project.member.id]);
    project.myTotal = counted.rows[0]!.total;
  });
}

/**
 * Issue 24's tables, made through the admin API as a developer would (so they have Basalt's triggers, owner and
 * reference indexes): projects (read by their members), memberships (`private`: rules read it whole) and tasks
 * under the membership path rule, with the indexes a developer would add for these rules and this order:
 * memberships (project_id, user_id) and tasks (project_id, createdAt). Shared by the bench and RT2 (realtime).
 */
export async function createMembershipTables(baseUrl: string, ownerToken: string, tasks: string[] = [TASKS]): Promise<void> {
  const text = (name: string) => ({ name, type: 'text' });
  const project = { ...text('project_id'), references: { table: PROJECTS, onDelete: 'cascade' } };
  const owner = "@auth.role = 'owner'";
  await call(baseUrl, 'POST', '/admin/tables', { name: PROJECTS, policy: 'private', columns: [text('name')] }, ownerToken);
  await call(baseUrl, 'POST', '/admin/tables', { name: MEMBERSHIPS, policy: 'private', columns: [text('user_id'), text('role'), project] }, ownerToken);
  // A member may read (and so reference) the projects they are in; the rule needs memberships to exist first.
  await call(baseUrl, 'PATCH', `/admin/tables/${PROJECTS}`, { policy: 'rules', rules: { read: 'memberships.user_id = @auth.id', create: owner, update: owner, delete: owner } }, ownerToken);
  await call(baseUrl, 'POST', `/admin/tables/${MEMBERSHIPS}/indexes`, { columns: ['project_id', 'user_id'] }, ownerToken);
  const rules = { read: MEMBER_RULE, create: MEMBER_RULE, update: MEMBER_RULE, delete: MEMBER_RULE };
  for (const name of tasks) {
    await call(baseUrl, 'POST', '/admin/tables', { name, policy: 'rules', rules, columns: [text('title'), project] }, ownerToken);
    await call(baseUrl, 'POST', `/admin/tables/${name}/indexes`, { columns: ['project_id', 'createdAt'] }, ownerToken);
  }
}

/**
 * R8, R9 and W3's tables and rows (issue 24): 999 more users (SQL: sign-ups would be bcrypt for minutes), 1,000
 * projects, 10,000 memberships, 100,000 tasks (R8), an empty tickets table (W3 writes there, so R8's page and total
 * stay as seeded) and 10,000 articles (R9). Rows by SQL into the tables the API made; the baseline gets copies in
 * `bare` with the same columns, keys, references and indexes, and no trigger.
 */
export async function seedRuled(basaltUrl: string, databaseUrl: string, project: BenchProject): Promise<void> {
  await createMembershipTables(basaltUrl, project.ownerToken, [TASKS, TICKETS]);
  const mine = 'user_id = @auth.id';
  await call(
    basaltUrl,
    'POST',
    '/admin/tables',
    {
      name: ARTICLES,
      policy: 'rules',
      rules: { read: ARTICLE_READ, create: mine, update: mine, delete: mine },
      columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }, { name: 'published', type: 'boolean', nullable: false, default: false }],
    },
    project.ownerToken,
  );
  await onServer(databaseUrl, async (client) => {
    const stamp = (i: string) => `to_timestamp(${SEED_EPOCH / 1000}) + ${i} * interval '1 second'`;
    // User 0 is the bench member; users 1..999 exist only to be members of projects and authors of articles.
    const userOf = (u: string) => `CASE WHEN ${u} = 0 THEN $1 ELSE 'bench-user-' || ${u} END`;
    await client.query(
      `INSERT INTO users (id, email, password_hash, role) SELECT 'bench-user-' || u, 'user' || u || '@bench.test', 'x', 'member' FROM generate_series(1, ${RULED.users - 1}) AS u`,
    );
    await client.query(`INSERT INTO ${PROJECTS} (id, name) SELECT substr(md5('${PROJECT_PREFIX}-' || p), 1, 22), 'Project ' || p FROM generate_series(0, ${RULED.projects - 1}) AS p`);
    await client.query(
      `INSERT INTO ${MEMBERSHIPS} (id, user_id, role, project_id)
       SELECT substr(md5('membership-' || u || '-' || j), 1, 22), ${userOf('u')}, 'member',
              substr(md5('${PROJECT_PREFIX}-' || ((u + j * ${PROJECT_STRIDE}) % ${RULED.projects})), 1, 22)
         FROM generate_series(0, ${RULED.users - 1}) AS u, generate_series(0, ${RULED.projectsPerUser - 1}) AS j`,
      [project.member.id],
    );
    // Task i belongs to project i mod 1,000 and was created i seconds after SEED_EPOCH: the member's are every 100th.
    await client.query(
      `INSERT INTO ${TASKS} (id, title, project_id, "createdAt", "updatedAt")
       SELECT substr(md5('${TASK_PREFIX}-' || i), 1, 22), 'Task ' || i, substr(md5('${PROJECT_PREFIX}-' || (i % ${RULED.projects})), 1, 22), ${stamp('i')}, ${stamp('i')}
         FROM generate_series(1, ${RULED.tasks}) AS i`,
    );
    // readableArticle() (ruleScenarios.ts): n % 4 = 0 or 1 the member's (1: published), 2 published by another, 3 not.
    await client.query(
      `INSERT INTO ${ARTICLES} (id, user_id, title, published, "createdAt", "updatedAt")
       SELECT substr(md5('${ARTICLE_PREFIX}-' || n), 1, 22), CASE WHEN n % 4 < 2 THEN $1 ELSE 'bench-user-' || (1 + n % ${RULED.users - 1}) END,
              'Article ' || n, n % 4 IN (1, 2), ${stamp('n')}, ${stamp('n')}
         FROM generate_series(1, ${RULED.articles}) AS n`,
      [project.member.id],
    );
    const tables = [PROJECTS, MEMBERSHIPS, TASKS, TICKETS, ARTICLES];
    await client.query(`VACUUM ANALYZE ${tables.join(', ')}`);
    for (const table of tables) await client.query(`CREATE TABLE ${BARE}.${table} (LIKE public.${table} INCLUDING ALL)`);
    // The same references as Basalt's (theirs are made by the admin API), on the baseline's own tables.
    await client.query(`ALTER TABLE ${BARE}.${MEMBERSHIPS} ADD FOREIGN KEY (user_id) REFERENCES public.users (id) ON DELETE CASCADE`);
    await client.query(`ALTER TABLE ${BARE}.${ARTICLES} ADD FOREIGN KEY (user_id) REFERENCES public.users (id) ON DELETE CASCADE`);
    for (const table of [MEMBERSHIPS, TASKS, TICKETS]) {
      await client.query(`ALTER TABLE ${BARE}.${table} ADD FOREIGN KEY (project_id) REFERENCES ${BARE}.${PROJECTS} (id) ON DELETE CASCADE`);
    }
    for (const table of tables) await client.query(`INSERT INTO ${BARE}.${table} SELECT * FROM public.${table}`);
    await client.query(`VACUUM ANALYZE ${tables.map((table) => `${BARE}.${table}`).join(', ')}`);
    const counted = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${TASKS} t WHERE EXISTS (SELECT 1 FROM ${MEMBERSHIPS} m WHERE m.project_id = t.project_id AND m.user_id = $1)`,
      [project.member.id],
    );
    project.ruled.tasksMine = counted.rows[0]!.n;
  });
}
