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
import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { ITEMS, MY_ITEMS, PAGE } from './scenarios.js';

const env = (name: string) => process.env[name] ?? '';
// The same pool size as each Basalt process (knex pool max 10), so neither side gets more database concurrency.
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const key = createSecretKey(Buffer.from(env('JWT_SECRET'), 'utf8'));
// Basalt's anon key for the same secret: a fixed JWT, so a string comparison checks it.
const anonKey = jwt.sign({ role: 'anon', typ: 'anon' }, key, { algorithm: 'HS256', noTimestamp: true });
// An unknown email still costs one bcrypt comparison, as in Basalt.
const dummyHash = bcrypt.hashSync('dummy password that never matches', 10);

type Row = Record<string, unknown>;
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// The page and its exact total in one statement: the count as a scalar subquery joined laterally to the page, so
// Postgres does not walk the whole ordered result (count(*) OVER () does).
const listSql = (where: string) =>
  `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM ${ITEMS} ${where}) t
   LEFT JOIN LATERAL (SELECT * FROM ${ITEMS} ${where} ORDER BY id LIMIT $1 OFFSET $2) p ON true`;
const STATEMENTS = {
  list: listSql(''),
  listByScore: listSql('WHERE score = $3'),
  get: `SELECT * FROM ${ITEMS} WHERE id = $1`,
  // The account must still exist (an access token outlives its account); checked inside the same statement.
  insert: `INSERT INTO ${MY_ITEMS} (id, user_id, title, score, done)
           SELECT $1, u.id, $3, $4, $5 FROM users u WHERE u.id = $2 RETURNING *`,
  upsert: `INSERT INTO ${MY_ITEMS} (id, user_id, title, score, done)
           SELECT $1, u.id, $3, $4, $5 FROM users u WHERE u.id = $2
           ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, score = EXCLUDED.score, done = EXCLUDED.done, "updatedAt" = now()
           WHERE ${MY_ITEMS}.user_id = $2
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

async function readJson(req: http.IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body');
  return body as Row;
}

function recordValues(body: Row): [string, number, boolean] {
  const { title, score, done } = body;
  if (typeof title !== 'string' || !Number.isInteger(score) || typeof done !== 'boolean') throw new HttpError(400, 'record');
  return [title, score as number, done];
}

async function list(url: URL): Promise<{ data: Row[]; total: number }> {
  const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE), 100);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const order = url.searchParams.get('order') ?? 'id.asc';
  if (!Number.isInteger(limit) || !Number.isInteger(offset) || order !== 'id.asc') throw new HttpError(400, 'query');
  const score = url.searchParams.get('score');
  const rows = score === null ? await query('list', [limit, offset]) : await query('listByScore', [limit, offset, Number(score)]);
  const total = (rows[0]?.total as number | undefined) ?? 0;
  const data: Row[] = [];
  for (const row of rows) {
    if (row.id === null) continue; // the LEFT JOIN's row when the page is empty
    delete row.total;
    data.push(row);
  }
  return { data, total };
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

async function route(req: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://baseline');
  const parts = url.pathname.split('/').filter(Boolean);
  const [prefix, table, id] = parts;
  if (req.method === 'POST' && url.pathname === '/auth/signin') return [200, await signIn(req)];
  if (prefix !== 'api' || parts.length > 3) throw new HttpError(404, 'route');
  if (req.method === 'GET' && table === ITEMS) {
    requireAnon(req);
    if (id === undefined) return [200, await list(url)];
    const row = (await query('get', [decodeURIComponent(id)]))[0];
    if (!row) throw new HttpError(404, 'row');
    return [200, { data: row }];
  }
  if (table === MY_ITEMS && (req.method === 'POST' || req.method === 'PUT')) {
    const userId = requireUser(req);
    const values = recordValues(await readJson(req));
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

const server = http.createServer((req, res) => {
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
