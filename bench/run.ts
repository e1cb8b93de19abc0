/**
 * `npm run bench`: Basalt (production mode, WORKERS=1 and WORKERS=2) against a bare node:http + pg baseline on one
 * fresh database, scenario by scenario, the servers alternating within every round. Writes docs/performance.md.
 * `npm run bench -- --smoke`: one short, gentle round that checks every scenario answers correctly (part of npm test).
 * `--help` lists the options.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import bcrypt from 'bcryptjs';
import { freePort, provisionDatabase, settle, startServer, treeCpuMs, type BenchDatabase, type ServerProcess } from './processes.js';
import { loadProblems, mergeLoads, runLoad, type LoadOptions, type LoadResult } from './load.js';
import { A1, R1, R2, type BenchProject, type HttpRequest, type Scenario } from './scenarios.js';
import { a2Problems, abuseLoads, ABUSE, attackerAddress } from './abuse.js';
import { findDeepPage, GROWTH_SCENARIOS, MAIN_SCENARIOS } from './queryScenarios.js';
import { createProject, seedItems } from './seed.js';
import { CONCURRENT, describeRun, renderReport, SERVERS, writeReport, type BenchMeta, type RunRecord, type RunSettings, type ServerName } from './report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchOptions extends RunSettings {
  smoke: boolean;
  warmupS: number;
  /** Where the report goes; null writes none. */
  out: string | null;
  /** Postgres server to create the benchmark database on (else BENCH_DATABASE_URL, TEST_DATABASE_URL, embedded). */
  databaseUrl?: string;
  /** Compile the server first (tsc -b, incremental). */
  build: boolean;
}

export interface BenchOutcome {
  ok: boolean;
  problems: string[];
  records: RunRecord[];
  /** Request log lines each Basalt server wrote (production logging must be on while measured). */
  requestLogLines: Record<string, number>;
}

const HELP = `npm run bench -- [options]
  --smoke             one short round at a gentle rate, checking every scenario (what npm test runs)
  --rows N            rows in the items table (default 10000)
  --growth-rows N     rows for the growth part, R1-R3 again at this size (default 1000000; smoke: none)
  --no-growth         skip the growth part
  --rounds N          rounds, servers alternating within each (default 3)
  --duration S        seconds per run (default 4; sign-ins alone run 2.5 times as long)
  --slices N          cut each run of R1-R3, W1, W2 into N slices, the servers taking turns slice by slice
                      (default 4, smoke 2; 1: whole runs; sign-in runs and the growth part always run whole)
  --connections N     keep-alive connections (default 32)
  --out FILE          report file (default docs/performance.md; smoke: none)
  --database-url URL  Postgres server to create the benchmark database on
                      (default: BENCH_DATABASE_URL, TEST_DATABASE_URL, else an embedded PostgreSQL)`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      rows: { type: 'string' },
      'growth-rows': { type: 'string' },
      'no-growth': { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      slices: { type: 'string' },
      connections: { type: 'string' },
      out: { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const number = (value: string | undefined, fallback: number, name: string) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number`);
    return parsed;
  };
  const smoke = values.smoke;
  const rows = Math.round(number(values.rows, 10_000, 'rows'));
  const growth = values['no-growth'] ? null : Math.round(number(values['growth-rows'], smoke ? 0 : 1_000_000, 'growth-rows'));
  return {
    smoke,
    rows,
    // Growth means more rows than the main part; anything else has nothing to show.
    growthRows: growth !== null && growth > rows ? growth : null,
    rounds: Math.round(number(values.rounds, smoke ? 1 : 3, 'rounds')),
    durationS: number(values.duration, smoke ? 1 : 4, 'duration'),
    slices: Math.round(number(values.slices, smoke ? 2 : 4, 'slices')),
    connections: Math.round(number(values.connections, smoke ? 4 : 32, 'connections')),
    warmupS: smoke ? 0 : 2,
    overallRate: smoke ? 300 : 0,
    out: values.out ?? (smoke ? null : path.join(root, 'docs/performance.md')),
    databaseUrl: values['database-url'],
    build: true,
  };
}

/** The benchmark needs only contract, migrations and server compiled; the console build is not its business. */
function buildServer(): void {
  const tsc = path.join(root, 'node_modules/.bin/tsc');
  const result = spawnSync(tsc, ['-b', 'contract', 'migrations', 'server'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the server does not compile (tsc -b contract migrations server)');
}

interface Bench {
  options: BenchOptions;
  db: BenchDatabase;
  project: BenchProject;
  servers: Record<ServerName, ServerProcess>;
  records: RunRecord[];
  problems: string[];
  /** Problems found by the check requests, per "server scenario": they make that pair's runs invalid. */
  failedChecks: Map<string, string>;
  logLines: Record<string, number>;
}

async function send(url: string, request: HttpRequest): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the check names the status or the shape
  }
  return { status: response.status, body };
}

/** A few requests of every scenario on every server, each checked for its status and shape. */
async function verify(bench: Bench, scenarios: Scenario[]): Promise<void> {
  for (const name of SERVERS) {
    for (const scenario of scenarios.filter((s) => s.name !== 'M1')) {
      const key = `${name} ${scenario.name}`;
      bench.failedChecks.delete(key);
      for (let i = 0; i < 3; i++) {
        const request = scenario.next(bench.project);
        const { status, body } = await send(bench.servers[name].url, request);
        const problem = scenario.check(bench.project, request, status, body);
        if (problem) {
          const detail = `${scenario.name} on ${name}: ${request.method} ${request.path} -> ${problem} ${JSON.stringify(body).slice(0, 300)}`;
          bench.failedChecks.set(key, detail);
          bench.problems.push(`check failed: ${detail}`);
          console.error(`!!! CHECK FAILED: ${detail}`);
          break;
        }
      }
    }
  }
  // Both answer the same first page: the baseline runs the same query as Basalt, not an easier one.
  const pages = await Promise.all(SERVERS.map(async (name) => (await send(bench.servers[name].url, R1.next(bench.project))).body as { data?: Array<{ id: unknown }> }));
  const ids = pages.map((page) => JSON.stringify(page.data?.map((row) => row.id)));
  if (new Set(ids).size !== 1) bench.problems.push(`R1 pages differ between servers: ${ids.join(' / ')}`);
}

function loadOptions(bench: Bench, scenarios: Scenario[]): LoadOptions {
  // A scenario alone may ask for a longer run (sign-ins: see scenarios.ts); beside another it keeps the common length.
  const factor = scenarios.length === 1 ? (scenarios[0]!.durationFactor ?? 1) : 1;
  return { connections: bench.options.connections, durationS: Math.ceil(bench.options.durationS * factor), overallRate: bench.options.overallRate };
}

/** One stretch of load on one server, with the CPU its process tree and Postgres spent meanwhile. */
interface Sample {
  load: LoadResult;
  extra?: LoadResult;
  serverCpuMs: number;
  dbCpuMs: number | null;
}

async function sample(bench: Bench, name: ServerName, label: string, scenarios: Scenario[], options: LoadOptions, settleFirst = true): Promise<Sample> {
  return sampleLoads(bench, name, label, scenarios.map((scenario) => ({ next: () => scenario.next(bench.project), options })), settleFirst);
}

/** Loads at once on one server, each with its own requests and options: the first is the run, a second its `extra`. */
async function sampleLoads(bench: Bench, name: ServerName, label: string, loads: Array<{ next: () => HttpRequest; options: LoadOptions }>, settleFirst = true): Promise<Sample> {
  const server = bench.servers[name];
  if (settleFirst) await settle(SERVERS.map((other) => bench.servers[other].pid));
  server.drainLog();
  const cpuBefore = treeCpuMs(server.pid);
  const dbBefore = bench.db.postmasterPid ? treeCpuMs(bench.db.postmasterPid) : null;
  const [load, extra] = await Promise.all(loads.map((load) => runLoad(server.url, load.next, load.options)));
  const serverCpuMs = treeCpuMs(server.pid) - cpuBefore;
  const dbCpuMs = dbBefore === null ? null : treeCpuMs(bench.db.postmasterPid!) - dbBefore;
  const log = server.drainLog();
  bench.logLines[name] = (bench.logLines[name] ?? 0) + log.requestLines;
  for (const problem of log.problems) bench.problems.push(`log of ${name} during ${label}: ${problem}`);
  return { load: load!, serverCpuMs, dbCpuMs, ...(extra ? { extra } : {}) };
}

/** The latencies were only needed for the percentiles: a run keeps its numbers, not every response time. */
function withoutLatencies({ latencies: _latencies, ...numbers }: LoadResult): LoadResult {
  return numbers;
}

function record(bench: Bench, name: ServerName, label: string, phase: RunRecord['phase'], round: number, scenarios: Scenario[], run: Sample): RunRecord {
  const extraProblems = (extra: LoadResult) => (label === ABUSE ? a2Problems(extra) : loadProblems(extra, true).map((p) => `A1 side: ${p}`));
  const problems = [...loadProblems(run.load), ...(run.extra ? extraProblems(run.extra) : [])];
  for (const scenario of scenarios) {
    const failed = bench.failedChecks.get(`${name} ${scenario.name}`);
    if (failed) problems.push(`failed its check: ${failed}`);
  }
  const load = withoutLatencies(run.load);
  const extra = run.extra ? withoutLatencies(run.extra) : undefined;
  const result: RunRecord = { phase, rows: bench.project.rows, round, server: name, scenario: label, load, serverCpuMs: run.serverCpuMs, dbCpuMs: run.dbCpuMs, problems, ...(extra ? { extra } : {}) };
  console.log(describeRun(result));
  if (problems.length) console.error(`!!! INVALID RUN (${phase} round ${round} ${label} on ${name}): ${problems.join('; ')}`);
  return result;
}

/** Each server in turn, one whole run each. */
async function measureInTurn(bench: Bench, servers: ServerName[], label: string, phase: RunRecord['phase'], round: number, scenarios: Scenario[]): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const name of servers) records.push(record(bench, name, label, phase, round, scenarios, await sample(bench, name, label, scenarios, loadOptions(bench, scenarios))));
  return records;
}

/**
 * The servers take turns in slices of one run (A B C A B C ...), and each server's slices make its run: whatever
 * else slows the machine for a few seconds then falls on every server alike, instead of on whichever ran then.
 */
async function measureInSlices(bench: Bench, servers: ServerName[], phase: RunRecord['phase'], round: number, scenario: Scenario): Promise<RunRecord[]> {
  const slices = new Map<ServerName, Sample[]>(servers.map((name) => [name, []]));
  const options = loadOptions(bench, [scenario]);
  const sliceS = options.durationS / bench.options.slices;
  for (let slice = 0; slice < bench.options.slices; slice++) {
    // Only the first slice waits for the machine to go quiet (after sign-ins); reads and writes leave nothing queued.
    for (const name of servers) slices.get(name)!.push(await sample(bench, name, scenario.name, [scenario], { ...options, durationS: sliceS }, slice === 0));
  }
  return servers.map((name) => {
    const parts = slices.get(name)!;
    const dbCpu = parts.map((part) => part.dbCpuMs);
    const merged: Sample = {
      load: mergeLoads(parts.map((part) => part.load)),
      serverCpuMs: parts.reduce((sum, part) => sum + part.serverCpuMs, 0),
      dbCpuMs: dbCpu.includes(null) ? null : dbCpu.reduce((sum: number, ms) => sum + ms!, 0),
    };
    return record(bench, name, scenario.name, phase, round, [scenario], merged);
  });
}

/** Round r starts with a different server, so no server always runs first (or right after the same neighbour). */
const rotated = (servers: readonly ServerName[], round: number): ServerName[] => servers.map((_, i) => servers[(i + round - 1) % servers.length]!);

async function runRounds(bench: Bench, phase: RunRecord['phase'], scenarios: Scenario[], servers: readonly ServerName[], withConcurrent: boolean): Promise<void> {
  for (let round = 1; round <= bench.options.rounds; round++) {
    const order = rotated(servers, round);
    for (const scenario of scenarios) {
      // Sign-ins leave seconds of hashing queued when a run stops: they run whole, the others in slices.
      const sliced = bench.options.slices > 1 && !scenario.durationFactor && scenario.name !== 'M1' && phase === 'main';
      bench.records.push(...(sliced ? await measureInSlices(bench, order, phase, round, scenario) : await measureInTurn(bench, order, scenario.name, phase, round, [scenario])));
    }
    if (!withConcurrent) continue;
    bench.records.push(...(await measureInTurn(bench, order, CONCURRENT, phase, round, [R2, A1])));
    bench.records.push(...(await measureAbuse(bench, order, round)));
  }
}

/** A1 while A2 guesses at another account from its own address (bench/abuse.ts); Basalt only. */
async function measureAbuse(bench: Bench, order: ServerName[], round: number): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const name of order.filter((server) => server !== 'baseline')) {
    const loads = abuseLoads(bench.project, loadOptions(bench, [A1]), attackerAddress(round, SERVERS.indexOf(name)));
    records.push(record(bench, name, ABUSE, 'main', round, [A1], await sampleLoads(bench, name, ABUSE, loads)));
  }
  return records;
}

async function startServers(options: BenchOptions, db: BenchDatabase, tempDir: string, started: ServerProcess[]): Promise<{ project: BenchProject; servers: Record<ServerName, ServerProcess> }> {
  const secret = randomBytes(36).toString('base64url');
  const configPath = path.join(tempDir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify({ signupEnabled: true }));
  const start = async (name: ServerName, args: string[], env: Record<string, string>) => {
    const server = await startServer({ name, args, env: { HOST: '127.0.0.1', PORT: String(await freePort()), ...env }, logDir: tempDir, cwd: root });
    started.push(server);
    return server;
  };
  const basalt = (workers: number) =>
    start(`basalt-${workers}` as ServerName, [path.join(root, 'server/dist/main.js')], {
      DATABASE_URL: db.url,
      JWT_SECRET: secret,
      NODE_ENV: 'production',
      WORKERS: String(workers),
      LOG_LEVEL: 'info',
      BCRYPT_COST: '10',
      CONFIG_PATH: configPath,
      // A2's attacker comes through a proxy on this machine: its address is in X-Forwarded-For (bench/abuse.ts).
      TRUST_PROXY: 'loopback',
    });
  // The first one migrates the fresh database; the project is made through it before the others start.
  const one = await basalt(1);
  const project = await createProject(one.url, db.url, options.rows);
  const [two, baseline] = await Promise.all([
    basalt(2),
    start('baseline', ['--import', 'tsx', path.join(root, 'bench/baseline.ts')], { DATABASE_URL: db.url, JWT_SECRET: secret }),
  ]);
  return { project, servers: { baseline, 'basalt-1': one, 'basalt-2': two } };
}

/** The commit measured, and whether the server's sources differed from it (the build is of the working tree). */
function sourceState(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'a tree outside git';
  const dirty = git('status', '--porcelain', '--', 'server/src', 'contract/src', 'migrations').stdout.trim();
  return `commit ${head.stdout.trim()}${dirty ? ' plus uncommitted changes in server/contract/migrations sources' : ''}`;
}

/** The median time of one bcryptjs compare at cost 10, on this thread, while nothing else of ours runs. */
function timeBcrypt(): number {
  const hash = bcrypt.hashSync('bench-password-1', 10);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    bcrypt.compareSync('bench-password-1', hash);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2]!;
}

function machine(): string {
  const cpus = os.cpus();
  const gib = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${gib} GiB RAM, ${os.type()} ${os.release()} (${os.arch()})`;
}

export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const startedAt = Date.now();
  const loadBefore = os.loadavg().map((n) => n.toFixed(2)).join(' ');
  if (options.build) buildServer();
  const source = sourceState();
  if (!fs.existsSync(path.join(root, 'server/dist/main.js'))) throw new Error('server/dist/main.js is missing: run npm run build');
  // /tmp, world-traversable: the embedded Postgres runs as the postgres OS user when we are root.
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-bench-'));
  fs.chmodSync(tempDir, 0o755);
  const started: ServerProcess[] = [];
  let db: BenchDatabase | undefined;
  const cleanUp = async () => {
    await Promise.all(started.map((server) => server.stop()));
    await db?.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  };
  // Ctrl-C mid-run: no server, database or temporary folder is left behind.
  const interrupted = () => void cleanUp().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    db = await provisionDatabase(tempDir, options.databaseUrl);
    console.log(`benchmark database on ${db.source}, PostgreSQL ${db.version}; ${options.rows.toLocaleString('en-US')} rows`);
    const { project, servers } = await startServers(options, db, tempDir, started);
    const bcryptCompareMs = timeBcrypt();
    const bench: Bench = { options, db, project, servers, records: [], problems: [], failedChecks: new Map(), logLines: {} };
    await verify(bench, MAIN_SCENARIOS);
    if (options.warmupS > 0) {
      // JIT and connection pools warm before the first measured run; the mix touches every code path.
      const warmup = MAIN_SCENARIOS.find((s) => s.name === 'M1')!;
      for (const name of SERVERS) await runLoad(servers[name].url, () => warmup.next(project), { connections: options.connections, durationS: options.warmupS });
    }
    await runRounds(bench, 'main', MAIN_SCENARIOS, SERVERS, true);
    if (options.growthRows !== null) {
      const seeding = Date.now();
      await seedItems(db.url, project, options.growthRows);
      console.log(`items reseeded with ${project.rows.toLocaleString('en-US')} rows in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
      await findDeepPage(servers['basalt-1'].url, project);
      await verify(bench, GROWTH_SCENARIOS);
      // The baseline and one Basalt process: how cost grows is the question, and the time budget holds.
      await runRounds(bench, 'growth', GROWTH_SCENARIOS, ['baseline', 'basalt-1'], false);
    }
    for (const name of ['basalt-1', 'basalt-2'] as const) {
      if (!bench.logLines[name]) bench.problems.push(`${name} wrote no request log lines: production logging is part of what is measured`);
    }
    for (const r of bench.records) if (r.problems.length) bench.problems.push(`invalid run: ${r.phase} round ${r.round} ${r.scenario} on ${r.server}: ${r.problems.join('; ')}`);
    const { rows, growthRows, rounds, durationS, slices, connections, overallRate } = options;
    const meta: BenchMeta = {
      rows,
      growthRows,
      rounds,
      durationS,
      slices,
      connections,
      overallRate,
      date: new Date().toISOString(),
      machine: machine(),
      node: process.version,
      source,
      postgres: `${db.version} (${db.source})`,
      load: `${loadBefore} before, ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} after`,
      requestLogLines: (bench.logLines['basalt-1'] ?? 0) + (bench.logLines['basalt-2'] ?? 0),
      elapsedS: (Date.now() - startedAt) / 1000,
      logProblems: bench.problems.filter((p) => p.startsWith('log of')),
      bcryptCompareMs,
    };
    const report = renderReport(bench.records, meta);
    // A smoke run is rate-capped: its ratios (and pass/fail marks) mean nothing, so it prints only its verdict.
    if (options.smoke) console.log(`smoke: ${bench.records.length} runs, ${bench.problems.length ? 'PROBLEMS below' : 'every answer 2xx and well-formed'}`);
    else console.log(`\n${report}\n`);
    if (options.out) {
      writeReport(options.out, report);
      console.log(`written to ${path.relative(process.cwd(), options.out) || options.out}`);
    }
    if (bench.problems.length) console.error(`\n!!! ${bench.problems.length} problem(s):\n${bench.problems.map((p) => `  - ${p}`).join('\n')}`);
    return { ok: bench.problems.length === 0, problems: bench.problems, records: bench.records, requestLogLines: bench.logLines };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanUp();
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  runBench(parseOptions(process.argv.slice(2))).then(
    (outcome) => process.exit(outcome.ok ? 0 : 1),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
