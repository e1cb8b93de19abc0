import { createHash } from 'node:crypto';
import type { Query2Project } from './query2Scenarios.js';

/** Read scenarios use a public-read table; writes go to an owner-scoped one, so reads always see the seeded size. */
export const ITEMS = 'items';
export const MY_ITEMS = 'my_items';
/** R10's owner-scoped table, which the member shares with the owner (the member owns 5 rows in 8). */
export const SHARED_ITEMS = 'shared_items';
/** The schema of the baseline's own copies of these tables (bench/seed.ts): no Basalt trigger is ever on them. */
export const BARE = 'bare';
/** Issue 28's buckets (bench/files.ts): F1's small files, F3's photos, F2's large uploads; all public-read. */
export const BUCKETS = { files: 'public_files', photos: 'photos', transfers: 'transfers' } as const;
/** F1's files (random bytes), F3's photo (a 12-megapixel JPEG) and the variant F3 asks for. */
export const F1_FILES = 100;
export const F1_BYTES = 10 * 1024;
export const PHOTO = { width: 4000, height: 3000 };
export const VARIANT_QUERY = 'width=200&format=webp';
/** Seeded scores cycle through 0..SCORE_RANGE-1, so `score=42` matches exactly 20 rows at 10,000 rows. */
export const SCORE_RANGE = 500;
export const R3_SCORE = 42;
export const PAGE = 20;

/**
 * Seeded ids are derived from the row number (md5, 22 hex characters: as random as the ids the API generates), so
 * the load generator can pick a random existing row without holding a million ids. seed.ts uses the same formula in SQL.
 */
export function seededId(prefix: string, n: number): string {
  return createHash('md5').update(`${prefix}-${n}`).digest('hex').slice(0, 22);
}
export const ITEM_PREFIX = 'item';
export const MY_ITEM_PREFIX = 'mine';

/** What the requests need to know about the project they run against. */
export interface BenchProject {
  anonKey: string;
  member: { id: string; email: string; password: string; accessToken: string };
  /** Rows in `items` now, and how many of them have score 42. */
  rows: number;
  r3Total: number;
  /** Seeded rows of the member in `my_items` (W2 updates one of them at random). */
  myRows: number;
  /** The member's rows of my_items after the growth part's seeding (R7's total). */
  myTotal: number;
  /** R4's createdAt range and how many rows fall in it. */
  r4: { from: string; to: string; total: number };
  /** R6: rows in posts. */
  posts: number;
  /** R10: the member's rows in shared_items (their first page's total). */
  sharedMine: number;
  /** The owner's access token: the growth part makes shared_items anew through the admin API. */
  ownerToken: string;
  /** R5: the cursor of the row before the deep page, and that page's first id (the offset page starts there too). */
  deep: { cursor: string; firstId: string } | null;
  /** R8, W3 (issue 24): the member's projects (W3 writes in them) and the tasks R8's rule lets the member read. */
  ruled: { memberProjects: string[]; tasksMine: number };
  /** AG1, BU1, U1 (issue 30): seeded only when one of them runs (bench/query2Seed.ts). */
  query2?: Query2Project;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type ScenarioName = 'R1' | 'R2' | 'R3' | 'R4' | 'R6' | 'R8' | 'R9' | 'R10' | 'W1' | 'W2' | 'W3' | 'B1' | 'A1' | 'M1' | 'R5 page 1' | 'R5 cursor' | 'R5 offset' | 'R7' | 'R7 none' | 'F1' | 'F3' | 'AG1' | 'BU1' | 'U1';

export interface Scenario {
  name: ScenarioName;
  title: string;
  /** A fresh request (random ids where the scenario says so). */
  next(project: BenchProject): HttpRequest;
  /** Run this many times the usual duration when measured alone. */
  durationFactor?: number;
  /**
   * Measured in whole runs, each after the machine settles, never in slices: a request that takes a good part of a
   * slice (AG1, BU1, U1: tens to hundreds of ms, 32 at once) would leave its statements running in the next server's.
   */
  whole?: boolean;
  /** At most this many connections (fewer than the run's): AG1's requests, 32 at once, would mostly wait for a pooled connection. */
  connections?: number;
  /** Measured on the Basalt servers only (F3: a cached variant, compared with Basalt's own F1; the baseline has none). */
  basaltOnly?: boolean;
  /** A request every server must refuse, and why its answer is not that refusal: the baseline enforces the rule too. */
  refused?: { next(project: BenchProject): HttpRequest; check(status: number, body: unknown): string | null };
  /** Why a response is wrong, or null when it has the status and shape the contract promises. */
  check(project: BenchProject, request: HttpRequest, status: number, body: unknown): string | null;
}

const randomRow = (count: number) => 1 + Math.floor(Math.random() * count);
const anon = (project: BenchProject) => ({ apikey: project.anonKey });
const member = (project: BenchProject) => ({ authorization: `Bearer ${project.member.accessToken}`, 'content-type': 'application/json' });
const writeBody = () => JSON.stringify({ title: `bench ${Math.random().toString(36).slice(2, 10)}`, score: Math.floor(Math.random() * SCORE_RANGE), done: Math.random() < 0.5 });

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const ROW_KEY_LIST = ['id', 'user_id', 'title', 'score', 'done', 'createdAt', 'updatedAt'];

function rowProblem(row: unknown): string | null {
  if (!isObject(row)) return 'a record is not an object';
  const missing = ROW_KEY_LIST.filter((key) => !(key in row));
  return missing.length ? `a record lacks ${missing.join(', ')}` : null;
}

function expectStatus(status: number, wanted: number): string | null {
  return status === wanted ? null : `status ${status}, expected ${wanted}`;
}

function listProblem(body: unknown, expectedTotal: number, expectedLength: number): string | null {
  if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
  if (body.total !== expectedTotal) return `total ${String(body.total)}, expected ${expectedTotal}`;
  if (body.data.length !== expectedLength) return `${body.data.length} rows, expected ${expectedLength}`;
  return body.data.map(rowProblem).find(Boolean) ?? null;
}

function recordProblem(body: unknown, check: (row: Json) => string | null): string | null {
  if (!isObject(body) || !isObject(body.data)) return 'no data object';
  return rowProblem(body.data) ?? check(body.data);
}

function pathId(request: HttpRequest): string {
  return decodeURIComponent(request.path.split('/').pop() ?? '');
}

export const R1: Scenario = {
  name: 'R1',
  title: 'list, first page of 20 by id, anon key, public-read',
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}?limit=${PAGE}&order=id.asc`, headers: anon(project) }),
  check: (project, _request, status, body) => expectStatus(status, 200) ?? listProblem(body, project.rows, Math.min(PAGE, project.rows)),
};

export const R2: Scenario = {
  name: 'R2',
  title: 'get one row by a random id, anon key',
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}/${seededId(ITEM_PREFIX, randomRow(project.rows))}`, headers: anon(project) }),
  check: (_project, request, status, body) =>
    expectStatus(status, 200) ?? recordProblem(body, (row) => (row.id === pathId(request) ? null : 'another row than asked for')),
};

export const R3: Scenario = {
  name: 'R3',
  title: `equality filter score=${R3_SCORE}, page of 20 with its total`,
  next: (project) => ({ method: 'GET', path: `/api/${ITEMS}?${new URLSearchParams({ score: String(R3_SCORE), limit: String(PAGE) })}`, headers: anon(project) }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200) ?? listProblem(body, project.r3Total, Math.min(PAGE, project.r3Total));
    if (problem) return problem;
    return (body as { data: Json[] }).data.every((row) => row.score === R3_SCORE) ? null : `a row without score ${R3_SCORE}`;
  },
};

export const W1: Scenario = {
  name: 'W1',
  title: 'create a row as a signed-in member, owner-scoped table',
  next: (project) => ({ method: 'POST', path: `/api/${MY_ITEMS}`, headers: member(project), body: writeBody() }),
  check: (project, request, status, body) =>
    expectStatus(status, 201) ??
    recordProblem(body, (row) => {
      if (row.user_id !== project.member.id) return 'user_id is not the caller';
      return row.title === (JSON.parse(request.body ?? '{}') as Json).title ? null : 'title not stored';
    }),
};

export const W2: Scenario = {
  name: 'W2',
  title: 'upsert (PUT) an existing row of the member',
  next: (project) => ({
    method: 'PUT',
    path: `/api/${MY_ITEMS}/${seededId(MY_ITEM_PREFIX, randomRow(project.myRows))}`,
    headers: member(project),
    body: writeBody(),
  }),
  check: (project, request, status, body) =>
    expectStatus(status, 200) ??
    recordProblem(body, (row) => {
      if (row.id !== pathId(request)) return 'another row than asked for';
      if (row.user_id !== project.member.id) return 'user_id is not the caller';
      return row.score === (JSON.parse(request.body ?? '{}') as Json).score ? null : 'score not updated';
    }),
};

export const A1: Scenario = {
  name: 'A1',
  title: 'sign in (bcrypt cost 10)',
  // A server hashing on its main thread answers sign-ins in waves (a pool's worth of bcrypt runs before any session
  // insert completes), the first only after ~1 s: a short window would undercount it. 2.5 x 4 s holds many waves.
  durationFactor: 2.5,
  next: (project) => ({
    method: 'POST',
    path: '/auth/signin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: project.member.email, password: project.member.password }),
  }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !isObject(body.data) || !isObject(body.data.user)) return 'no data.user';
    const { user, accessToken, refreshToken } = body.data;
    if (user.id !== project.member.id || user.email !== project.member.email) return 'another user';
    return typeof accessToken === 'string' && typeof refreshToken === 'string' ? null : 'tokens missing';
  },
};

/** The mix: 80% reads (R1-R3 alike), 15% writes (W1/W2 alike), 5% sign-ins. */
const MIX: Array<[Scenario, number]> = [
  [R1, 80 / 3],
  [R2, 80 / 3],
  [R3, 80 / 3],
  [W1, 7.5],
  [W2, 7.5],
  [A1, 5],
];

function pickFromMix(): Scenario {
  let roll = Math.random() * 100;
  for (const [scenario, weight] of MIX) {
    roll -= weight;
    if (roll < 0) return scenario;
  }
  return MIX[0]![0];
}

/** Each request of M1 is one of the other scenarios', so it is checked as that scenario checks it. */
const byRequest = new WeakMap<HttpRequest, Scenario>();

export const M1: Scenario = {
  name: 'M1',
  title: 'mix: 80% R1-R3, 15% W1/W2, 5% A1',
  next: (project) => {
    const scenario = pickFromMix();
    const request = scenario.next(project);
    byRequest.set(request, scenario);
    return request;
  },
  check: (project, request, status, body) => (byRequest.get(request) ?? R1).check(project, request, status, body),
};

export const SCENARIOS: Scenario[] = [R1, R2, R3, W1, W2, A1, M1];
export { anon, expectStatus, isObject, listProblem, member, recordProblem, writeBody };
export const READS: Scenario[] = [R1, R2, R3];
