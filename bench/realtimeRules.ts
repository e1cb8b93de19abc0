/**
 * RT2 (issue 24), run by `npm run bench:realtime` after RT1 (`--only RT2` alone): realtime under an access rule.
 * 500 members stream `tasks`, whose read rule is `project.memberships.user_id = @auth.id` (100 projects, each member
 * in 2, so about 10 members per project), on one Basalt process (WORKERS=1); 200 writes a second, each a task created
 * through /api by a random member in one of their projects (so under the create rule too). Every change must reach
 * exactly the members of its project: each (task, member) pair is checked, none missed, none extra, none twice.
 * Measures delivery latency (writer's response -> subscriber's receipt), deliveries per second, and the CPU of
 * Postgres (the postmaster's process tree, as bench/measure.ts measures it) and of the Basalt process per change.
 * `--smoke`: 20 streams on 4 projects, 50 writes a second for 2 s (bench/smoke.test.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jwt from 'jsonwebtoken';
import { freePort, onServer, provisionDatabase, startServer, treeCpuMs, type ServerProcess } from './processes.js';
import { fmt, mark, table } from './format.js';
import { writeMarkedSection } from './report.js';
import { createMembershipTables } from './seed.js';
import { seededId } from './scenarios.js';
import { MEMBER_RULE, MEMBERSHIPS, PROJECT_PREFIX, PROJECTS, TASKS } from './ruleScenarios.js';
import { listen, percentile } from './streams.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RulesRealtimeOptions {
  smoke: boolean;
  members: number;
  projects: number;
  /** Projects each member is in (member m: (m + j x projects/projectsPerMember) mod projects, j < projectsPerMember). */
  projectsPerMember: number;
  writesPerSecond: number;
  durationS: number;
  warmupS: number;
  out: string | null;
  databaseUrl?: string;
}

export interface RulesRealtimeOutcome {
  ok: boolean;
  problems: string[];
  writes: number;
  /** (task, member) deliveries the rule calls for, those received, and the differences. */
  expected: number;
  delivered: number;
  missed: number;
  extra: number;
  p50: number;
  p99: number;
  /** Deliveries received per second over the measured window (after warm-up). */
  deliveriesPerSecond: number;
  /** CPU ms per change written in the measured window: the whole Postgres server (null when not on this machine), the Basalt process. */
  dbCpuMsPerChange: number | null;
  serverCpuMsPerChange: number;
}

export function rulesRealtimeOptions(smoke: boolean, durationS?: number, out?: string, databaseUrl?: string): RulesRealtimeOptions {
  return {
    smoke,
    members: smoke ? 20 : 500,
    projects: smoke ? 4 : 100,
    projectsPerMember: 2,
    writesPerSecond: smoke ? 50 : 200,
    durationS: durationS ?? (smoke ? 2 : 60),
    warmupS: smoke ? 0 : 10,
    out: out ?? (smoke ? null : path.join(root, 'docs/performance.md')),
    databaseUrl,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runRulesRealtimeBench(options: RulesRealtimeOptions): Promise<RulesRealtimeOutcome> {
  if (options.projects % options.projectsPerMember !== 0) throw new Error('projects must be a multiple of projectsPerMember');
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-rt2-'));
  fs.chmodSync(tempDir, 0o755);
  const problems: string[] = [];
  const db = await provisionDatabase(tempDir, options.databaseUrl);
  let server: ServerProcess | undefined;
  const requests: http.ClientRequest[] = [];
  try {
    const secret = randomBytes(36).toString('base64url');
    server = await startServer({
      name: 'basalt-rt2',
      args: [path.join(root, 'server/dist/main.js')],
      env: { HOST: '127.0.0.1', PORT: String(await freePort()), DATABASE_URL: db.url, JWT_SECRET: secret, NODE_ENV: 'production', WORKERS: '1', LOG_LEVEL: 'warn', METRICS_TOKEN: '' },
      logDir: tempDir,
      cwd: root,
    });
    const url = server.url;
    const signedUp = (await (await fetch(`${url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@rt2.test', password: 'bench-password-1' }) })).json()) as { data: { accessToken: string } };
    await createMembershipTables(url, signedUp.data.accessToken);

    // Members and memberships by SQL (sign-ups would be bcrypt for minutes); tokens signed here, as RT1 does.
    const stride = options.projects / options.projectsPerMember;
    const projectIds = Array.from({ length: options.projects }, (_, p) => seededId(PROJECT_PREFIX, p));
    const memberProjects = Array.from({ length: options.members }, (_, m) => Array.from({ length: options.projectsPerMember }, (_, j) => projectIds[(m + j * stride) % options.projects]!));
    const membersOf = new Map<string, number[]>(projectIds.map((id) => [id, []]));
    memberProjects.forEach((projects, m) => projects.forEach((id) => membersOf.get(id)!.push(m)));
    await onServer(db.url, async (client) => {
      await client.query(`INSERT INTO users (id, email, password_hash, role) SELECT 'rt2m' || g, 'rt2-' || g || '@rt.test', 'x', 'member' FROM generate_series(0, $1::int - 1) g`, [options.members]);
      await client.query(`INSERT INTO ${PROJECTS} (id, name) SELECT substr(md5('${PROJECT_PREFIX}-' || p), 1, 22), 'Project ' || p FROM generate_series(0, $1::int - 1) p`, [options.projects]);
      await client.query(
        `INSERT INTO ${MEMBERSHIPS} (id, user_id, role, project_id)
         SELECT substr(md5('membership-' || m || '-' || j), 1, 22), 'rt2m' || m, 'member', substr(md5('${PROJECT_PREFIX}-' || ((m + j * $3::int) % $2::int)), 1, 22)
           FROM generate_series(0, $1::int - 1) m, generate_series(0, $4::int - 1) j`,
        [options.members, options.projects, stride, options.projectsPerMember],
      );
      await client.query(`VACUUM ANALYZE ${PROJECTS}, ${MEMBERSHIPS}`);
    });
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const tokens = Array.from({ length: options.members }, (_, m) => jwt.sign({ sub: `rt2m${m}`, role: 'member', sid: `rt2-${m}`, typ: 'access', exp }, secret, { algorithm: 'HS256' }));

    const respondedAt = new Map<string, number>();
    const projectOf = new Map<string, string>();
    const receivedEarly = new Map<string, number[]>();
    const receivedBy = new Map<string, number[]>();
    const latencies: number[] = [];
    let delivered = 0;
    let deliveredInWindow = 0;
    let measuring = false;
    let finished = false;
    const received = (member: number, id: string) => {
      delivered += 1;
      if (measuring && !finished) deliveredInWindow += 1;
      const by = receivedBy.get(id);
      if (by) by.push(member);
      else receivedBy.set(id, [member]);
      const now = performance.now();
      const responded = respondedAt.get(id);
      if (responded === undefined) {
        const early = receivedEarly.get(id);
        if (early) early.push(now);
        else receivedEarly.set(id, [now]);
      } else if (measuring) latencies.push(now - responded);
    };
    for (const [m, token] of tokens.entries()) requests.push(await listen(`${url}/realtime/${TASKS}`, { authorization: `Bearer ${token}` }, (id) => received(m, id)));
    await sleep(500);

    let writes = 0;
    let expected = 0;
    let failed = 0;
    let windowWrites = 0;
    const started = performance.now();
    const total = options.durationS * 1000;
    const inFlight: Array<Promise<void>> = [];
    let cpuAtStart: { db: number | null; server: number; at: number } | null = null;
    let cpuAtEnd: { db: number | null; server: number; at: number } | null = null;
    const sampleCpu = () => ({ db: db.postmasterPid ? treeCpuMs(db.postmasterPid) : null, server: treeCpuMs(server!.pid), at: performance.now() });
    if (options.warmupS === 0) {
      measuring = true;
      cpuAtStart = sampleCpu();
    }
    while (performance.now() - started < total) {
      const elapsed = performance.now() - started;
      if (!measuring && elapsed >= options.warmupS * 1000) {
        measuring = true;
        cpuAtStart = sampleCpu();
      }
      // Paced by the clock, not by ticks: a late tick catches up.
      for (let due = Math.floor((elapsed * options.writesPerSecond) / 1000) - writes; due > 0; due -= 1) {
        writes += 1;
        if (measuring) windowWrites += 1;
        const m = Math.floor(Math.random() * options.members);
        const project = memberProjects[m]![Math.floor(Math.random() * options.projectsPerMember)]!;
        const recipients = membersOf.get(project)!.length;
        expected += recipients;
        const write = fetch(`${url}/api/${TASKS}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens[m]}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'rt2', project_id: project }),
        }).then(async (response) => {
          const json = (await response.json()) as { data?: { id?: unknown } };
          if (response.status !== 201 || typeof json.data?.id !== 'string') throw new Error(`POST /api/${TASKS} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
          return json.data.id;
        });
        inFlight.push(
          write.then(
            (id) => {
              const now = performance.now();
              respondedAt.set(id, now);
              projectOf.set(id, project);
              for (const at of receivedEarly.get(id) ?? []) if (measuring) latencies.push(Math.max(0, at - now));
            },
            (error: unknown) => {
              failed += 1;
              expected -= recipients;
              if (problems.length < 5) problems.push(`write failed: ${(error as Error).message}`);
            },
          ),
        );
      }
      await sleep(20);
    }
    cpuAtEnd = sampleCpu();
    finished = true;
    await Promise.all(inFlight);
    // Events still on their way; then a moment more, so a delivery too many would be seen too.
    const deadline = performance.now() + 3_000;
    while (delivered < expected && performance.now() < deadline) await sleep(50);
    await sleep(300);
    if (failed) problems.push(`${failed} writes failed`);

    // Exactly the members of each task's project, each once.
    let missed = 0;
    let extra = 0;
    const examples: string[] = [];
    for (const [id, project] of projectOf) {
      const wanted = new Set(membersOf.get(project));
      const got = receivedBy.get(id) ?? [];
      const gotOnce = new Set(got);
      const lacking = [...wanted].filter((m) => !gotOnce.has(m));
      const stray = got.length - [...gotOnce].filter((m) => wanted.has(m)).length;
      missed += lacking.length;
      extra += stray;
      if ((lacking.length || stray) && examples.length < 3) examples.push(`task ${id} of ${project}: ${lacking.length} members missed it, ${stray} deliveries extra or repeated`);
    }
    for (const [id, by] of receivedBy) {
      if (projectOf.has(id)) continue;
      extra += by.length;
      if (examples.length < 3) examples.push(`task ${id}, which no writer of this run made, delivered ${by.length} times`);
    }
    if (missed) problems.push(`${missed} of ${expected} deliveries never arrived (${examples.join('; ')})`);
    if (extra) problems.push(`${extra} deliveries to members outside the task's project, or twice (${examples.join('; ')})`);
    latencies.sort((x, y) => x - y);
    const windowMs = cpuAtEnd.at - cpuAtStart!.at;
    const outcome: RulesRealtimeOutcome = {
      ok: problems.length === 0,
      problems,
      writes,
      expected,
      delivered,
      missed,
      extra,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      deliveriesPerSecond: deliveredInWindow / (windowMs / 1000),
      dbCpuMsPerChange: cpuAtEnd.db === null || cpuAtStart!.db === null ? null : (cpuAtEnd.db - cpuAtStart!.db) / windowWrites,
      serverCpuMsPerChange: (cpuAtEnd.server - cpuAtStart!.server) / windowWrites,
    };
    console.log(
      `RT2: ${writes} writes, ${delivered}/${expected} deliveries (${missed} missed, ${extra} extra), ${fmt(outcome.deliveriesPerSecond, 0)} deliveries/s, ` +
        `latency p50 ${fmt(outcome.p50, 1)} ms p99 ${fmt(outcome.p99, 1)} ms, CPU per change: Postgres ${fmt(outcome.dbCpuMsPerChange, 2)} ms, Basalt ${fmt(outcome.serverCpuMsPerChange, 2)} ms`,
    );
    if (options.out) writeSection(options.out, report(outcome, options, db.postmasterPid !== null));
    return outcome;
  } finally {
    requests.forEach((request) => request.destroy());
    await server?.stop();
    await db.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

function report(outcome: RulesRealtimeOutcome, options: RulesRealtimeOptions, local: boolean): string {
  const perProject = (options.members * options.projectsPerMember) / options.projects;
  return [
    `### RT2: ${options.members} member streams under a membership rule, ${options.writesPerSecond} writes/s for ${options.durationS} s (${new Date().toISOString()})`,
    '',
    table(
      ['Measure', 'Value', 'Target'],
      [
        ['deliveries (received / expected)', `${outcome.delivered.toLocaleString('en-US')} / ${outcome.expected.toLocaleString('en-US')}`, ''],
        ["each change to exactly its project's members", `${outcome.missed} missed, ${outcome.extra} extra or repeated`, `none ${mark(outcome.missed === 0 && outcome.extra === 0)}`],
        ['delivery latency p50 (writer response -> subscriber)', `${fmt(outcome.p50, 1)} ms`, ''],
        ['delivery latency p99', `${fmt(outcome.p99, 1)} ms`, `<= 250 ms ${mark(outcome.p99 <= 250)}`],
        ['deliveries per second (after warm-up)', fmt(outcome.deliveriesPerSecond, 0), ''],
        ['Postgres CPU per change (whole server: the write, its capture, the fan-out)', local ? `${fmt(outcome.dbCpuMsPerChange, 2)} ms` : 'n/a (Postgres not on this machine)', ''],
        ['Basalt CPU per change (the process: the write request and the fan-out)', `${fmt(outcome.serverCpuMsPerChange, 2)} ms`, ''],
      ],
    ),
    '',
    `${options.members} members stream \`${TASKS}\` (read rule \`${MEMBER_RULE}\`), each in ${options.projectsPerMember} of ${options.projects} projects`,
    `(${perProject} members per project, so about ${perProject} deliveries per change); one Basalt process (WORKERS=1, production logging`,
    `at warn); each write is a task created through \`/api\` by a random member in one of their projects (create rule`,
    `\`${MEMBER_RULE}\`), paced in 20 ms ticks; the first ${options.warmupS} s warm up. Every (task, member) pair is checked.`,
    'CPU is user + system time between the end of warm-up and the last write, divided by the changes written meanwhile.',
  ].join('\n');
}

const BEGIN = '<!-- rt2:begin: generated by `npm run bench:realtime` -->';
const END = '<!-- rt2:end -->';

/** RT2's section, the first time in the realtime part (before the metrics section when there is one), then in place. */
function writeSection(file: string, text: string): void {
  const content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const metrics = content.indexOf('<!-- metrics:begin');
  if (!content.includes(BEGIN) && content.includes('## Realtime') && metrics > content.indexOf('## Realtime')) {
    fs.writeFileSync(file, `${content.slice(0, metrics)}${BEGIN}\n${END}\n\n${content.slice(metrics)}`);
  }
  writeMarkedSection(file, { begin: BEGIN, end: END }, text, { heading: content.includes('## Realtime') ? undefined : '## Realtime' });
}
