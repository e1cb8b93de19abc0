import { randomBytes } from 'node:crypto';
import { anon, expectStatus, isObject, member, type BenchProject, type HttpRequest, type Scenario } from './scenarios.js';

/**
 * The query language's second part (issue 30), each against the baseline's same SQL by hand (bench/baselineQuery2.ts):
 * - AG1 `GET /api/events?select=status,count(),avg(score)` over 1,000,000 rows (10 statuses, an index on status):
 *   `SELECT status, count(*), avg(score) ... GROUP BY status ORDER BY status LIMIT ...`.
 * - BU1 `PATCH /api/batches?score[gte]=A&score[lt]=A+1000` as the member (owner-scoped), body `{ label }`: a change
 *   by filter of exactly 1,000 rows, a random block of them each time (scores are unique), so concurrent requests
 *   seldom wait on each other's row locks (one fixed set of 1,000 rows would measure a queue on its locks), and the
 *   table keeps its rows: `UPDATE ... WHERE user_id = $1 AND score >= $2 AND score < $3 RETURNING *`.
 * - U1 `POST /api/contacts?onConflict=email` as the member (owner-scoped), an array of 100: the 80 contacts of a
 *   random block (existing emails, new name and score) then 20 new emails: `INSERT ... ON CONFLICT (email) DO UPDATE
 *   ... RETURNING *`. Blocks are in email order, the same in every request, so two requests never lock in opposite orders.
 * Tables made through the admin API, rows by SQL (bench/query2Seed.ts); the baseline's copies in `bare`.
 */

export const EVENTS = 'events';
export const BATCHES = 'batches';
export const CONTACTS = 'contacts';
export const QUERY2_NAMES: readonly string[] = ['AG1', 'BU1', 'U1'];

export const AG1_SELECT = 'status,count(),avg(score)';
export const STATUSES = 10;
/** BU1: rows per change (Basalt's default and largest `limit`), and U1: records per request, of them existing. */
export const BU1_ROWS = 1_000;
export const U1_ROWS = 100;
export const U1_EXISTING = 80;

/** The sizes of the issue (the smoke run's are smaller: it checks answers only). */
export function query2Sizes(smoke: boolean): { events: number; batches: number; contacts: number } {
  return smoke ? { events: 10_000, batches: 10 * BU1_ROWS, contacts: 10 * U1_EXISTING } : { events: 1_000_000, batches: 200 * BU1_ROWS, contacts: 1_250 * U1_EXISTING };
}

/** What the requests and checks need to know of these tables (set by bench/query2Seed.ts). */
export interface Query2Project {
  /** AG1's expected groups, in status order (avg as float8). */
  groups: Array<{ status: string; count: number; avg: number }>;
  events: number;
  batches: number;
  contacts: number;
}

/** Seeded statuses, scores and emails: the same formulas in SQL (bench/query2Seed.ts). */
export const statusOf = (i: number) => `status-${String(i % STATUSES).padStart(2, '0')}`;
export const contactEmail = (i: number) => `contact-${String(i).padStart(7, '0')}@bench.test`;

type Json = Record<string, unknown>;
const query2 = (project: BenchProject): Query2Project => {
  if (!project.query2) throw new Error('the query2 tables are not seeded (bench/query2Seed.ts)');
  return project.query2;
};
const random = (n: number) => Math.floor(Math.random() * n);
const sentBody = (request: HttpRequest) => JSON.parse(request.body ?? 'null') as unknown;

export const AG1: Scenario = {
  name: 'AG1',
  title: `aggregates: select=${AG1_SELECT}, grouped by status over 1,000,000 rows (index on status)`,
  // Each request scans the million rows (about 200 ms of Postgres here): whole runs, 2.5 x as long as the others, on
  // 10 connections, each server's pool size: at 32, 22 requests waited in a pool for seconds (Basalt answers 503
  // after 5 s of waiting for a connection: one run in nine did at 32), and no more statements ran.
  whole: true,
  durationFactor: 2.5,
  connections: 10,
  next: (project) => ({ method: 'GET', path: `/api/${EVENTS}?select=${encodeURIComponent(AG1_SELECT)}`, headers: anon(project) }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
    if ('total' in body) return 'a total in an aggregate answer';
    if (body.next !== null && body.next !== undefined) return 'a next cursor although every group fits the page';
    const expected = query2(project).groups;
    if (body.data.length !== expected.length) return `${body.data.length} groups, expected ${expected.length}`;
    for (const [i, group] of (body.data as unknown[]).entries()) {
      const want = expected[i]!;
      if (!isObject(group)) return 'a group is not an object';
      if (Object.keys(group).sort().join(',') !== 'avg,count,status') return `group keys ${Object.keys(group).join(',')}, expected status,count,avg`;
      if (group.status !== want.status) return `group ${i} is ${String(group.status)}, expected ${want.status} (groups in status order)`;
      if (group.count !== want.count) return `count ${String(group.count)} for ${want.status}, expected ${want.count}`;
      if (typeof group.avg !== 'number' || Math.abs(group.avg - want.avg) > 0.01) return `avg ${String(group.avg)} for ${want.status}, expected ${want.avg}`;
    }
    return null;
  },
};

export const BU1: Scenario = {
  name: 'BU1',
  title: `change by filter: PATCH ${BU1_ROWS.toLocaleString('en-US')} rows (a random block of scores) as the member, owner-scoped`,
  // Tens of requests a second (each writes 1,000 rows and commits): whole runs, 2.5 x as long as the others.
  whole: true,
  durationFactor: 2.5,
  next: (project) => {
    const from = random(query2(project).batches / BU1_ROWS) * BU1_ROWS;
    const filters = new URLSearchParams({ 'score[gte]': String(from), 'score[lt]': String(from + BU1_ROWS) });
    return { method: 'PATCH', path: `/api/${BATCHES}?${filters}`, headers: member(project), body: JSON.stringify({ label: `label ${randomBytes(6).toString('base64url')}` }) };
  },
  check: (project, request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
    if (body.data.length !== BU1_ROWS) return `${body.data.length} rows changed, expected ${BU1_ROWS}`;
    const params = new URL(request.path, 'http://bench').searchParams;
    const [from, to] = [Number(params.get('score[gte]')), Number(params.get('score[lt]'))];
    const label = (sentBody(request) as Json).label;
    for (const row of body.data as unknown[]) {
      if (!isObject(row)) return 'a row is not an object';
      if (row.label !== label) return 'a row without the label sent';
      if (typeof row.score !== 'number' || row.score < from || row.score >= to) return 'a row outside the filter';
      if (row.user_id !== project.member.id) return 'a row that is not the member’s';
    }
    return null;
  },
};

export const U1: Scenario = {
  name: 'U1',
  title: `upsert of ${U1_ROWS} records on a unique email (onConflict=email): ${U1_EXISTING} existing, ${U1_ROWS - U1_EXISTING} new`,
  whole: true,
  next: (project) => {
    const block = random(query2(project).contacts / U1_EXISTING) * U1_EXISTING;
    const tag = randomBytes(6).toString('base64url');
    const records = Array.from({ length: U1_ROWS }, (_, i) => ({
      email: i < U1_EXISTING ? contactEmail(block + i) : `new-${tag}-${i}@bench.test`,
      name: `name ${tag} ${i}`,
      score: random(1_000),
    }));
    return { method: 'POST', path: `/api/${CONTACTS}?onConflict=email`, headers: member(project), body: JSON.stringify(records) };
  },
  check: (project, request, status, body) => {
    const problem = expectStatus(status, 201);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
    if (body.data.length !== U1_ROWS) return `${body.data.length} rows, expected ${U1_ROWS}`;
    const sent = sentBody(request) as Json[];
    for (const [i, row] of (body.data as unknown[]).entries()) {
      if (!isObject(row)) return 'a row is not an object';
      if (row.email !== sent[i]!.email) return 'rows not in the order sent';
      if (row.name !== sent[i]!.name || row.score !== sent[i]!.score) return 'a row without the values sent';
      if (row.user_id !== project.member.id) return 'a row that is not the member’s';
    }
    return null;
  },
};

export const QUERY2_SCENARIOS: Scenario[] = [AG1, BU1, U1];

/** The report's lines on these scenarios (bench/report.ts, under Scenarios). */
export function query2ScenarioLines(): string[] {
  const [events, batches, contacts] = Object.values(query2Sizes(false)).map((n) => n.toLocaleString('en-US'));
  return [
    `- Query language, part 2 (issue 30), on tables made by the admin API, rows by SQL: AG1 \`GET /api/${EVENTS}?select=${AG1_SELECT}\` (anon key,`,
    `  public-read; ${events} rows, ${STATUSES} statuses, index on status; 10 connections, the pool's size) against \`SELECT status, count(*),`,
    '  avg(score) ... GROUP BY status ORDER BY status LIMIT 21`; BU1 `PATCH /api/' + BATCHES + '?score[gte]=A&score[lt]=A+1000` `{ label }` as the member',
    `  (owner-scoped, ${batches} rows, unique scores, index on score; a random block of ${BU1_ROWS.toLocaleString('en-US')} rows changed per request, so concurrent`,
    '  requests seldom wait on the same row locks) against `UPDATE ... WHERE user_id = $1 AND score >= $2 AND score < $3 RETURNING *`;',
    `  U1 \`POST /api/${CONTACTS}?onConflict=email\` as the member, ${U1_ROWS} records (a random block of ${U1_EXISTING} of the ${contacts} seeded emails with new`,
    `  values, then ${U1_ROWS - U1_EXISTING} new emails; email unique) against \`INSERT ... SELECT ... FROM unnest(...) ON CONFLICT (email) DO UPDATE ... RETURNING *\`.`,
    '  The three run whole (never in slices), each run after the machine settles; AG1 and BU1 2.5 x as long as the others.',
  ];
}
