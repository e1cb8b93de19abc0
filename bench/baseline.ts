/**
 * The bare baseline: node:http and a pg Pool running exactly the SQL each benchmark scenario needs, one prepared
 * statement per request, rows JSON.stringify'd as they come. No framework, no validation beyond what the scenarios
 * send, no logging. It answers the same URLs and shapes as Basalt, so one set of requests drives both; it is the
 * practical limit of Node + pg on the machine, the yardstick for Basalt's overhead.
 *
 * Run as its own process (`node --import tsx bench/baseline.ts`) so its CPU can be measured apart from the load
 * generator. Environment: DATABASE_URL, JWT_SECRET, PORT, HOST.
 */
import http from 'node:http';
import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { BARE, ITEMS, MY_ITEMS, PAGE, SHARED_ITEMS } from './scenarios.js';
import { ARTICLES, MEMBERSHIPS, PROJECTS, TASKS, TICKETS } from './ruleScenarios.js';
import { fileRoutes } from './baselineFiles.js';
import { query2Routes } from './baselineQuery2.js';

const env = (name: string) => process.env[name] ?? '';
// The same pool size as each Basalt process (knex pool max 10), so neither side gets more database concurrency.
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const key = createSecretKey(Buffer.from(env('JWT_SECRET'), 'utf8'));
// Basalt's anon key for the same secret: a fixed JWT, so a string comparison checks it.
const anonKey = jwt.sign({ role: 'anon', typ: 'anon' }, key, { algorithm: 'HS256', noTimestamp: true });
// An unknown email still costs one bcrypt comparison, as in Basalt.
const dummyHash = bcrypt.hashSync('dummy password that never matches', 10);

type Row = Record<string, unknown>;

// The baseline's own tables (bench/seed.ts copies Basalt's rows into them): what a hand-written backend would have,
// with none of Basalt's triggers (change capture, maintained counts). Accounts and sessions are the shared ones.
const OWN_ITEMS = `${BARE}.${ITEMS}`;
const OWN_MY_ITEMS = `${BARE}.${MY_ITEMS}`;

// Basalt's cursors, the same algorithm: the page's last order keys, bound to the query and signed (HMAC-SHA256 with a
// key derived from the secret), so a cursor one server hands out works on the other.
const cursorKey = createHmac('sha256', env('JWT_SECRET')).update('basalt keyset cursor').digest();
const digestOf = (binding: string) => createHash('sha256').update(binding).digest('base64url').slice(0, 16);
const mac = (payload: string) => createHmac('sha256', cursorKey).update(payload).digest().subarray(0, 16);
const BY_ID = digestOf(JSON.stringify([ITEMS, ['id.asc'], []]));

function encodeCursor(digest: string, values: unknown[]): string {
  const payload = Buffer.from(JSON.stringify({ b: digest, v: values })).toString('base64url');
  return `${payload}.${mac(payload).toString('base64url')}`;
}

function decodeCursor(cursor: string, digest: string): string {
  const [payload = '', signature = ''] = cursor.split('.');
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== 16 || !timingSafeEqual(given, mac(payload))) throw new HttpError(400, 'after');
  const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { b?: unknown; v?: unknown[] };
  if (body.b !== digest || !Array.isArray(body.v) || typeof body.v[0] !== 'string') throw new HttpError(400, 'after');
  return body.v[0];
}
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// The page and its exact total in one statement: the count as a scalar subquery joined laterally to the page, so
// Postgres does not walk the whole ordered result (count(*) OVER () does). As Basalt does, a page reads one row more
// than it shows (whether a next page exists) and the order keys as text (its cursor).
const listSql = (where: string, order = 'id', keys = 'id::text AS k0') =>
  `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${OWN_ITEMS} ${where}) t
   LEFT JOIN LATERAL (SELECT *, ${keys} FROM ${OWN_ITEMS} ${where} ORDER BY ${order} LIMIT $1 OFFSET $2) p ON true`;
/**
 * Issue 24's membership rule, by hand: the EXISTS through projects and memberships that Basalt compiles
 * `project.memberships.user_id = @auth.id` to (same aliases, same nesting), on the row `row`, for the user `$n`.
 */
const memberOf = (row: string, user: string) =>
  `EXISTS (SELECT 1 FROM ${BARE}.${PROJECTS} x1 WHERE x1.id = ${row}.project_id AND EXISTS (SELECT 1 FROM ${BARE}.${MEMBERSHIPS} x2 WHERE x2.project_id = x1.id AND (x2.user_id = ${user})))`;
/** A timestamp as the API shows it (ISO 8601, UTC, milliseconds), made in SQL for JSON built there. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const STATEMENTS = {
  list: listSql(''),
  listByScore: listSql('WHERE score = $3'),
  listRange: listSql('WHERE "createdAt" >= $3 AND "createdAt" < $4', '"createdAt" DESC, id DESC', '"createdAt"::text AS k0, id::text AS k1'),
  // The member's own rows (owner-scoped), with their total and without (issue 16's growth part).
  myList: `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${OWN_MY_ITEMS} WHERE user_id = $3) t
   LEFT JOIN LATERAL (SELECT *, id::text AS k0 FROM ${OWN_MY_ITEMS} WHERE user_id = $3 ORDER BY id LIMIT $1 OFFSET $2) p ON true`,
  myPage: `SELECT *, id::text AS k0 FROM ${OWN_MY_ITEMS} WHERE user_id = $3 ORDER BY id LIMIT $1 OFFSET $2`,
  // R10: the member's rows of a table they share, with their total (counted: the baseline keeps no counts).
  sharedList: `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${BARE}.${SHARED_ITEMS} WHERE user_id = $3) t
   LEFT JOIN LATERAL (SELECT *, id::text AS k0 FROM ${BARE}.${SHARED_ITEMS} WHERE user_id = $3 ORDER BY id LIMIT $1 OFFSET $2) p ON true`,
  // count=none: the page alone, from an offset or after a cursor's id.
  page: `SELECT *, id::text AS k0 FROM ${OWN_ITEMS} ORDER BY id LIMIT $1 OFFSET $2`,
  pageAfter: `SELECT *, id::text AS k0 FROM ${OWN_ITEMS} WHERE id > $2 ORDER BY id LIMIT $1`,
  // R6 by hand: each post with its author and its 3 latest comments, as JSON built in the same statement.
  postsWithRelations: `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${BARE}.posts) t
   LEFT JOIN LATERAL (
     SELECT posts.*, posts.id::text AS k0,
            (SELECT jsonb_build_object('id', a.id, 'name', a.name, 'createdAt', ${iso('a."createdAt"')}, 'updatedAt', ${iso('a."updatedAt"')})
               FROM ${BARE}.authors a WHERE a.id = posts.author_id) AS author,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('id', c.id, 'body', c.body, 'post_id', c.post_id,
                                                          'createdAt', ${iso('c."createdAt"')}, 'updatedAt', ${iso('c."updatedAt"')})
                                       ORDER BY c."createdAt" DESC, c.id DESC)
                        FROM (SELECT * FROM ${BARE}.comments c WHERE c.post_id = posts.id ORDER BY c."createdAt" DESC, c.id DESC LIMIT 3) c), '[]'::jsonb) AS comments
       FROM ${BARE}.posts posts ORDER BY id LIMIT $1 OFFSET $2) p ON true`,
  // R8: the member's tasks, newest first, with their total counted under the same rule (Basalt counts too: its
  // maintained counts serve only a rule that is exactly the owner column).
  memberTasks: `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${BARE}.${TASKS} WHERE ${memberOf('tasks', '$3')}) t
   LEFT JOIN LATERAL (SELECT *, "createdAt"::text AS k0, id::text AS k1 FROM ${BARE}.${TASKS} WHERE ${memberOf('tasks', '$3')}
                      ORDER BY "createdAt" DESC, id DESC LIMIT $1 OFFSET $2) p ON true`,
  // R9: a get by id under `user_id = @auth.id or published = true`.
  article: `SELECT * FROM ${BARE}.${ARTICLES} WHERE id = $1 AND (user_id = $2 OR published = true)`,
  // W3: the create rule checked inside the insert; nothing written when it does not hold.
  ticket: `INSERT INTO ${BARE}.${TICKETS} (id, title, project_id)
           SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM ${BARE}.${PROJECTS} x1 WHERE x1.id = $3
                                           AND EXISTS (SELECT 1 FROM ${BARE}.${MEMBERSHIPS} x2 WHERE x2.project_id = x1.id AND (x2.user_id = $4)))
           RETURNING *`,
  insertMany: `INSERT INTO ${OWN_MY_ITEMS} (id, user_id, title, score, done)
               SELECT u.id, $1, u.title, u.score, u.done
                 FROM unnest($2::text[], $3::text[], $4::int[], $5::bool[]) WITH ORDINALITY AS u(id, title, score, done, n)
                WHERE EXISTS (SELECT 1 FROM users WHERE id = $1) ORDER BY u.n RETURNING *`,
  get: `SELECT * FROM ${OWN_ITEMS} WHERE id = $1`,
  // The account must still exist (an access token outlives its account); checked inside the same statement.
  insert: `INSERT INTO ${OWN_MY_ITEMS} (id, user_id, title, score, done)
           SELECT $1, u.id, $3, $4, $5 FROM users u WHERE u.id = $2 RETURNING *`,
  upsert: `INSERT INTO ${OWN_MY_ITEMS} AS m (id, user_id, title, score, done)
           SELECT $1, u.id, $3, $4, $5 FROM users u WHERE u.id = $2
           ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, score = EXCLUDED.score, done = EXCLUDED.done, "updatedAt" = now()
           WHERE m.user_id = $2
           RETURNING *, (xmax = 0) AS inserted`,
  user: `SELECT id, email, role, password_hash FROM users WHERE email = $1`,
  session: `INSERT INTO sessions (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`,
};

/** Named statements: parsed and planned once per connection. */
async function query(name: keyof typeof STATEMENTS, values: unknown[]): Promise<Row[]> {
  return (await pool.query({ name, text: STATEMENTS[name], values })).rows as Row[];
}

function requireAnon(req: http.IncomingMessage): void {
  if (req.headers.apikey !== anonKey) throw new HttpError(401, 'apikey');
}

function requireUser(req: http.IncomingMessage): string {
  const token = /^bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  try {
    const claims = jwt.verify(token ?? '', key, { algorithms: ['HS256'] }) as { sub?: unknown; typ?: unknown };
    if (claims.typ === 'access' && typeof claims.sub === 'string') return claims.sub;
  } catch {
    // falls through to 401
  }
  throw new HttpError(401, 'token');
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

async function readJson(req: http.IncomingMessage): Promise<Row> {
  const body = await readBody(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body');
  return body as Row;
}

/** B1: every record checked, all inserted by one statement (one array per column), answered in the order sent. */
async function insertMany(userId: string, body: unknown[]): Promise<Row[]> {
  if (body.length === 0 || body.length > 1000) throw new HttpError(400, 'body');
  const records = body.map((element) => recordValues(element as Row));
  const rows = await query('insertMany', [
    userId,
    records.map(() => randomBytes(16).toString('base64url')),
    records.map((record) => record[0]),
    records.map((record) => record[1]),
    records.map((record) => record[2]),
  ]);
  if (rows.length === 0) throw new HttpError(401, 'account');
  return rows;
}

function recordValues(body: Row): [string, number, boolean] {
  const { title, score, done } = body;
  if (typeof title !== 'string' || !Number.isInteger(score) || typeof done !== 'boolean') throw new HttpError(400, 'record');
  return [title, score as number, done];
}

/** The page of rows (keys dropped), its `next` (the last shown row's keys, when a row follows) and the total if counted. */
function page(rows: Row[], limit: number, digest: string, counted: boolean): { data: Row[]; total?: number; next: string | null } {
  const total = (rows[0]?.total as number | undefined) ?? 0;
  const data: Row[] = [];
  let next: string | null = null;
  for (const row of rows) {
    if (row.id === null) continue; // the LEFT JOIN's row when the page is empty
    if (data.length === limit) {
      const last = data[limit - 1]!;
      next = encodeCursor(digest, [last.k0, ...(last.k1 === undefined ? [] : [last.k1])]);
      break;
    }
    data.push(row);
  }
  for (const row of data) {
    delete row.total;
    delete row.k0;
    delete row.k1;
  }
  return counted ? { data, total, next } : { data, next };
}

async function list(url: URL): Promise<{ data: Row[]; total?: number; next: string | null }> {
  const params = url.searchParams;
  const limit = Math.min(Number(params.get('limit') ?? PAGE), 100);
  const offset = Number(params.get('offset') ?? 0);
  const order = params.get('order') ?? 'id.asc';
  if (!Number.isInteger(limit) || !Number.isInteger(offset)) throw new HttpError(400, 'query');
  const from = params.get('createdAt[gte]');
  const to = params.get('createdAt[lt]');
  if (from !== null && to !== null && order === 'createdAt.desc') {
    const digest = digestOf(JSON.stringify([ITEMS, ['createdAt.desc', 'id.desc'], [['createdAt[gte]', from], ['createdAt[lt]', to]]]));
    return page(await query('listRange', [limit + 1, offset, new Date(from), new Date(to)]), limit, digest, true);
  }
  if (order !== 'id.asc') throw new HttpError(400, 'order');
  if (params.get('count') === 'none') {
    const after = params.get('after');
    const rows = after === null ? await query('page', [limit + 1, offset]) : await query('pageAfter', [limit + 1, decodeCursor(after, BY_ID)]);
    return page(rows, limit, BY_ID, false);
  }
  const score = params.get('score');
  if (score === null) return page(await query('list', [limit + 1, offset]), limit, BY_ID, true);
  const digest = digestOf(JSON.stringify([ITEMS, ['id.asc'], [['score', score]]]));
  return page(await query('listByScore', [limit + 1, offset, Number(score)]), limit, digest, true);
}

async function signIn(req: http.IncomingMessage): Promise<unknown> {
  const body = await readJson(req);
  const email = String(body.email ?? '').trim().toLowerCase();
  const password = String(body.password ?? '');
  const user = (await query('user', [email]))[0];
  // Main-thread bcryptjs: the single-core yardstick for sign-in throughput.
  const matches = bcrypt.compareSync(password, (user?.password_hash as string | undefined) ?? dummyHash);
  if (!user || !matches) throw new HttpError(401, 'credentials');
  const sessionId = randomBytes(16).toString('base64url');
  const refreshToken = jwt.sign({ sub: user.id, sid: sessionId, typ: 'refresh', jti: randomBytes(16).toString('base64url') }, key, {
    algorithm: 'HS256',
    expiresIn: 7 * 24 * 3600,
  });
  const expiresAt = new Date(Date.now() + 7 * 24 * 3600 * 1000);
  await query('session', [sessionId, user.id, createHash('sha256').update(refreshToken).digest('hex'), expiresAt]);
  const accessToken = jwt.sign({ sub: user.id, role: user.role, sid: sessionId, typ: 'access' }, key, { algorithm: 'HS256', expiresIn: 3600 });
  return { data: { user: { id: user.id, email: user.email, role: user.role }, accessToken, refreshToken } };
}

// Issue 30's AG1, BU1 and U1 (bench/baselineQuery2.ts), with this server's checks, errors and cursors.
const query2 = query2Routes(pool, {
  requireAnon,
  requireUser,
  readBody,
  fail: (status, message) => new HttpError(status, message),
  cursor: (binding, values) => encodeCursor(digestOf(JSON.stringify(binding)), values),
  decodeCursor: (cursor, binding) => decodeCursor(cursor, digestOf(JSON.stringify(binding))),
});

async function route(req: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://baseline');
  const parts = url.pathname.split('/').filter(Boolean);
  const [prefix, table, id] = parts;
  if (req.method === 'POST' && url.pathname === '/auth/signin') return [200, await signIn(req)];
  if (prefix !== 'api' || parts.length > 3) throw new HttpError(404, 'route');
  const answer = query2(req, url, table, id);
  if (answer) return answer;
  if (req.method === 'GET' && table === 'posts' && id === undefined) {
    requireAnon(req);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE), 100);
    const digest = digestOf(JSON.stringify(['posts', ['id.asc'], []]));
    return [200, page(await query('postsWithRelations', [limit + 1, 0]), limit, digest, true)];
  }
  if (req.method === 'GET' && table === ITEMS) {
    requireAnon(req);
    if (id === undefined) return [200, await list(url)];
    const row = (await query('get', [decodeURIComponent(id)]))[0];
    if (!row) throw new HttpError(404, 'row');
    return [200, { data: row }];
  }
  if (req.method === 'GET' && table === MY_ITEMS && id === undefined) {
    const userId = requireUser(req);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE), 100);
    const counted = url.searchParams.get('count') !== 'none';
    const digest = digestOf(JSON.stringify([MY_ITEMS, ['id.asc'], []]));
    return [200, page(await query(counted ? 'myList' : 'myPage', [limit + 1, 0, userId]), limit, digest, counted)];
  }
  if (req.method === 'GET' && table === SHARED_ITEMS && id === undefined) {
    const userId = requireUser(req);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE), 100);
    const digest = digestOf(JSON.stringify([SHARED_ITEMS, ['id.asc'], []]));
    return [200, page(await query('sharedList', [limit + 1, 0, userId]), limit, digest, true)];
  }
  if (req.method === 'GET' && table === TASKS && id === undefined) {
    const userId = requireUser(req);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE), 100);
    if (url.searchParams.get('order') !== 'createdAt.desc' || !Number.isInteger(limit)) throw new HttpError(400, 'query');
    const digest = digestOf(JSON.stringify([TASKS, ['createdAt.desc', 'id.desc'], []]));
    return [200, page(await query('memberTasks', [limit + 1, 0, userId]), limit, digest, true)];
  }
  if (req.method === 'GET' && table === ARTICLES && id !== undefined) {
    const userId = requireUser(req);
    const row = (await query('article', [decodeURIComponent(id), userId]))[0];
    if (!row) throw new HttpError(404, 'row');
    return [200, { data: row }];
  }
  if (req.method === 'POST' && table === TICKETS && id === undefined) {
    const userId = requireUser(req);
    const { title, project_id: projectId } = await readJson(req);
    if (typeof title !== 'string' || typeof projectId !== 'string') throw new HttpError(400, 'record');
    const row = (await query('ticket', [randomBytes(16).toString('base64url'), title, projectId, userId]))[0];
    if (!row) throw new HttpError(403, 'create');
    return [201, { data: row }];
  }
  if (table === MY_ITEMS && (req.method === 'POST' || req.method === 'PUT')) {
    const userId = requireUser(req);
    const body = await readBody(req);
    if (req.method === 'POST' && id === undefined && Array.isArray(body)) return [201, { data: await insertMany(userId, body) }];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body');
    const values = recordValues(body as Row);
    if (req.method === 'POST' && id === undefined) {
      const row = (await query('insert', [randomBytes(16).toString('base64url'), userId, ...values]))[0];
      if (!row) throw new HttpError(401, 'account');
      return [201, { data: row }];
    }
    if (req.method === 'PUT' && id !== undefined) {
      const row = (await query('upsert', [decodeURIComponent(id), userId, ...values]))[0];
      if (!row) throw new HttpError(404, 'row');
      const created = row.inserted === true;
      delete row.inserted;
      return [created ? 201 : 200, { data: row }];
    }
  }
  throw new HttpError(404, 'route');
}

// Issue 28's F1 and F2: files on disk (bench/baselineFiles.ts), streamed rather than answered as JSON.
const files = fileRoutes(pool, env('FILES_DIR'), { requireAnon, requireUser });
const server = http.createServer((req, res) => {
  if (files(req, res)) return;
  route(req).then(
    ([status, body]) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
    (error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) console.error(error);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: status, message: error instanceof HttpError ? error.message : 'internal' } }));
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(env('PORT') || 0), env('HOST') || '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`Baseline listening on http://${env('HOST') || '127.0.0.1'}:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close();
    void pool.end().finally(() => process.exit(0));
  });
}
