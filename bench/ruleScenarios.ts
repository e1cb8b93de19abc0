import { expectStatus, isObject, member, PAGE, seededId, type BenchProject, type HttpRequest, type Scenario } from './scenarios.js';

/**
 * Access rules (issue 24): R8, a member's page of tasks under a membership path rule (an EXISTS through projects and
 * memberships), with its exact total; R9, a get by id under `user_id = @auth.id or published = true`; W3, a create
 * under the membership rule. The baseline runs the same SQL by hand (bench/baseline.ts) on its own copies.
 */

export const PROJECTS = 'projects';
export const MEMBERSHIPS = 'memberships';
/** R8 reads tasks; W3 writes tickets (same shape and rules), so W3's rows never change R8's page or total. */
export const TASKS = 'tasks';
export const TICKETS = 'tickets';
export const ARTICLES = 'articles';

export const MEMBER_RULE = 'project.memberships.user_id = @auth.id';
export const ARTICLE_READ = 'user_id = @auth.id or published = true';

/**
 * The sizes of issue 24: 1,000 projects, 10,000 memberships (1,000 users in 10 projects each, the bench member one of
 * them), 100,000 tasks (100 per project, so the member sees 1,000), 10,000 articles.
 */
export const RULED = { projects: 1_000, users: 1_000, projectsPerUser: 10, tasks: 100_000, articles: 10_000 } as const;
/** User u (0..999) is in projects (u + j x PROJECT_STRIDE) mod 1,000, j = 0..9: 10 distinct ones, 10 members per project. */
export const PROJECT_STRIDE = RULED.projects / RULED.projectsPerUser;
/** Seeded ids (scenarios.ts' seededId, the same md5 formula in SQL). */
export const PROJECT_PREFIX = 'project';
export const TASK_PREFIX = 'task';
export const ARTICLE_PREFIX = 'article';

/** The bench member is user 0: projects 0, 100, ..., 900. */
export function memberProjectIds(): string[] {
  return Array.from({ length: RULED.projectsPerUser }, (_, j) => seededId(PROJECT_PREFIX, j * PROJECT_STRIDE));
}

type Json = Record<string, unknown>;
const TASK_KEYS = ['id', 'title', 'project_id', 'createdAt', 'updatedAt'];
const ARTICLE_KEYS = ['id', 'user_id', 'title', 'published', 'createdAt', 'updatedAt'];

function keysProblem(row: unknown, keys: string[]): string | null {
  if (!isObject(row)) return 'a record is not an object';
  const missing = keys.filter((key) => !(key in row));
  return missing.length ? `a record lacks ${missing.join(', ')}` : null;
}

export const R8: Scenario = {
  name: 'R8',
  title: `member's page of 20 tasks, order=createdAt.desc, exact total, read rule \`${MEMBER_RULE}\``,
  next: (project) => ({ method: 'GET', path: `/api/${TASKS}?limit=${PAGE}&order=createdAt.desc`, headers: member(project) }),
  check: (project, _request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !Array.isArray(body.data)) return 'no data array';
    if (body.total !== project.ruled.tasksMine) return `total ${String(body.total)}, expected ${project.ruled.tasksMine}`;
    const rows = body.data as Json[];
    if (rows.length !== Math.min(PAGE, project.ruled.tasksMine)) return `${rows.length} rows, expected ${PAGE}`;
    const shape = rows.map((row) => keysProblem(row, TASK_KEYS)).find(Boolean);
    if (shape) return shape;
    const mine = new Set(project.ruled.memberProjects);
    if (rows.some((row) => !mine.has(String(row.project_id)))) return "a task outside the member's projects";
    if (typeof body.next !== 'string') return 'no next cursor';
    const stamps = rows.map((row) => String(row.createdAt));
    return stamps.every((stamp, i) => i === 0 || stamp <= stamps[i - 1]!) ? null : 'not newest first';
  },
};

/**
 * Article n (1..10,000): n % 4 = 0 the member's, unpublished; 1 the member's, published; 2 another user's, published;
 * 3 another user's, unpublished (unreadable: R9 never asks for one, the check request does and wants 404).
 */
export function readableArticle(): number {
  const quarter = 1 + Math.floor(Math.random() * (RULED.articles / 4));
  return 4 * quarter - [0, 2, 3][Math.floor(Math.random() * 3)]!;
}

export const R9: Scenario = {
  name: 'R9',
  title: `get one article by a random readable id as the member, read rule \`${ARTICLE_READ}\``,
  next: (project) => ({ method: 'GET', path: `/api/${ARTICLES}/${seededId(ARTICLE_PREFIX, readableArticle())}`, headers: member(project) }),
  // Another user's draft: every server must answer 404, as if it did not exist.
  refused: {
    next: (project) => ({ method: 'GET', path: `/api/${ARTICLES}/${seededId(ARTICLE_PREFIX, 4 * (1 + Math.floor(Math.random() * (RULED.articles / 4))) - 1)}`, headers: member(project) }),
    check: (status) => expectStatus(status, 404),
  },
  check: (project, request, status, body) => {
    const problem = expectStatus(status, 200);
    if (problem) return problem;
    if (!isObject(body) || !isObject(body.data)) return 'no data object';
    const row = body.data;
    const shape = keysProblem(row, ARTICLE_KEYS);
    if (shape) return shape;
    if (row.id !== decodeURIComponent(request.path.split('/').pop() ?? '')) return 'another row than asked for';
    return row.user_id === project.member.id || row.published === true ? null : 'a row the rule does not let the member read';
  },
};

const ticketBody = (project: BenchProject, projectId?: string) =>
  JSON.stringify({
    title: `ticket ${Math.random().toString(36).slice(2, 10)}`,
    project_id: projectId ?? project.ruled.memberProjects[Math.floor(Math.random() * project.ruled.memberProjects.length)],
  });

export const W3: Scenario = {
  name: 'W3',
  title: `create a ticket in one of the member's projects, create rule \`${MEMBER_RULE}\``,
  next: (project): HttpRequest => ({ method: 'POST', path: `/api/${TICKETS}`, headers: member(project), body: ticketBody(project) }),
  // A project the member is not in: refused by every server, nothing written. Basalt checks the reference first (400
  // naming project_id: a project the member cannot read), the baseline's INSERT ... WHERE EXISTS writes nothing (403).
  refused: {
    next: (project) => ({ method: 'POST', path: `/api/${TICKETS}`, headers: member(project), body: ticketBody(project, seededId(PROJECT_PREFIX, 1)) }),
    check: (status, body) => {
      if (status === 403) return null;
      const details = isObject(body) && isObject(body.error) && isObject(body.error.details) ? body.error.details : null;
      return status === 400 && details?.field === 'project_id' ? null : `status ${status}, expected 403 or 400 naming project_id`;
    },
  },
  check: (_project, request, status, body) => {
    const problem = expectStatus(status, 201);
    if (problem) return problem;
    if (!isObject(body) || !isObject(body.data)) return 'no data object';
    const row = body.data;
    const shape = keysProblem(row, TASK_KEYS);
    if (shape) return shape;
    const sent = JSON.parse(request.body ?? '{}') as Json;
    return row.title === sent.title && row.project_id === sent.project_id ? null : 'title or project not stored';
  },
};

export const RULE_SCENARIOS: Scenario[] = [R8, R9, W3];
