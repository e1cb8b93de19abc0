import fs from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './load.js';

export const SERVERS = ['baseline', 'basalt-1', 'basalt-2'] as const;
export type ServerName = (typeof SERVERS)[number];
export const SERVER_LABELS: Record<ServerName, string> = {
  baseline: 'baseline (node:http + pg)',
  'basalt-1': 'Basalt WORKERS=1',
  'basalt-2': 'Basalt WORKERS=2',
};
const BASALTS = ['basalt-1', 'basalt-2'] as const;
/** The scenario that runs sign-ins and R2 at once, to see what bcrypt does to everyone else's latency. */
export const CONCURRENT = 'A1+R2';

export interface RunRecord {
  phase: 'main' | 'growth';
  rows: number;
  round: number;
  server: ServerName;
  scenario: string;
  /** For A1+R2: the R2 side; `extra` is the A1 side. */
  load: LoadResult;
  extra?: LoadResult;
  serverCpuMs: number;
  dbCpuMs: number | null;
  /** Why the run is invalid (non-2xx, errors); empty when valid. */
  problems: string[];
}

export interface Summary {
  runs: number;
  valid: number;
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  dbCpuPerRequest: number | null;
  /** A1+R2 only: A1's throughput and p99 while R2 ran. */
  extraRps?: number;
  extraP99?: number;
}

/** How the runs were made: chosen by the options (run.ts), printed with the report. */
export interface RunSettings {
  rows: number;
  /** Rows for the growth part (R1-R3 again at this size); null skips it. */
  growthRows: number | null;
  rounds: number;
  durationS: number;
  /** Slices each run of R1-R3, W1, W2 is cut into, the servers taking turns slice by slice (1: whole runs in turn). */
  slices: number;
  connections: number;
  /** Requests per second per run over all connections when capped (the smoke run); 0 is flat out. */
  overallRate: number;
}

export interface BenchMeta extends RunSettings {
  date: string;
  machine: string;
  node: string;
  /** Which Basalt was measured: the commit, and whether the server sources had uncommitted changes. */
  source: string;
  postgres: string;
  /** Load averages (1, 5, 15 min) before and after: other work on the machine shows here. */
  load: string;
  requestLogLines: number;
  elapsedS: number;
  logProblems: string[];
  /** One bcryptjs compare at cost 10 on this machine, timed before the load (ms). */
  bcryptCompareMs: number | null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const requestsOf = (r: RunRecord) => r.load.responses + (r.extra?.responses ?? 0);

/** Medians over the valid runs of one phase, scenario and server; null when none was valid. */
export function summarize(records: RunRecord[], phase: RunRecord['phase'], scenario: string, server: ServerName): Summary | null {
  const all = records.filter((r) => r.phase === phase && r.scenario === scenario && r.server === server);
  const valid = all.filter((r) => r.problems.length === 0);
  if (valid.length === 0) return null;
  const db = valid.map((r) => r.dbCpuMs).filter((ms): ms is number => ms !== null);
  return {
    runs: all.length,
    valid: valid.length,
    rps: median(valid.map((r) => r.load.rps)),
    p50: median(valid.map((r) => r.load.p50)),
    p99: median(valid.map((r) => r.load.p99)),
    cpuPerRequest: median(valid.map((r) => r.serverCpuMs / requestsOf(r))),
    dbCpuPerRequest: db.length === valid.length ? median(valid.map((r) => r.dbCpuMs! / requestsOf(r))) : null,
    ...(valid[0]!.extra ? { extraRps: median(valid.map((r) => r.extra!.rps)), extraP99: median(valid.map((r) => r.extra!.p99)) } : {}),
  };
}

type Pick = (r: RunRecord) => number;
const RPS: Pick = (r) => r.load.rps;
const P99: Pick = (r) => r.load.p99;
const CPU: Pick = (r) => r.serverCpuMs / requestsOf(r);

/**
 * The median over rounds of `a / b`, each round's runs paired: within a round the two runs are minutes apart at most,
 * so whatever else the machine was doing then weighs on both, and drops out of their ratio. Rounds where either run
 * was invalid are left out; null when none is left.
 */
export function pairedRatio(records: RunRecord[], phase: RunRecord['phase'], a: [string, ServerName], b: [string, ServerName], pick: Pick): number | null {
  const find = (round: number, [scenario, server]: [string, ServerName]) =>
    records.find((r) => r.phase === phase && r.round === round && r.scenario === scenario && r.server === server && r.problems.length === 0);
  const ratios: number[] = [];
  for (const round of new Set(records.map((r) => r.round))) {
    const x = find(round, a);
    const y = find(round, b);
    if (x && y) ratios.push(pick(x) / pick(y));
  }
  return ratios.length ? median(ratios) : null;
}

export interface TargetCheck {
  target: string;
  scenario: string;
  server: ServerName;
  value: number | null;
  pass: boolean;
}

/** The targets of issue 6, each checked for both Basalt configurations against the same run's baseline. */
export function checkTargets(records: RunRecord[], bcryptCompareMs: number | null = null): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (target: string, scenario: string, server: ServerName, value: number | null, ok: (v: number) => boolean) =>
    checks.push({ target, scenario, server, value, pass: value !== null && Number.isFinite(value) && ok(value) });
  for (const server of BASALTS) {
    for (const scenario of ['R1', 'R2', 'R3', 'W1', 'W2', 'A1']) {
      const versus = (pick: Pick) => pairedRatio(records, 'main', [scenario, server], [scenario, 'baseline'], pick);
      const minimum = scenario.startsWith('R') ? 0.7 : scenario.startsWith('W') ? 0.6 : 1.7;
      add(`req/s >= ${minimum} x baseline`, scenario, server, versus(RPS), (v) => v >= minimum);
      if (scenario.startsWith('R')) add('p99 <= 2 x baseline', scenario, server, versus(P99), (v) => v <= 2);
    }
    if (bcryptCompareMs) {
      // The baseline answers sign-ins in waves, so a window of a few seconds undercounts it a little; one core's worth
      // of bcrypt compares, timed in this process before the load, is a yardstick without that edge effect.
      const signIns = summarize(records, 'main', 'A1', server);
      add('req/s >= 1.7 x one core of bcrypt (cross-check)', 'A1', server, signIns ? (signIns.rps * bcryptCompareMs) / 1000 : null, (v) => v >= 1.7);
    }
    const underSignIns = pairedRatio(records, 'main', [CONCURRENT, server], ['R2', server], P99);
    add('R2 p99 during A1 <= 3 x R2 p99 alone', CONCURRENT, server, underSignIns, (v) => v <= 3);
  }
  return checks;
}

const fmt = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mark = (pass: boolean) => (pass ? '✅ pass' : '❌ FAIL');
const table = (header: string[], rows: string[][]) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

function resultsTable(records: RunRecord[], phase: RunRecord['phase'], scenarios: string[]): string {
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const server of SERVERS) {
      const all = records.filter((r) => r.phase === phase && r.scenario === scenario && r.server === server);
      if (all.length === 0) continue;
      const s = summarize(records, phase, scenario, server);
      // A1+R2 has its own table: against a baseline whose event loop bcrypt blocks, its ratios say nothing more.
      const plain = server === 'baseline' || scenario === CONCURRENT;
      const ratio = (pick: Pick) => (plain ? '' : fmt(pairedRatio(records, phase, [scenario, server], [scenario, 'baseline'], pick), 2));
      const validity = s ? `${s.valid}/${s.runs}` : `**0/${all.length} (INVALID)**`;
      rows.push([
        scenario,
        SERVER_LABELS[server],
        fmt(s?.rps, 0),
        fmt(s?.p50, 2),
        fmt(s?.p99, 2),
        fmt(s?.cpuPerRequest, 3),
        fmt(s?.dbCpuPerRequest, 3),
        ratio(RPS),
        ratio(P99),
        ratio(CPU),
        validity,
      ]);
    }
  }
  return table(
    ['Scenario', 'Server', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'Postgres CPU ms/req', 'req/s / baseline', 'p99 / baseline', 'CPU / baseline', 'valid runs'],
    rows,
  );
}

function targetsTable(checks: TargetCheck[]): string {
  const keys = [...new Set(checks.map((c) => `${c.scenario}\u0000${c.target}`))];
  return table(
    ['Scenario', 'Target', SERVER_LABELS['basalt-1'], SERVER_LABELS['basalt-2']],
    keys.map((key) => {
      const [scenario, target] = key.split('\u0000') as [string, string];
      const cell = (server: ServerName) => {
        const check = checks.find((c) => c.scenario === scenario && c.target === target && c.server === server);
        return check ? `${fmt(check.value, 2)} ${mark(check.pass)}` : 'n/a';
      };
      return [scenario, target, cell('basalt-1'), cell('basalt-2')];
    }),
  );
}

function concurrentTable(records: RunRecord[]): string {
  return table(
    ['Server', 'R2 p99 alone ms', 'R2 p99 during A1 ms', 'ratio', 'R2 req/s during A1', 'A1 req/s during R2', 'A1 p99 ms during R2'],
    SERVERS.map((server) => {
      const alone = summarize(records, 'main', 'R2', server);
      const during = summarize(records, 'main', CONCURRENT, server);
      const ratio = pairedRatio(records, 'main', [CONCURRENT, server], ['R2', server], P99);
      return [SERVER_LABELS[server], fmt(alone?.p99, 2), fmt(during?.p99, 2), fmt(ratio, 2), fmt(during?.rps, 0), fmt(during?.extraRps, 1), fmt(during?.extraP99, 0)];
    }),
  );
}

function growthTable(records: RunRecord[], meta: BenchMeta): string {
  const rows: string[][] = [];
  for (const scenario of ['R1', 'R2', 'R3']) {
    for (const server of SERVERS.filter((name) => records.some((r) => r.phase === 'growth' && r.server === name))) {
      const small = summarize(records, 'main', scenario, server);
      const big = summarize(records, 'growth', scenario, server);
      rows.push([
        scenario,
        SERVER_LABELS[server],
        fmt(small?.rps, 0),
        fmt(big?.rps, 0),
        fmt(small && big ? big.rps / small.rps : null, 3),
        fmt(small?.p99, 1),
        fmt(big?.p99, 1),
        fmt(big?.dbCpuPerRequest, 2),
        server === 'baseline' ? '' : fmt(pairedRatio(records, 'growth', [scenario, server], [scenario, 'baseline'], RPS), 2),
      ]);
    }
  }
  const small = meta.rows.toLocaleString('en-US');
  const big = (meta.growthRows ?? 0).toLocaleString('en-US');
  return table(
    ['Scenario', 'Server', `req/s ${small}`, `req/s ${big}`, `${big}/${small}`, `p99 ms ${small}`, `p99 ms ${big}`, `Postgres CPU ms/req ${big}`, `Basalt/baseline req/s ${big}`],
    rows,
  );
}

/** The generated part of docs/performance.md. */
export function renderReport(records: RunRecord[], meta: BenchMeta): string {
  const checks = checkTargets(records, meta.bcryptCompareMs);
  const invalid = records.filter((r) => r.problems.length > 0);
  const main = ['R1', 'R2', 'R3', 'W1', 'W2', 'A1', 'M1', CONCURRENT];
  const verdict = (server: ServerName) => {
    const mine = checks.filter((c) => c.server === server);
    const failed = mine.filter((c) => !c.pass).map((c) => `${c.scenario} ${c.target}`);
    return `${SERVER_LABELS[server]} meets ${mine.length - failed.length} of ${mine.length} targets${failed.length ? ` (not met: ${failed.join('; ')})` : ''}.`;
  };
  const lines = [
    `## Latest run: ${meta.date}`,
    '',
    `- Machine: ${meta.machine}; load average ${meta.load}`,
    `- Basalt as built from ${meta.source}; Node ${meta.node}; PostgreSQL ${meta.postgres}`,
    `- ${meta.rows.toLocaleString('en-US')} rows in \`items\`; ${meta.rounds} round${meta.rounds === 1 ? '' : 's'}, servers alternating within every round${meta.slices > 1 ? ` (R1-R3, W1, W2: in ${meta.slices} slices of ${fmt(meta.durationS / meta.slices, 1)} s, the servers taking turns slice by slice)` : ''}; ${meta.durationS} s per run; ${meta.connections} keep-alive connections (autocannon); total time ${Math.round(meta.elapsedS)} s`,
    `- One bcryptjs compare at cost 10 takes ${fmt(meta.bcryptCompareMs, 1)} ms here: one core signs in at most ${fmt(meta.bcryptCompareMs ? 1000 / meta.bcryptCompareMs : null, 1)} times a second`,
    `- Basalt: \`NODE_ENV=production LOG_LEVEL=info BCRYPT_COST=10\`, request log on (${meta.requestLogLines.toLocaleString('en-US')} JSON lines written); the baseline: one process, pool of 10 like each Basalt process, bcryptjs on its main thread`,
    ...(meta.overallRate
      ? [`- **Rate-capped at ${meta.overallRate} req/s per run (a smoke run): it checks answers, its ratios mean nothing.**`]
      : []),
    invalid.length === 0
      ? `- Validity: every run answered 2xx only (${records.length} runs).`
      : `- **Validity: ${invalid.length} of ${records.length} runs were INVALID (non-2xx or errors) and are left out of the medians; see below.**`,
    '',
    '### Targets (issue 6)',
    '',
    'Each ratio is the median over rounds of Basalt / baseline, each Basalt run paired with the baseline run of its own',
    'round; within a round the servers take turns in slices of a second, so load from elsewhere on the machine weighs',
    'on all of them alike (sign-in runs, which leave hashing queued, run whole, minutes apart at most). WORKERS=1 is the like-for-like',
    'comparison with the one-process baseline; WORKERS=2 shows what a second process buys when load generator, server',
    'and Postgres share the cores.',
    '',
    targetsTable(checks),
    '',
    `${verdict('basalt-1')} ${verdict('basalt-2')}`,
    '',
    `### Results (median of ${meta.rounds} rounds)`,
    '',
    resultsTable(records, 'main', main),
    '',
    'Ratio columns are paired per round, as above. CPU is per completed request: user + system time of the server',
    'process tree (Basalt: primary, workers, their bcrypt threads) and of the whole Postgres server (its postmaster',
    'tree) between the start and end of the run.',
    '',
    '### Sign-in under load: A1 and R2 at once',
    '',
    concurrentTable(records),
  ];
  if (meta.growthRows !== null) {
    lines.push('', `### Growth: R1-R3 at ${meta.rows.toLocaleString('en-US')} and ${meta.growthRows.toLocaleString('en-US')} rows`, '', growthTable(records, meta));
  }
  if (invalid.length || meta.logProblems.length) {
    lines.push('', '### Invalid runs and server log problems', '');
    for (const r of invalid) lines.push(`- ${r.phase} round ${r.round} ${r.scenario} on ${SERVER_LABELS[r.server]}: ${r.problems.join('; ')}`);
    for (const problem of meta.logProblems.slice(0, 20)) lines.push(`- log: \`${problem.replace(/`/g, "'")}\``);
  }
  lines.push(
    '',
    '### Scenarios',
    '',
    '- R1 `GET /api/items?limit=20&order=id.asc` (anon key, public-read); R2 `GET /api/items/:id`, a random seeded id;',
    '  R3 `GET /api/items?score=42&limit=20` (index on score); W1 `POST /api/my_items` as a member (owner-scoped);',
    '  W2 `PUT /api/my_items/:id` on a random existing row of the member; A1 `POST /auth/signin`; M1 80% R1-R3,',
    '  15% W1/W2, 5% A1. Lists carry their exact `total`; the baseline computes it in the same statement.',
    '- Every response of a check request is verified (status, `data`/`total`, row shape) before the load; during the',
    '  load any non-2xx, socket error or timeout makes the run invalid.',
  );
  return lines.join('\n');
}

const BEGIN = '<!-- bench:begin: generated by `npm run bench`; edits between these markers are overwritten -->';
const END = '<!-- bench:end -->';
const SKELETON = `# Performance

How much Basalt costs over talking to Postgres directly, measured by \`npm run bench\` (see \`bench/\` and issue 6).
Run it with \`npm run bench\` (about 9 minutes on 2 cores), \`npm run bench -- --no-growth\` to skip the million-row
part, \`npm run bench -- --smoke\` for a quick correctness pass. Ratios are what to compare: load generator, servers
and Postgres share the machine, so absolute numbers move from run to run.

${BEGIN}
${END}

## Profile findings

_Placeholder: to be filled in from \`node --cpu-prof\` profiles of Basalt under this load (where the time goes, what
was changed, and what it bought)._
`;

/** Writes the generated block into `file`, keeping everything outside the markers (the profile findings) as it is. */
export function writeReport(file: string, generated: string): void {
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : SKELETON;
  // A file written by hand before the first run keeps its text; the generated block goes after it.
  if (!text.includes(BEGIN) || !text.includes(END)) text = `${text.trimEnd()}\n\n${BEGIN}\n${END}\n`;
  const start = text.indexOf(BEGIN) + BEGIN.length;
  const end = text.indexOf(END);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text.slice(0, start)}\n${generated}\n${text.slice(end)}`);
}

/** One line per run on the terminal as the benchmark goes. */
export function describeRun(r: RunRecord): string {
  const requests = requestsOf(r);
  const extra = r.extra ? `; A1 ${fmt(r.extra.rps, 1)} req/s` : '';
  const head = `${r.phase === 'growth' ? `[${r.rows.toLocaleString('en-US')} rows] ` : ''}round ${r.round} ${r.scenario.padEnd(5)} ${r.server.padEnd(8)}`;
  return `${head} ${fmt(r.load.rps, 0).padStart(7)} req/s  p50 ${fmt(r.load.p50, 2)} ms  p99 ${fmt(r.load.p99, 2)} ms  cpu ${fmt(r.serverCpuMs / requests, 3)} ms/req${extra}`;
}
