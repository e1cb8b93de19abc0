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
import bcrypt from 'bcryptjs';
import { buildServer, freePort, machine, provisionDatabase, startServer, type BenchDatabase, type ServerProcess } from './processes.js';
import { runLoad } from './load.js';
import type { BenchProject } from './scenarios.js';
import { findDeepPage, GROWTH_MY_ROWS, GROWTH_SCENARIOS, MAIN_SCENARIOS } from './queryScenarios.js';
import { verify } from './verify.js';
import { createProject, seedItems, seedMyItems, seedShared, SHARED_GROWTH_ROWS } from './seed.js';
import { renderReport, SERVERS, writeReport, type BenchMeta, type RunRecord, type ServerName } from './report.js';
import { parseOptions, type BenchOptions } from './options.js';
import { runRounds, runTransfers, type Bench } from './measure.js';
import { parseReplicaOptions, runReplicaBench } from './replicas.js';
import { parseEmailOptions, runEmailBench } from './email.js';
import { parseWebhookOptions, runWebhookBench } from './webhooks.js';
import { prepareA1M } from './mfa.js';
import { A1M, FILE_SCENARIOS } from './stats.js';
import { prepareFiles } from './files.js';
import { QUERY2_NAMES } from './query2Scenarios.js';
import { seedQuery2 } from './query2Seed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchOutcome {
  ok: boolean;
  problems: string[];
  records: RunRecord[];
  /** Request log lines each Basalt server wrote (production logging must be on while measured). */
  requestLogLines: Record<string, number>;
}

/** Where the servers keep files (issue 28): Basalt's local driver (both processes share it, as they share the database), the baseline's own folder. */
const fileDirs = (tempDir: string) => ({ basalt: path.join(tempDir, 'files'), baseline: path.join(tempDir, 'baseline-files') });

async function startServers(options: BenchOptions, db: BenchDatabase, tempDir: string, started: ServerProcess[]): Promise<{ project: BenchProject; servers: Record<ServerName, ServerProcess>; secret: string }> {
  const secret = randomBytes(36).toString('base64url');
  const configPath = path.join(tempDir, 'config.json');
  // The default limits, but F2's uploads (20 x 100 MiB per run, every round, by the owner) never meet uploadsPerUser or storageBytesPerUser.
  const limits = { uploadsPerUser: { max: 1_000_000, windowSeconds: 3600 }, storageBytesPerUser: { max: 2 ** 40 } };
  fs.writeFileSync(configPath, JSON.stringify({ signupEnabled: true, limits }));
  const dirs = fileDirs(tempDir);
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const start = async (name: ServerName, args: string[], env: Record<string, string>) => {
    const server = await startServer({ name, args, env: { HOST: '127.0.0.1', PORT: String(await freePort()), ...env }, logDir: tempDir, cwd: root });
    started.push(server);
    return server;
  };
  const basalt = (workers: number) =>
    start(`basalt-${workers}` as ServerName, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), path.join(root, 'server/dist/main.js')], {
      DATABASE_URL: db.url,
      JWT_SECRET: secret,
      NODE_ENV: 'production',
      WORKERS: String(workers),
      LOG_LEVEL: 'info',
      BCRYPT_COST: '10',
      CONFIG_PATH: configPath,
      // A2's attacker comes through a proxy on this machine: its address is in X-Forwarded-For (bench/abuse.ts).
      TRUST_PROXY: 'loopback',
      // Measured without Prometheus whatever the shell has set (npm run bench:metrics measures that cost).
      METRICS_TOKEN: '',
      STORAGE_URL: pathToFileURL(dirs.basalt).href,
    });
  // The first one migrates the fresh database; the project is made through it before the others start.
  const one = await basalt(1);
  const project = await createProject(one.url, db.url, options.rows);
  const [two, baseline] = await Promise.all([
    basalt(2),
    start('baseline', ['--import', 'tsx', path.join(root, 'bench/baseline.ts')], { DATABASE_URL: db.url, JWT_SECRET: secret, FILES_DIR: dirs.baseline }),
  ]);
  return { project, servers: { baseline, 'basalt-1': one, 'basalt-2': two }, secret };
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
    const { project, servers, secret } = await startServers(options, db, tempDir, started);
    const bcryptCompareMs = timeBcrypt();
    const bench: Bench = { options, db, project, servers, records: [], problems: [], failedChecks: new Map(), logLines: {} };
    // A1M (issue 27): its accounts turn TOTP on through the API and are checked before any load.
    if (options.only === null || options.only.includes(A1M)) bench.secondStep = await prepareA1M(bench, secret);
    // Issue 30's tables (a million events) only when AG1, BU1 or U1 runs; the others are checked without them.
    const query2 = options.only === null || options.only.some((name) => QUERY2_NAMES.includes(name));
    if (query2) {
      const seeding = Date.now();
      await seedQuery2(servers['basalt-1'].url, db.url, project, options.smoke);
      console.log(`AG1, BU1 and U1's tables seeded in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    }
    await verify(bench, query2 ? MAIN_SCENARIOS : MAIN_SCENARIOS.filter((scenario) => !QUERY2_NAMES.includes(scenario.name)));
    // Issue 28: buckets, files and photos made and checked on every server; F2's runs join the rounds.
    const files = options.only === null || options.only.some((name) => FILE_SCENARIOS.includes(name)) ? await prepareFiles(bench, options.only, fileDirs(tempDir)) : null;
    if (files?.transfers) bench.transfers = files.transfers;
    if (options.warmupS > 0) {
      // JIT and connection pools warm before the first measured run; the mix touches every code path.
      const warmup = MAIN_SCENARIOS.find((s) => s.name === 'M1')!;
      for (const name of SERVERS) await runLoad(servers[name].url, () => warmup.next(project), { connections: options.connections, durationS: options.warmupS });
    }
    const main = [...(options.only ? MAIN_SCENARIOS.filter((scenario) => options.only!.includes(scenario.name)) : MAIN_SCENARIOS), ...(files?.scenarios ?? [])];
    if (main.length === 0 && !bench.secondStep && !bench.transfers) throw new Error(`--only names none of ${[...MAIN_SCENARIOS.map((scenario) => scenario.name), A1M, ...FILE_SCENARIOS].join(', ')}`);
    await runRounds(bench, 'main', main, SERVERS, options.only === null);
    if (options.growthRows !== null) {
      const seeding = Date.now();
      await seedItems(db.url, project, options.growthRows);
      await seedMyItems(db.url, project, GROWTH_MY_ROWS);
      await seedShared(servers['basalt-1'].url, db.url, project, SHARED_GROWTH_ROWS, { analyze: false });
      console.log(`items reseeded with ${project.rows.toLocaleString('en-US')} rows in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
      await findDeepPage(servers['basalt-1'].url, project);
      await verify(bench, GROWTH_SCENARIOS);
      // The baseline and one Basalt process: how cost grows is the question, and the time budget holds.
      await runRounds(bench, 'growth', GROWTH_SCENARIOS, ['baseline', 'basalt-1'], false);
    }
    await runTransfers(bench, SERVERS);
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
      ...(files ? { files: files.meta } : {}),
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
/**
 * A full run (not --smoke, not --only) ends with the replica and pooler part (bench/replicas.ts), then E1 (bench/email.ts:
 * mail through the outbox), then the webhooks (bench/webhooks.ts: WH1, W1, W2 and B1 with a webhook on), the last two
 * on the same database server as the main part, all into the same file.
 */
async function runAll(options: BenchOptions): Promise<BenchOutcome> {
  const outcome = await runBench(options);
  if (options.smoke || options.only !== null) return outcome;
  const replicas = await runReplicaBench({ ...parseReplicaOptions([]), out: options.out });
  const email = await runEmailBench({ ...parseEmailOptions([]), out: options.out, databaseUrl: options.databaseUrl, build: false });
  const webhooks = await runWebhookBench({ ...parseWebhookOptions([]), out: options.out, databaseUrl: options.databaseUrl, build: false });
  const parts = [outcome, replicas, email, webhooks];
  return { ...outcome, ok: parts.every((part) => part.ok), problems: parts.flatMap((part) => part.problems) };
}

if (invokedDirectly) {
  runAll(parseOptions(process.argv.slice(2))).then(
    (outcome) => process.exit(outcome.ok ? 0 : 1),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
