/**
 * `npm run bench:replicas` (issue 25; a full `npm run bench` runs it last): Basalt on a primary with a hot standby of
 * its own (test-support/standby.ts) and behind a real PgBouncer in transaction mode. Writes its section of
 * docs/performance.md.
 * - S1: write-then-read pairs by many callers, each read sent with the Basalt-Min-Lsn its write answered (as the
 *   client library does), reads routed by replayed position: stale reads (target 0) and the share the standby served.
 * - R2 with reads routed to the standby against R2 on the primary alone (target >= 0.9x: the routing costs almost
 *   nothing; on one machine the standby competes for the same cores).
 * - R1-R3 and W1 through PgBouncer beside direct (reported, not targeted).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pgbouncerVersion, startPgBouncer, type PgBouncer } from '../test-support/pgbouncer.js';
import { startReplicated, type Replicated } from '../test-support/standby.js';
import { fmt, mark, table } from './format.js';
import { runAsCommand } from './options.js';
import { runLoad } from './load.js';
import { freePort, startServer, treeCpuMs, type ServerProcess } from './processes.js';
import { writeMarkedSection } from './report.js';
import { R1, R2, R3, W1, MY_ITEMS, type BenchProject, type Scenario } from './scenarios.js';
import { createProject } from './seed.js';
import { median } from './stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const METRICS_TOKEN = randomBytes(24).toString('hex');

export interface ReplicaBenchOptions {
  smoke: boolean;
  rows: number;
  rounds: number;
  durationS: number;
  /** S1: write-then-read pairs in all, and the callers sending them at once. */
  pairs: number;
  callers: number;
  connections: number;
  out: string | null;
}

type Server = 'primary' | 'replica' | 'pooled';

interface S1Outcome {
  pairs: number;
  stale: number;
  failed: number;
  seconds: number;
  fromStandby: number;
  fromPrimary: number;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** Members of the project, signed up through the replica server (every one of them writes and reads in S1). */
async function signUpCallers(url: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `s1-${i}@bench.test`, password: 'bench-password-1' }) });
    if (response.status !== 201) throw new Error(`S1 sign-up answered ${response.status}`);
    tokens.push(((await response.json()) as { data: { accessToken: string } }).data.accessToken);
  }
  return tokens;
}

/** S1: each caller writes a row, then reads it back with the position its write answered; a 404 or other value is stale. */
async function runS1(url: string, tokens: string[], pairs: number): Promise<S1Outcome> {
  const [standbyBefore, primaryBefore] = [await metric(url, 'basalt_replica_reads_total'), await metric(url, 'basalt_replica_primary_fallbacks_total')];
  let next = 0;
  let stale = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(tokens.map(async (token) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    while (next < pairs) {
      next++;
      const title = `s1 ${randomBytes(6).toString('hex')}`;
      const written = await fetch(`${url}/api/${MY_ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ title, score: 1, done: false }) });
      const lsn = written.headers.get('basalt-lsn');
      const created = (await written.json()) as { data?: { id: string } };
      if (written.status !== 201 || !lsn || !created.data) {
        failed++;
        continue;
      }
      const read = await fetch(`${url}/api/${MY_ITEMS}/${created.data.id}`, { headers: { authorization: headers.authorization, 'basalt-min-lsn': lsn } });
      const body = (await read.json()) as { data?: { title?: string } };
      if (read.status === 404 || (read.status === 200 && body.data?.title !== title)) stale++;
      else if (read.status !== 200) failed++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return {
    pairs,
    stale,
    failed,
    seconds,
    fromStandby: (await metric(url, 'basalt_replica_reads_total')) - standbyBefore,
    fromPrimary: (await metric(url, 'basalt_replica_primary_fallbacks_total')) - primaryBefore,
  };
}

/** Rounds of each scenario on each server in turn (the first server rotating): req/s and p99 per run. */
/** Postmasters whose CPU a run measures, by name (the primary, the standby). */
type Postmasters = Record<string, number>;
type Pick = 'rps' | 'p99' | 'server' | `db:${string}`;

async function runPairs(servers: Partial<Record<Server, ServerProcess>>, names: Server[], scenarios: Scenario[], project: BenchProject, options: ReplicaBenchOptions, problems: string[], postmasters: Postmasters = {}) {
  const runs: Record<string, Array<Record<string, number>>> = {};
  for (let round = 0; round < options.rounds; round++) {
    for (const scenario of scenarios) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length]!;
        const before = { server: treeCpuMs(servers[name]!.pid), ...Object.fromEntries(Object.entries(postmasters).map(([db, pid]) => [db, treeCpuMs(pid)])) };
        const load = await runLoad(servers[name]!.url, () => scenario.next(project), { connections: options.connections, durationS: options.durationS, overallRate: options.smoke ? 200 : 0 });
        // CPU milliseconds per request: the Basalt process, and each postmaster with its backends.
        const cpu: Record<string, number> = { server: (treeCpuMs(servers[name]!.pid) - before.server) / load.responses };
        for (const [db, pid] of Object.entries(postmasters)) cpu[`db:${db}`] = (treeCpuMs(pid) - before[db as keyof typeof before]!) / load.responses;
        const bad = Object.entries(load.statuses).filter(([status]) => !status.startsWith('2'));
        if (bad.length || load.errors || load.timeouts) problems.push(`${scenario.name} on ${name}: statuses ${JSON.stringify(load.statuses)}, ${load.errors} errors, ${load.timeouts} timeouts`);
        (runs[`${scenario.name} ${name}`] ??= []).push({ rps: load.rps, p99: load.p99, ...cpu });
        console.log(`round ${round + 1} ${scenario.name.padEnd(3)} ${name.padEnd(8)} ${fmt(load.rps, 0).padStart(7)} req/s  p99 ${fmt(load.p99, 2)} ms`);
      }
    }
  }
  return (scenario: string, server: Server, pick: Pick = 'rps') => median((runs[`${scenario} ${server}`] ?? []).map((run) => run[pick] ?? NaN));
}

export async function runReplicaBench(options: ReplicaBenchOptions): Promise<{ ok: boolean; problems: string[]; s1: S1Outcome | null; r2Ratio: number | null }> {
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-bench-replicas-'));
  fs.chmodSync(tempDir, 0o755);
  const started: ServerProcess[] = [];
  let replicated: Replicated | undefined;
  let pooler: PgBouncer | undefined;
  const problems: string[] = [];
  try {
    replicated = await startReplicated();
    // The pooler part needs a PgBouncer >= 1.21 (scripts/pgbouncer.sh); without one it says so and the rest runs.
    const bouncer = pgbouncerVersion();
    if (bouncer.ok) pooler = await startPgBouncer(replicated.primaryUrl);
    const configPath = path.join(tempDir, 'config.json');
    fs.writeFileSync(configPath, JSON.stringify({ signupEnabled: true, limits: false }));
    const secret = randomBytes(36).toString('base64url');
    const start = async (name: Server, env: Record<string, string>) => {
      const server = await startServer({
        name,
        args: [path.join(root, 'server/dist/main.js')],
        env: { HOST: '127.0.0.1', PORT: String(await freePort()), JWT_SECRET: secret, NODE_ENV: 'production', WORKERS: '1', LOG_LEVEL: 'info', BCRYPT_COST: '10', CONFIG_PATH: configPath, METRICS_TOKEN, DATABASE_URL: replicated!.primaryUrl, ...env },
        logDir: tempDir,
        cwd: root,
      });
      started.push(server);
      return server;
    };
    const primary = await start('primary', {});
    const project = await createProject(primary.url, replicated.primaryUrl, options.rows);
    const replica = await start('replica', { DATABASE_REPLICA_URLS: replicated.standbyUrl });
    const pooled = pooler ? await start('pooled', { DATABASE_URL: pooler.url('postgres'), DATABASE_POOL_MODE: 'transaction', DATABASE_LISTEN_URL: replicated.primaryUrl }) : undefined;
    await replicated.caughtUp();
    const servers = { primary, replica, pooled };

    const tokens = await signUpCallers(replica.url, options.callers);
    await replicated.caughtUp();
    const s1 = await runS1(replica.url, tokens, options.pairs);
    console.log(`S1: ${s1.pairs} pairs in ${fmt(s1.seconds, 1)} s, ${s1.stale} stale, ${s1.failed} failed; reads ${s1.fromStandby} standby / ${s1.fromPrimary} primary`);
    if (s1.stale > 0) problems.push(`S1: ${s1.stale} stale reads`);
    if (s1.failed > 0) problems.push(`S1: ${s1.failed} pairs failed`);

    const routed = await runPairs(servers, ['primary', 'replica'], [R2], project, options, problems, await replicated.pids());
    const pooledRuns = pooled ? await runPairs(servers, ['primary', 'pooled'], [R1, R2, R3, W1], project, options, problems) : null;
    const r2Ratio = routed('R2', 'replica') / routed('R2', 'primary');
    const text = [
      `### S1, R2 on a standby, and R1-R3/W1 through PgBouncer (${new Date().toISOString()})`,
      '',
      table(
        ['Measure', 'Value', 'Target'],
        [
          [`S1: ${s1.pairs.toLocaleString('en-US')} write-then-read pairs by ${options.callers} callers, reads with Basalt-Min-Lsn`, `${s1.stale} stale, ${s1.failed} failed, ${fmt(s1.pairs / s1.seconds, 0)} pairs/s`, `0 stale ${mark(s1.stale === 0 && s1.failed === 0)}`],
          ['S1: reads served by the standby / by the primary after the wait', `${s1.fromStandby} / ${s1.fromPrimary} (${fmt((100 * s1.fromStandby) / Math.max(1, s1.fromStandby + s1.fromPrimary), 1)}% standby)`, 'reported'],
          ['R2 CPU per request on the primary alone: Basalt / primary Postgres', `${fmt(routed('R2', 'primary', 'server'), 3)} / ${fmt(routed('R2', 'primary', 'db:primary'), 3)} ms`, 'reported'],
          ['R2 CPU per request routed: Basalt / primary Postgres / standby Postgres', `${fmt(routed('R2', 'replica', 'server'), 3)} / ${fmt(routed('R2', 'replica', 'db:primary'), 3)} / ${fmt(routed('R2', 'replica', 'db:standby'), 3)} ms`, 'reported'],
          ['R2 routed to the standby / R2 on the primary alone (req/s)', `${fmt(routed('R2', 'replica'), 0)} / ${fmt(routed('R2', 'primary'), 0)} = ${fmt(r2Ratio, 2)}x`, `>= 0.9x ${mark(r2Ratio >= 0.9)}`],
        ],
      ),
      '',
      pooledRuns
        ? table(
            ['Scenario', 'direct req/s', 'through PgBouncer req/s', 'ratio', 'direct p99', 'PgBouncer p99'],
            ['R1', 'R2', 'R3', 'W1'].map((name) => [
              name,
              fmt(pooledRuns(name, 'primary'), 0),
              fmt(pooledRuns(name, 'pooled'), 0),
              `${fmt(pooledRuns(name, 'pooled') / pooledRuns(name, 'primary'), 2)}x`,
              `${fmt(pooledRuns(name, 'primary', 'p99'), 2)} ms`,
              `${fmt(pooledRuns(name, 'pooled', 'p99'), 2)} ms`,
            ]),
          )
        : `R1-R3 and W1 through PgBouncer did not run: ${bouncer.ok ? '' : bouncer.reason}.`,
      '',
      `One Basalt process each (WORKERS=1, production logging), on a primary and a hot standby started for the run`,
      `(test-support/standby.ts: fsync=off, the same machine's cores), ${options.rows.toLocaleString('en-US')} rows; PgBouncer ${'>='} 1.21 in`,
      `transaction mode (DATABASE_POOL_MODE=transaction, 20 server connections). Medians of ${options.rounds} rounds of ${options.durationS} s, ${options.connections}`,
      `connections, the servers alternating. R1-R3 and W1 through PgBouncer are reported, not targeted.`,
    ].join('\n');
    console.log(`\n${text}\n`);
    if (!(s1.stale === 0 && s1.failed === 0 && r2Ratio >= 0.9) && !options.smoke) problems.push('a replica target was missed');
    if (options.out) writeMarkedSection(options.out, { begin: BEGIN, end: END }, text, { heading: '## Past one database machine' });
    return { ok: problems.length === 0, problems, s1, r2Ratio };
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await pooler?.stop();
    await replicated?.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

const BEGIN = '<!-- replicas:begin: generated by `npm run bench:replicas` (and a full `npm run bench`) -->';
const END = '<!-- replicas:end -->';

export function parseReplicaOptions(argv: string[]): ReplicaBenchOptions {
  const { values } = parseArgs({ args: argv, options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' }, rounds: { type: 'string' }, duration: { type: 'string' } } });
  const smoke = values.smoke;
  return {
    smoke,
    rows: smoke ? 1_000 : 10_000,
    rounds: Number(values.rounds ?? (smoke ? 1 : 3)),
    durationS: Number(values.duration ?? (smoke ? 1 : 4)),
    pairs: smoke ? 200 : 10_000,
    callers: smoke ? 4 : 32,
    connections: smoke ? 4 : 32,
    out: values.out ?? (smoke ? null : path.join(root, 'docs/performance.md')),
  };
}

runAsCommand(import.meta.url, () => runReplicaBench(parseReplicaOptions(process.argv.slice(2))));
