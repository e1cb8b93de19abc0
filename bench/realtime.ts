/**
 * `npm run bench:realtime`: RT1 (issue 14). 1,000 open streams on one Basalt process (WORKERS=1): 900 members each
 * subscribed to an owner-scoped table (each sees only their own rows) and 100 anon subscribers (each from its own
 * address, through TRUST_PROXY) to a public-read table; 500 writes a second (450 spread over the members' rows, 50 to
 * the public table: about 5,500 deliveries a second). Measures delivery latency from the writer's response to the
 * subscriber's receipt, deliveries lost, and the server's RSS over the run. Writes its section of docs/performance.md.
 * `--smoke`: 20 streams, 2 seconds, checks that every event arrives (part of npm test through bench/smoke.test.ts).
 * Then RT2 (bench/realtimeRules.ts: streams under an access rule); `--only RT1` or `--only RT2` runs one of them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import { freePort, onServer, provisionDatabase, type ServerProcess, startServer } from './processes.js';
import { fmt, mark, table } from './format.js';
import { writeMarkedSection } from './report.js';
import { listen, percentile } from './streams.js';
import { rulesRealtimeOptions, runRulesRealtimeBench, type RulesRealtimeOptions } from './realtimeRules.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RealtimeOptions {
  smoke: boolean;
  members: number;
  anons: number;
  writesPerSecond: number;
  durationS: number;
  warmupS: number;
  out: string | null;
  databaseUrl?: string;
}

export interface RealtimeOutcome {
  ok: boolean;
  problems: string[];
  writes: number;
  expected: number;
  delivered: number;
  p50: number;
  p99: number;
  rssWarm: number;
  rssLate: number;
  rssPeak: number;
}

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

export async function runRealtimeBench(options: RealtimeOptions): Promise<RealtimeOutcome> {
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-rt-'));
  fs.chmodSync(tempDir, 0o755);
  const problems: string[] = [];
  const db = await provisionDatabase(tempDir, options.databaseUrl);
  let server: ServerProcess | undefined;
  const requests: http.ClientRequest[] = [];
  try {
    const secret = randomBytes(36).toString('base64url');
    server = await startServer({
      name: 'basalt-rt',
      args: [path.join(root, 'server/dist/main.js')],
      env: { HOST: '127.0.0.1', PORT: String(await freePort()), DATABASE_URL: db.url, JWT_SECRET: secret, NODE_ENV: 'production', WORKERS: '1', LOG_LEVEL: 'warn', TRUST_PROXY: 'loopback' },
      logDir: tempDir,
      cwd: root,
    });
    const url = server.url;
    const post = async (pathname: string, token: string, body: unknown) => {
      const response = await fetch(`${url}${pathname}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await response.json()) as { data?: Record<string, unknown> };
      if (!response.ok) throw new Error(`${pathname} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
      return json.data!;
    };
    const signedUp = (await (await fetch(`${url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@rt.test', password: 'bench-password-1' }) })).json()) as { data: { accessToken: string } };
    const ownerToken = signedUp.data.accessToken;
    await post('/admin/tables', ownerToken, { name: 'rt_private', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
    await post('/admin/tables', ownerToken, { name: 'rt_public', policy: 'public-read', columns: [{ name: 'headline', type: 'text' }] });
    const anonKey = jwt.sign({ role: 'anon', typ: 'anon' }, secret, { algorithm: 'HS256', noTimestamp: true });
    // The members, made with SQL (900 sign-ups through the API would be bcrypt for minutes); tokens signed here.
    await onServer(db.url, (client) =>
      client.query(`INSERT INTO users (id, email, password_hash, role) SELECT 'rtm' || g, 'rt' || g || '@rt.test', 'x', 'member' FROM generate_series(1, $1::int) g`, [options.members]),
    );
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const members = Array.from({ length: options.members }, (_, index) => {
      const id = `rtm${index + 1}`;
      return { id, token: jwt.sign({ sub: id, role: 'member', sid: `rt${index}`, typ: 'access', exp }, secret, { algorithm: 'HS256' }) };
    });

    const respondedAt = new Map<string, number>();
    const receivedEarly = new Map<string, number>();
    const latencies: number[] = [];
    let delivered = 0;
    let measuring = false;
    const seen = new Set<string>();
    const received = (id: string) => {
      delivered += 1;
      seen.add(id);
      const now = performance.now();
      const responded = respondedAt.get(id);
      if (responded === undefined) receivedEarly.set(id, now);
      else if (measuring) latencies.push(now - responded);
    };
    for (const member of members) requests.push(await listen(`${url}/realtime/rt_private`, { authorization: `Bearer ${member.token}` }, received));
    for (let index = 0; index < options.anons; index++) {
      requests.push(await listen(`${url}/realtime/rt_public`, { apikey: anonKey, 'x-forwarded-for': `198.18.${Math.floor(index / 250)}.${index % 250}` }, received));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));

    let writes = 0;
    let expected = 0;
    let failed = 0;
    const rss: Array<{ at: number; bytes: number }> = [];
    const started = performance.now();
    const total = options.durationS * 1000;
    const tickMs = 20;
    const inFlight: Array<Promise<void>> = [];
    let lastRss = 0;
    while (performance.now() - started < total) {
      const elapsed = performance.now() - started;
      measuring = elapsed >= options.warmupS * 1000;
      // Paced by the clock, not by ticks: a late tick catches up.
      for (let due = Math.floor((elapsed * options.writesPerSecond) / 1000) - writes; due > 0; due -= 1) {
        const isPublic = writes % 10 === 9;
        writes += 1;
        expected += isPublic ? options.anons : 1;
        const member = members[Math.floor(Math.random() * members.length)]!;
        const write = isPublic ? post('/api/rt_public', ownerToken, { headline: 'news' }) : post('/api/rt_private', member.token, { title: 'mine' });
        inFlight.push(
          write.then(
            (row) => {
              const id = String(row.id);
              const now = performance.now();
              respondedAt.set(id, now);
              const early = receivedEarly.get(id);
              if (early !== undefined && measuring) latencies.push(Math.max(0, early - now));
            },
            (error: unknown) => {
              failed += 1;
              if (problems.length < 5) problems.push(`write failed: ${(error as Error).message}`);
            },
          ),
        );
      }
      if (elapsed - lastRss >= 1000) {
        lastRss = elapsed;
        rss.push({ at: elapsed, bytes: rssOf(server.pid) });
      }
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
    await Promise.all(inFlight);
    // Events still on their way.
    const deadline = performance.now() + 3_000;
    while (delivered < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (failed) problems.push(`${failed} writes failed`);
    if (delivered < expected) {
      const missing = [...respondedAt.keys()].filter((id) => !seen.has(id));
      problems.push(`${expected - delivered} of ${expected} deliveries never arrived (${missing.length} rows never seen at all, e.g. ${missing.slice(0, 3).join(', ')})`);
    }
    if (delivered > expected) problems.push(`${delivered - expected} deliveries more than expected (duplicates)`);
    latencies.sort((x, y) => x - y);
    // RSS saws up and down with garbage collection: the medians of the first and the last 10 s after warm-up are
    // compared (a leak moves the later one up), and the peak is shown beside them.
    const after = rss.filter((sample) => sample.at >= options.warmupS * 1000).map((sample) => sample.bytes);
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
    const warm = median(after.slice(0, 10));
    const late = median(after.slice(-10));
    const peak = Math.max(...after, warm);
    const outcome: RealtimeOutcome = { ok: problems.length === 0, problems, writes, expected, delivered, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), rssWarm: warm, rssLate: late, rssPeak: peak };
    console.log(`RSS MiB each second: ${rss.map((sample) => Math.round(sample.bytes / 2 ** 20)).join(' ')}`);
    console.log(`RT1: ${writes} writes, ${delivered}/${expected} deliveries, latency p50 ${fmt(outcome.p50, 1)} ms p99 ${fmt(outcome.p99, 1)} ms, RSS ${fmt(warm / 2 ** 20, 0)} -> ${fmt(late / 2 ** 20, 0)} MiB (peak ${fmt(peak / 2 ** 20, 0)})`);
    if (options.out) writeSection(options.out, report(outcome, options));
    return outcome;
  } finally {
    requests.forEach((request) => request.destroy());
    await server?.stop();
    await db.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

function report(outcome: RealtimeOutcome, options: RealtimeOptions): string {
  const growth = outcome.rssWarm ? outcome.rssLate / outcome.rssWarm - 1 : NaN;
  return [
    `### RT1: ${options.members + options.anons} open streams, ${options.writesPerSecond} writes/s for ${options.durationS} s (${new Date().toISOString()})`,
    '',
    table(
      ['Measure', 'Value', 'Target'],
      [
        ['deliveries (received / expected)', `${outcome.delivered.toLocaleString('en-US')} / ${outcome.expected.toLocaleString('en-US')}`, `all ${mark(outcome.delivered === outcome.expected)}`],
        ['delivery latency p50 (writer response -> subscriber)', `${fmt(outcome.p50, 1)} ms`, ''],
        ['delivery latency p99', `${fmt(outcome.p99, 1)} ms`, `<= 250 ms ${mark(outcome.p99 <= 250)}`],
        ['server RSS, median of the first -> last 10 s after warm-up (peak)', `${fmt(outcome.rssWarm / 2 ** 20, 0)} -> ${fmt(outcome.rssLate / 2 ** 20, 0)} MiB (${fmt(outcome.rssPeak / 2 ** 20, 0)})`, `growth < 20% ${mark(growth < 0.2)} (${fmt(growth * 100, 1)}%)`],
      ],
    ),
    '',
    `${options.members} members on an owner-scoped table (each sees only their own rows) and ${options.anons} anon subscribers (each`,
    `from its own address) on a public-read table; one Basalt process (WORKERS=1, production logging at warn); writes`,
    `paced in 20 ms ticks, 9 of 10 by a random member, 1 of 10 by the owner to the public table; the first ${options.warmupS} s warm up.`,
  ].join('\n');
}

const BEGIN = '<!-- rt1:begin: generated by `npm run bench:realtime` -->';
const END = '<!-- rt1:end -->';

const writeSection = (file: string, text: string) => writeMarkedSection(file, { begin: BEGIN, end: END }, text, { heading: '## Realtime' });

const ARGS = {
  smoke: { type: 'boolean', default: false },
  duration: { type: 'string' },
  out: { type: 'string' },
  'database-url': { type: 'string' },
  only: { type: 'string' },
} as const;

export function parseRealtimeOptions(argv: string[]): RealtimeOptions {
  const { values } = parseArgs({ args: argv, options: ARGS });
  const smoke = values.smoke;
  return {
    smoke,
    members: smoke ? 18 : 900,
    anons: smoke ? 2 : 100,
    writesPerSecond: smoke ? 50 : 500,
    durationS: Number(values.duration ?? (smoke ? 2 : 60)),
    warmupS: smoke ? 0 : 10,
    out: values.out ?? (smoke ? null : path.join(root, 'docs/performance.md')),
    databaseUrl: values['database-url'],
  };
}

/** RT2's options from the same command line (`--smoke`, `--duration`, `--out`, `--database-url`). */
export function parseRulesRealtimeOptions(argv: string[]): RulesRealtimeOptions {
  const { values } = parseArgs({ args: argv, options: ARGS });
  return rulesRealtimeOptions(values.smoke, values.duration === undefined ? undefined : Number(values.duration), values.out, values['database-url']);
}

/** `npm run bench:realtime [-- --only RT1|RT2]`: RT1, then RT2, each on its own database and server. */
async function main(argv: string[]): Promise<boolean> {
  const only = parseArgs({ args: argv, options: ARGS }).values.only;
  if (only !== undefined && only !== 'RT1' && only !== 'RT2') throw new Error('--only takes RT1 or RT2');
  let ok = true;
  for (const [name, run] of [
    ['RT1', () => runRealtimeBench(parseRealtimeOptions(argv))],
    ['RT2', () => runRulesRealtimeBench(parseRulesRealtimeOptions(argv))],
  ] as const) {
    if (only !== undefined && only !== name) continue;
    const outcome = await run();
    if (outcome.problems.length) console.error(`${name}:\n${outcome.problems.join('\n')}`);
    ok &&= outcome.ok;
  }
  return ok;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (ok) => process.exit(ok ? 0 : 1),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
