/**
 * `npm run bench:metrics`: what counting costs (issue 15). R2 (get one row by a random id, the hottest read) on two
 * Basalt processes side by side on one database, production mode with its request log on: "on" has METRICS_TOKEN set
 * (Prometheus counting, prom-client's default collectors, and a scrape every few seconds of its own load), "off" has
 * it unset (no Prometheus registry at all). Both keep the owner's overview counts: that part of the per-request hook
 * is always on, so it is timed on its own, in-process, per call. Within a round the two take turns in 1-second
 * slices (on off on off ..., the first alternating between rounds), so load from elsewhere on the machine falls on
 * both alike; the ratio on/off is taken per round (paired), then the median. Target: >= 0.95.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Request } from 'express';
import { buildServer, freePort, provisionDatabase, settle, startServer, treeCpuMs, type BenchDatabase, type ServerProcess } from './processes.js';
import { positiveNumber } from './options.js';
import { writeMarkedSection } from './report.js';
import { loadProblems, mergeLoads, runLoad, type LoadResult } from './load.js';
import { R2, type BenchProject } from './scenarios.js';
import { createProject } from './seed.js';
import { fmt, mark, table } from './format.js';
import { median } from './stats.js';
import { RouteLabeler } from '../server/src/ops/routeLabel.js';
import { TrafficRing, NOT_SIGN_IN } from '../server/src/ops/traffic.js';
import { ProcessMetrics } from '../server/src/ops/metrics.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 0.95;

interface Options {
  rounds: number;
  durationS: number;
  connections: number;
  workers: number;
  scrapeEveryS: number;
  rows: number;
  out: string;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '6' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '32' },
      workers: { type: 'string', default: '1' },
      'scrape-every': { type: 'string', default: '2' },
      rows: { type: 'string', default: '10000' },
      out: { type: 'string' },
    },
  });
  return {
    rounds: Math.round(positiveNumber(values.rounds, 'rounds')),
    durationS: positiveNumber(values.duration, 'duration'),
    connections: Math.round(positiveNumber(values.connections, 'connections')),
    workers: Math.round(positiveNumber(values.workers, 'workers')),
    scrapeEveryS: positiveNumber(values['scrape-every'], 'scrape-every'),
    rows: Math.round(positiveNumber(values.rows, 'rows')),
    // Like npm run bench: the report goes into docs/performance.md unless --out names another file.
    out: values.out ?? path.join(root, 'docs/performance.md'),
  };
}

type Side = 'on' | 'off';
interface Run {
  round: number;
  side: Side;
  load: LoadResult;
  cpuMsPerRequest: number;
  scrapes: number;
  scrapeMs: number[];
}

/**
 * Scrapes /metrics as Prometheus would (more often: its default is 15 s), but only while "on" is under load: a scrape
 * during an "off" slice would take the machine's time from "off" and flatter the ratio. A scrape starts with an "on"
 * slice once `everyS` seconds of "on" load have passed since the last one, and runs beside it.
 */
class Scraper {
  readonly ms: number[] = [];
  private sinceS = Infinity;
  private failed: string | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly everyS: number,
  ) {}

  /** Runs one "on" slice of `sliceS` seconds, with a scrape beside it when one is due. */
  async during<T>(sliceS: number, slice: () => Promise<T>): Promise<T> {
    const due = this.sinceS >= this.everyS;
    if (due) this.sinceS = 0;
    const [result] = await Promise.all([slice(), due ? this.scrape() : undefined]);
    this.sinceS += sliceS;
    return result;
  }

  private async scrape(): Promise<void> {
    const started = performance.now();
    const response = await fetch(`${this.url}/metrics`, { headers: { authorization: `Bearer ${this.token}` } });
    const text = await response.text();
    if (response.status !== 200 || !text.includes('basalt_http_requests_total')) this.failed = `scrape answered ${response.status}`;
    this.ms.push(performance.now() - started);
  }

  check(): void {
    if (this.failed) throw new Error(this.failed);
  }
}

/** One round: the two servers take turns slice by slice, "on" scraped during its slices; a load and CPU time per side. */
async function measureRound(servers: Record<Side, ServerProcess>, round: number, project: BenchProject, options: Options, token: string): Promise<Run[]> {
  const order: Side[] = round % 2 ? ['on', 'off'] : ['off', 'on'];
  const slices = Math.max(1, Math.round(options.durationS));
  const sliceS = options.durationS / slices;
  const parts: Record<Side, { loads: LoadResult[]; cpuMs: number }> = { on: { loads: [], cpuMs: 0 }, off: { loads: [], cpuMs: 0 } };
  await settle([servers.on.pid, servers.off.pid]);
  for (const side of order) servers[side].drainLog();
  const scraper = new Scraper(servers.on.url, token, options.scrapeEveryS);
  for (let slice = 0; slice < slices; slice++) {
    for (const side of order) {
      const cpuBefore = treeCpuMs(servers[side].pid);
      const load = () => runLoad(servers[side].url, () => R2.next(project), { connections: options.connections, durationS: sliceS });
      parts[side].loads.push(await (side === 'on' ? scraper.during(sliceS, load) : load()));
      parts[side].cpuMs += treeCpuMs(servers[side].pid) - cpuBefore;
    }
  }
  scraper.check();
  const scraped = { scrapes: scraper.ms.length, ms: scraper.ms };
  return order.map((side) => {
    const load = mergeLoads(parts[side].loads);
    const problems = [...loadProblems(load), ...servers[side].drainLog().problems];
    if (problems.length) throw new Error(`round ${round} ${side}: ${problems.join('; ')}`);
    const run: Run = { round, side, load, cpuMsPerRequest: parts[side].cpuMs / load.responses, scrapes: side === 'on' ? scraped.scrapes : 0, scrapeMs: side === 'on' ? scraped.ms : [] };
    console.log(`round ${round} metrics ${side.padEnd(3)}: ${fmt(load.rps, 0)} req/s, p50 ${fmt(load.p50, 2)} ms, p99 ${fmt(load.p99, 2)} ms, ${fmt(run.cpuMsPerRequest, 3)} CPU ms/req${side === 'on' ? `, ${scraped.scrapes} scrapes` : ''}`);
    return run;
  });
}

/** The per-request hook's parts timed in this process: route label, overview ring, Prometheus children. */
function hookCosts(): { labelNs: number; ringNs: number; prometheusNs: number } {
  const labeler = new RouteLabeler({ served: (name) => (name === 'items' ? {} : undefined) });
  const ring = new TrafficRing();
  const metrics = new ProcessMetrics({ pool: { totalCount: 1, idleCount: 1, waitingCount: 0 }, schemaLoads: () => 1, passwordJobs: () => ({ running: 0, queued: 0 }), realtimeStreams: () => 0, realtimeUndeliverable: () => 0 });
  // As the record API hands them over: with the target it parsed (records/routes.ts).
  const requests = Array.from({ length: 64 }, (_, i) => {
    const id = randomBytes(11).toString('hex');
    return { method: 'GET', originalUrl: `/api/items/${id}${i % 2 ? '?select=id' : ''}`, recordTarget: { action: 'get', table: 'items', id } } as Request;
  });
  const time = (run: (i: number) => void) => {
    const n = 300_000;
    for (let i = 0; i < n / 10; i++) run(i);
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) run(i);
    return Number(process.hrtime.bigint() - started) / n;
  };
  const routes: string[] = [];
  return {
    labelNs: time((i) => (routes[i & 63] = labeler.label(requests[i & 63]!))),
    ringNs: time((i) => ring.record(200, 1 + (i & 7), NOT_SIGN_IN)),
    prometheusNs: time((i) => metrics.observe('GET', '/api/items/:id', 200, 0.001 * (1 + (i & 7)))),
  };
}

function report(runs: Run[], options: Options, costs: ReturnType<typeof hookCosts>, db: BenchDatabase): { text: string; ratio: number } {
  const rounds = [...new Set(runs.map((run) => run.round))];
  const pair = (round: number) => [runs.find((r) => r.round === round && r.side === 'on')!, runs.find((r) => r.round === round && r.side === 'off')!] as const;
  const ratios = rounds.map((round) => pair(round)[0].load.rps / pair(round)[1].load.rps);
  const ratio = median(ratios);
  const scrapeMs = runs.flatMap((run) => run.scrapeMs).sort((a, b) => a - b);
  const rows = rounds.map((round) => {
    const [on, off] = pair(round);
    return [String(round), fmt(on.load.rps, 0), fmt(off.load.rps, 0), fmt(on.load.rps / off.load.rps, 3), `${fmt(on.load.p99, 2)} / ${fmt(off.load.p99, 2)}`, `${fmt(on.cpuMsPerRequest, 3)} / ${fmt(off.cpuMsPerRequest, 3)}`, String(on.scrapes)];
  });
  const text = `### Metrics on vs off (R2, \`npm run bench:metrics\`)

${new Date().toISOString()}, ${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, PostgreSQL ${db.version}; WORKERS=${options.workers},
${options.connections} connections, ${options.rounds} rounds of ${options.durationS} s per side in 1 s slices taken in turn (the first side alternates), ${options.rows.toLocaleString('en-US')} rows, production mode with the request log on.
"on": METRICS_TOKEN set, scraped every ${options.scrapeEveryS} s of its own load (never while "off" runs); "off": METRICS_TOKEN unset (no Prometheus registry).

${table(['round', 'on req/s', 'off req/s', 'on/off', 'p99 ms on / off', 'CPU ms/req on / off', 'scrapes'], rows)}

Median on/off req/s ratio: **${fmt(ratio, 3)}** (target >= ${TARGET}: ${mark(ratio >= TARGET)}). A scrape took ${fmt(median(scrapeMs), 1)} ms (median), ${fmt(scrapeMs.at(-1), 1)} ms at most.
Always on, in both: the route label (${fmt(costs.labelNs, 0)} ns per request) and the overview's ring (${fmt(costs.ringNs, 0)} ns); what METRICS_TOKEN adds per request, timed alone: ${fmt(costs.prometheusNs, 0)} ns (count and duration series).
`;
  return { text, ratio };
}

const BEGIN = '<!-- metrics:begin: generated by `npm run bench:metrics` -->';
const END = '<!-- metrics:end -->';


async function main(options: Options): Promise<boolean> {
  buildServer();
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-bench-metrics-'));
  fs.chmodSync(tempDir, 0o755);
  const started: ServerProcess[] = [];
  let db: BenchDatabase | undefined;
  try {
    db = await provisionDatabase(tempDir);
    const secret = randomBytes(36).toString('base64url');
    const token = randomBytes(24).toString('hex');
    const configPath = path.join(tempDir, 'config.json');
    fs.writeFileSync(configPath, JSON.stringify({ signupEnabled: true }));
    const start = async (name: string, metricsToken: string) => {
      const env = { HOST: '127.0.0.1', PORT: String(await freePort()), DATABASE_URL: db!.url, JWT_SECRET: secret, NODE_ENV: 'production', WORKERS: String(options.workers), LOG_LEVEL: 'info', CONFIG_PATH: configPath, METRICS_TOKEN: metricsToken };
      const server = await startServer({ name, args: [path.join(root, 'server/dist/main.js')], env, logDir: tempDir, cwd: root });
      started.push(server);
      return server;
    };
    // A third process migrates the fresh database and makes the project, so the two measured start alike.
    const setup = await start('metrics-setup', '');
    const project = await createProject(setup.url, db.url, options.rows);
    await setup.stop();
    const [on, off] = await Promise.all([start('metrics-on', token), start('metrics-off', '')]);
    const servers = { on, off };
    if ((await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status !== 404) throw new Error('metrics off should answer /metrics 404');
    for (const server of [on, off]) await runLoad(server.url, () => R2.next(project), { connections: options.connections, durationS: 3 });
    const runs: Run[] = [];
    for (let round = 1; round <= options.rounds; round++) runs.push(...(await measureRound(servers, round, project, options, token)));
    const { text, ratio } = report(runs, options, hookCosts(), db);
    console.log(`\n${text}`);
    writeMarkedSection(options.out, { begin: BEGIN, end: END }, text);
    return ratio >= TARGET;
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await db?.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(parseOptions(process.argv.slice(2))).then(
    (ok) => process.exit(ok ? 0 : 1),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
