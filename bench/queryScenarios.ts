import { R8, R9, W3 } from './ruleScenarios.js';
import { AG1, BU1, U1 } from './query2Scenarios.js';
import { A1, ITEMS, M1, MY_ITEMS, PAGE, R1, R2, R3, READS, SHARED_ITEMS, W1, W2, anon, expectStatus, isObject, listProblem, member, writeBody, type BenchProject, type Scenario } from './scenarios.js';

/**
 * The query language's scenarios (issue 11): R4, a range filter ordered by an indexed timestamp; R5, a page deep in a
 * million rows by cursor and by offset beside the first page; B1, bulk inserts of 100 rows.
 */

/** Seeded rows get createdAt = SEED_EPOCH + n seconds (seed.ts); R4 asks for n in [R4_FROM, R4_TO). */
export const SEED_EPOCH = Date.UTC(2026, 0, 1);
const R4_FROM = 1_000;
const R4_TO = 2_000;
/** R5's deep page: page 5,000 of 20 rows. */
export const DEEP_OFFSET = 4_999 * PAGE;
export const BULK_ROWS = 100;

export function r4Range(): { from: string; to: string } {
  return { from: new Date(SEED_EPOCH + R4_FROM * 1000).toISOString(), to: new Date(SEED_EPOCH + R4_TO * 1000).toISOString() };
}

type Json = Record<string, unknown>;

function pageProblem(body: unknown, length: number): string | null {
  if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
  if (body.data.length !== length) return `${body.data.length} rows, expected ${length}`;
  if ('total' in body) return 'a total although count=none';
  return typeof body.next === 'string' ? null : 'no next cursor';
}

export const R4: Scenario = {
  name: 'R4',
  title: 'range filter on createdAt, order=createdAt.desc (index on createdAt, id), page of 20 with its total',
  next: (project) => ({
    method: 'GET',
    path: `/api/${ITEMS}?${new URLSearchParams({ 'createdAt[gte]': project.r4.from, 'createdAt[lt]': project.r4.to, order: 'createdAt.desc', limit: String(PAGE) })}`,
    headers: anon(project),
  }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200) ?? listProblem(body, project.r4.total, Math.min(PAGE, project.r4.total));
    if (problem) return problem;
    const stamps = (body as { data: Json[] }).data.map((row) => String(row.createdAt));
    const inRange = stamps.every((stamp) => stamp >= project.r4.from && stamp < project.r4.to);
    return inRange && stamps.every((stamp, i) => i === 0 || stamp <= stamps[i - 1]!) ? null : 'rows out of range or not newest first';
  },
};

export const B1: Scenario = {
  name: 'B1',
  title: `bulk insert, ${BULK_ROWS} rows per request, as a member (owner-scoped)`,
  next: (project) => ({
    method: 'POST',
    path: `/api/${MY_ITEMS}`,
    headers: member(project),
    body: `[${Array.from({ length: BULK_ROWS }, writeBody).join(',')}]`,
  }),
  check: (project, request, status, body) => {
    const problem = expectStatus(status, 201);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data) || body.data.length !== BULK_ROWS) return `not ${BULK_ROWS} records`;
    const sent = JSON.parse(request.body ?? '[]') as Json[];
    const rows = body.data as Json[];
    if (rows.some((row) => row.user_id !== project.member.id)) return 'user_id is not the caller';
    return rows.every((row, i) => row.title === sent[i]!.title) ? null : 'records not in the order sent';
  },
};

export const R5_FIRST: Scenario = {
  name: 'R5 page 1',
  title: 'first page of 20 by id, count=none',
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}?limit=${PAGE}&count=none`, headers: anon(project) }),
  check: (_project, _request, status, body) => expectStatus(status, 200) ?? pageProblem(body, PAGE),
};

function deepProblem(project: BenchProject, status: number, body: unknown): string | null {
  const problem = expectStatus(status, 200) ?? pageProblem(body, PAGE);
  if (problem) return problem;
  return (body as { data: Json[] }).data[0]?.id === project.deep?.firstId ? null : 'not the deep page';
}

export const R5_CURSOR: Scenario = {
  name: 'R5 cursor',
  title: `page 5,000 of 20 by cursor (after=), count=none`,
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}?limit=${PAGE}&count=none&after=${encodeURIComponent(project.deep?.cursor ?? '')}`, headers: anon(project) }),
  check: (project, _request, status, body) => deepProblem(project, status, body),
};

export const R5_OFFSET: Scenario = {
  name: 'R5 offset',
  title: `page 5,000 of 20 by offset=${DEEP_OFFSET}, count=none`,
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}?limit=${PAGE}&count=none&offset=${DEEP_OFFSET}`, headers: anon(project) }),
  check: (project, _request, status, body) => deepProblem(project, status, body),
};

/**
 * The cursor of the row just before page 5,000 and that page's first id, asked of Basalt itself: a cursor is opaque,
 * and bound to table, order and filters (not to limit or count), so one from a page of 1 serves a page of 20.
 */
export async function findDeepPage(basaltUrl: string, project: BenchProject): Promise<void> {
  const page = async (query: string) => {
    const response = await fetch(`${basaltUrl}/api/${ITEMS}?${query}`, { headers: anon(project) });
    return (await response.json()) as { data: Json[]; next: string | null };
  };
  const before = await page(`limit=1&count=none&offset=${DEEP_OFFSET - 1}`);
  const first = await page(`limit=1&count=none&offset=${DEEP_OFFSET}`);
  if (!before.next || !first.data[0]) throw new Error(`items has fewer than ${DEEP_OFFSET + PAGE} rows: no deep page`);
  project.deep = { cursor: before.next, firstId: String(first.data[0].id) };
}

/** R6's tables: posts by authors, five comments on each post (seed.ts). */
export const POSTS = 'posts';
export const COMMENTS_PER_POST = 5;
const R6_QUERY = `limit=${PAGE}&select=*,author(*),comments(*)&comments.order=createdAt.desc&comments.limit=3`;

export const R6: Scenario = {
  name: 'R6',
  title: 'list of 20 posts, each with its author and its 3 latest comments embedded (one statement)',
  next: (project) => ({ method: 'GET', path: `/api/${POSTS}?${R6_QUERY}`, headers: anon(project) }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data) || body.data.length !== PAGE) return `not ${PAGE} posts`;
    if (body.total !== project.posts) return `total ${String(body.total)}, expected ${project.posts}`;
    for (const post of body.data as Json[]) {
      if (!isObject(post.author) || typeof post.author.name !== 'string') return 'a post without its author';
      const comments = post.comments as Json[];
      if (!Array.isArray(comments) || comments.length !== 3) return 'a post without its 3 latest comments';
      const stamps = comments.map((comment) => String(comment.createdAt));
      if (!stamps.every((stamp, i) => i === 0 || stamp <= stamps[i - 1]!)) return 'comments not newest first';
    }
    return null;
  },
};

/** The growth part's owner-scoped rows of the member (issue 16): seeded beside the main part's 10,000. */
export const GROWTH_MY_ROWS = 500_000;

export const R7: Scenario = {
  name: 'R7',
  title: `owner-scoped list: the member's first page of 20 by id with its total (${GROWTH_MY_ROWS.toLocaleString('en-US')} rows, all theirs)`,
  next: (project) => ({ method: 'GET', path: `/api/${MY_ITEMS}?limit=${PAGE}&order=id.asc`, headers: member(project) }),
  check: (project, _request, status, body) => expectStatus(status, 200) ?? listProblem(body, project.myTotal, PAGE),
};

export const R7_NONE: Scenario = {
  name: 'R7 none',
  title: 'the same page without a total (count=none)',
  next: (project) => ({ method: 'GET', path: `/api/${MY_ITEMS}?limit=${PAGE}&order=id.asc&count=none`, headers: member(project) }),
  check: (_project, _request, status, body) => expectStatus(status, 200) ?? pageProblem(body, PAGE),
};

/**
 * Issue 22: the member's first page of an owner-scoped table they share with others (5 rows in 8 theirs), in the
 * default order, with its total: at 1,000 of 1,600 rows (main part, analysed) and at 500,000 of 800,000 loaded by SQL
 * and never analysed (growth part). An index on the owner column alone made the planner fetch and sort all 500,000.
 */
export const R10: Scenario = {
  name: 'R10',
  title: "owner-scoped list shared with another user: the member's first page of 20 with its total",
  next: (project) => ({ method: 'GET', path: `/api/${SHARED_ITEMS}?limit=${PAGE}`, headers: member(project) }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200) ?? listProblem(body, project.sharedMine, PAGE);
    if (problem) return problem;
    return (body as { data: Json[] }).data.every((row) => row.user_id === project.member.id) ? null : "a row that is not the member's";
  },
};

/**
 * Issue 16's targets compare Basalt's page with its total to the baseline's same page without one; each pair is
 * measured in slices taken in turn (like the main part), so both sides see the same machine.
 */
export const TOTAL_PAIRS: Array<{ name: string; basalt: Scenario; baseline: Scenario }> = [
  { name: 'T1', basalt: R1, baseline: R5_FIRST },
  { name: 'T7', basalt: R7, baseline: R7_NONE },
];

/** R5's target compares page 5,000 by cursor with page 1 on the same server: measured in turns, slice by slice. */
export const DEEP_PAIR: Array<[string, Scenario]> = [
  ['D1', R5_FIRST],
  ['D5000', R5_CURSOR],
];

/**
 * The main part: the issue-6 scenarios with R4, R6, R10, B1, the access rules' R8, R9 and W3 (issue 24) and the query
 * language's second part, AG1, BU1 and U1 (issue 30, query2Scenarios.ts), beside them.
 */
export const MAIN_SCENARIOS: Scenario[] = [R1, R2, R3, R4, R6, R8, R9, R10, W1, W2, W3, B1, AG1, BU1, U1, A1, M1];
/** The growth part at a million rows: R1-R3 again, R5's three pages, R7's owner-scoped page with and without total, R10 at 800,000. */
export const GROWTH_SCENARIOS: Scenario[] = [...READS, R5_FIRST, R5_CURSOR, R5_OFFSET, R7, R7_NONE, R10];

