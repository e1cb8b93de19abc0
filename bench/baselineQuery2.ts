/**
 * The baseline's routes for issue 30's scenarios (bench/query2Scenarios.ts), as a hand-written node:http + pg backend
 * would write them, on its own copies of the tables (schema `bare`, no trigger), one named statement per request:
 * - AG1 `GET /api/events?select=status,count(),avg(score)`: `SELECT status, count(*), avg(score) ... GROUP BY status
 *   ORDER BY status LIMIT n + 1` (a row past the page says whether a next one exists, as Basalt reads it).
 * - BU1 `PATCH /api/batches?score[gte]=A&score[lt]=B` `{ label }`: `UPDATE ... WHERE user_id = <caller> AND score >= A
 *   AND score < B RETURNING *`. No guard on how many rows match: the plain statement the issue compares with.
 * - U1 `POST /api/contacts?onConflict=email` `[{ email, name, score }, ...]`: one `INSERT ... SELECT ... FROM
 *   unnest(...) ON CONFLICT (email) DO UPDATE ... WHERE <the caller's row> RETURNING *`, rows in the order sent.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type pg from 'pg';
import { BARE } from './scenarios.js';
import { AG1_SELECT, BATCHES, CONTACTS, EVENTS } from './query2Scenarios.js';

type Row = Record<string, unknown>;

const STATEMENTS = {
  groups: `SELECT status, count(*)::int AS count, avg(score)::float8 AS avg FROM ${BARE}.${EVENTS} GROUP BY status ORDER BY status LIMIT $1`,
  groupsAfter: `SELECT status, count(*)::int AS count, avg(score)::float8 AS avg FROM ${BARE}.${EVENTS} GROUP BY status HAVING status > $2 ORDER BY status LIMIT $1`,
  changeBatches: `UPDATE ${BARE}.${BATCHES} SET label = $1, "updatedAt" = now() WHERE user_id = $2 AND score >= $3 AND score < $4 RETURNING *`,
  upsertContacts: `INSERT INTO ${BARE}.${CONTACTS} AS c (id, user_id, email, name, score)
                   SELECT u.id, $1, u.email, u.name, u.score
                     FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS u(id, email, name, score, n)
                    WHERE EXISTS (SELECT 1 FROM users WHERE id = $1) ORDER BY u.n
                   ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name, score = EXCLUDED.score, "updatedAt" = now() WHERE c.user_id = $1
                   RETURNING *`,
};

export interface Query2Checks {
  requireAnon(req: http.IncomingMessage): void;
  requireUser(req: http.IncomingMessage): string;
  readBody(req: http.IncomingMessage): Promise<unknown>;
  /** An error the baseline answers with this status. */
  fail(status: number, message: string): Error;
  /** The baseline's signed cursor over these order keys (bound to the table and the query). */
  cursor(binding: unknown[], values: string[]): string;
  decodeCursor(cursor: string, binding: unknown[]): string;
}

/** The answer to one of these requests, or null when the request is none of them. */
export function query2Routes(pool: pg.Pool, checks: Query2Checks): (req: http.IncomingMessage, url: URL, table?: string, id?: string) => Promise<[number, unknown]> | null {
  const query = async (name: keyof typeof STATEMENTS, values: unknown[]) => (await pool.query({ name: `q2-${name}`, text: STATEMENTS[name], values })).rows as Row[];
  const number = (value: string | null, name: string) => {
    const parsed = Number(value);
    if (value === null || !Number.isInteger(parsed)) throw checks.fail(400, name);
    return parsed;
  };

  const groups = async (req: http.IncomingMessage, url: URL): Promise<[number, unknown]> => {
    checks.requireAnon(req);
    const params = url.searchParams;
    if (params.get('select') !== AG1_SELECT) throw checks.fail(400, 'select');
    const limit = Math.min(params.has('limit') ? number(params.get('limit'), 'limit') : 20, 100);
    const binding = [EVENTS, AG1_SELECT];
    const after = params.get('after');
    const rows = after === null ? await query('groups', [limit + 1]) : await query('groupsAfter', [limit + 1, checks.decodeCursor(after, binding)]);
    const data = rows.slice(0, limit);
    const next = rows.length > limit ? checks.cursor(binding, [String(data[limit - 1]!.status)]) : null;
    return [200, { data, next }];
  };

  const change = async (req: http.IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const userId = checks.requireUser(req);
    const params = url.searchParams;
    const [from, to] = [number(params.get('score[gte]'), 'score[gte]'), number(params.get('score[lt]'), 'score[lt]')];
    const body = await checks.readBody(req);
    const label = typeof body === 'object' && body !== null ? (body as Row).label : undefined;
    if (typeof label !== 'string') throw checks.fail(400, 'label');
    return [200, { data: await query('changeBatches', [label, userId, from, to]) }];
  };

  const upsert = async (req: http.IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const userId = checks.requireUser(req);
    if (url.searchParams.get('onConflict') !== 'email') throw checks.fail(400, 'onConflict');
    const body = await checks.readBody(req);
    if (!Array.isArray(body) || body.length === 0 || body.length > 1000) throw checks.fail(400, 'body');
    const records = body as Row[];
    const emails = records.map((record) => record.email);
    const valid = records.every((record) => typeof record.email === 'string' && typeof record.name === 'string' && Number.isInteger(record.score));
    if (!valid || new Set(emails).size !== emails.length) throw checks.fail(400, 'records');
    const rows = await query('upsertContacts', [
      userId,
      records.map(() => randomBytes(16).toString('base64url')),
      emails,
      records.map((record) => record.name),
      records.map((record) => record.score),
    ]);
    // Fewer rows: the account is gone, or an email is another user's (the scenario never sends one).
    if (rows.length !== records.length) throw checks.fail(403, 'conflict');
    return [201, { data: rows }];
  };

  return (req, url, table, id) => {
    if (id !== undefined) return null;
    if (req.method === 'GET' && table === EVENTS) return groups(req, url);
    if (req.method === 'PATCH' && table === BATCHES) return change(req, url);
    if (req.method === 'POST' && table === CONTACTS) return upsert(req, url);
    return null;
  };
}
