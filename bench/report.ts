import fs from 'node:fs';
import path from 'node:path';
import { fmt, table } from './format.js';
import { BULK_ROWS, DEEP_OFFSET, GROWTH_MY_ROWS } from './queryScenarios.js';
import { A1M, BASALTS, CONCURRENT, CPU, F1, F3, P99, pairedRatio, requestsOf, RPS, SERVER_LABELS, SERVERS, summarize, type BenchMeta, type Pick, type RunRecord, type ServerName } from './stats.js';
import { ABUSE, A2_ATTEMPTS, A2_CONNECTIONS } from './abuse.js';
import { ARTICLE_READ, MEMBER_RULE, RULED } from './ruleScenarios.js';
import { checkTargets, targetsTable } from './targets.js';
import { describeFlow, secondStepTable } from './mfaReport.js';
import { describeTransfer, fileScenarioLines, filesSection } from './filesReport.js';
import { query2ScenarioLines, QUERY2_NAMES } from './query2Scenarios.js';

export { CONCURRENT, SERVERS, type BenchMeta, type RunRecord, type RunSettings, type ServerName } from './stats.js';

function resultsTable(records: RunRecord[], phase: RunRecord['phase'], scenarios: string[]): string {
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const server of SERVERS) {
      const all = records.filter((r) => r.phase === phase && r.scenario === scenario && r.server === server);
      if (all.length === 0) continue;
      const s = summarize(records, phase, scenario, server);
      // A1+R2 has its own table: against a baseline whose event loop bcrypt blocks, its ratios say nothing more.
      // A1M and F3 have no baseline run: their tables compare them with A1 and F1.
      const plain = server === 'baseline' || scenario === CONCURRENT || scenario === A1M || scenario === F3;
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

/** A2: guessing at one account while A1 signs in; Basalt only (the baseline has no limits). */
function abuseTable(records: RunRecord[]): string {
  return table(
    ['Server', 'A1 req/s alone', 'A1 req/s during A2', 'ratio (paired)', 'A2 hashed (401)', 'A2 refused (429)', 'A2 p50 ms', 'A2 p99 ms'],
    BASALTS.map((server) => {
      const alone = summarize(records, 'main', 'A1', server);
      const during = summarize(records, 'main', ABUSE, server);
      const runs = records.filter((r) => r.scenario === ABUSE && r.server === server && r.extra);
      const statuses = (status: string) => (runs.length ? runs.map((r) => r.extra!.statuses[status] ?? 0).join(' / ') : 'n/a');
      return [SERVER_LABELS[server], fmt(alone?.rps, 1), fmt(during?.rps, 1), fmt(pairedRatio(records, 'main', [ABUSE, server], ['A1', server], RPS), 2), statuses('401'), statuses('429'), fmt(during?.extraP50, 2), fmt(during?.extraP99, 2)];
    }),
  );
}

/** R5 at the growth size: page 5,000 by cursor and by offset beside page 1, each as a share of page 1's req/s. */
function deepPagesTable(records: RunRecord[]): string {
  const servers = SERVERS.filter((name) => records.some((r) => r.phase === 'growth' && r.server === name && r.scenario.startsWith('R5')));
  return table(
    ['Server', 'page 1 req/s', `page 5,000 by cursor req/s`, 'cursor / page 1', 'cursor / page 1, in turns (D5000 / D1)', `page 5,000 by offset (${DEEP_OFFSET.toLocaleString('en-US')}) req/s`, 'offset / page 1', 'cursor p99 ms', 'offset p99 ms'],
    servers.map((server) => {
      const [first, cursor, offset] = ['R5 page 1', 'R5 cursor', 'R5 offset'].map((scenario) => summarize(records, 'growth', scenario, server));
      const share = (scenario: string) => pairedRatio(records, 'growth', [scenario, server], ['R5 page 1', server], RPS);
      const inTurns = pairedRatio(records, 'growth', ['D5000', server], ['D1', server], RPS);
      return [SERVER_LABELS[server], fmt(first?.rps, 0), fmt(cursor?.rps, 0), fmt(share('R5 cursor'), 2), fmt(inTurns, 2), fmt(offset?.rps, 0), fmt(share('R5 offset'), 2), fmt(cursor?.p99, 1), fmt(offset?.p99, 1)];
    }),
  );
}

/** Issue 16: the first page with its exact total beside the same page without one, at the growth size. */
function totalsTable(records: RunRecord[]): string {
  const servers = SERVERS.filter((name) => records.some((r) => r.phase === 'growth' && r.server === name && r.scenario.startsWith('R7')));
  const versus = (server: ServerName, pair: string) => (server === 'baseline' ? '' : fmt(pairedRatio(records, 'growth', [pair, server], [pair, 'baseline'], RPS), 2));
  return table(
    ['Server', 'T1: R1 req/s (baseline: without total)', 'T1 / baseline', 'T7: R7 req/s (baseline: without total)', 'T7 / baseline', 'R7 with total req/s', 'R7 without total req/s', 'T1 p99 ms', 'T7 p99 ms'],
    servers.map((server) => {
      const [t1, t7, r7, r7none] = ['T1', 'T7', 'R7', 'R7 none'].map((scenario) => summarize(records, 'growth', scenario, server));
      return [SERVER_LABELS[server], fmt(t1?.rps, 0), versus(server, 'T1'), fmt(t7?.rps, 0), versus(server, 'T7'), fmt(r7?.rps, 0), fmt(r7none?.rps, 0), fmt(t1?.p99, 1), fmt(t7?.p99, 1)];
    }),
  );
}

function growthTable(records: RunRecord[], meta: BenchMeta): string {
  const rows: string[][] = [];
  for (const scenario of ['R1', 'R2', 'R3', 'R10']) {
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
  const main = ['R1', 'R2', 'R3', 'R4', 'R6', 'R8', 'R9', 'W1', 'W2', 'W3', 'B1', ...QUERY2_NAMES, 'A1', A1M, 'M1', CONCURRENT, F1, F3];
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
    '### Targets (issues 6, 11, 12, 13, 16, 22, 24, 27, 28 and 30)',
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
    '',
    `### Abuse limits: A2 (${A2_ATTEMPTS.toLocaleString('en-US')} wrong passwords at one account from one address) while A1 runs`,
    '',
    abuseTable(records),
    '',
    `A2 sends its attempts over ${A2_CONNECTIONS} connections, paced over A1's run, from a fresh address per run (X-Forwarded-For`,
    'through TRUST_PROXY=loopback); A1 signs the member in from 127.0.0.1 meanwhile. Per run: the attempts hashed',
    '(401) before the limit refused the rest (429), and the latency of all A2 answers.',
    '',
    '### Sign-in with the second step: A1M (password, then a TOTP code) beside A1',
    '',
    secondStepTable(records),
    '',
    'A1M counts completed sign-ins (both requests answered 2xx) per second, each of a pool account with TOTP on, used at',
    'most once per 30 s step; its target is A1 on the same server in the same round (no baseline). In the results table',
    'its req/s, latencies and CPU are per completed sign-in.',
    ...filesSection(records, meta),
  ];
  if (meta.growthRows !== null) {
    lines.push('', `### Growth: R1-R3 at ${meta.rows.toLocaleString('en-US')} and ${meta.growthRows.toLocaleString('en-US')} rows`, '', growthTable(records, meta));
    lines.push('', `### R5: deep pages at ${meta.growthRows.toLocaleString('en-US')} rows (count=none)`, '', deepPagesTable(records));
    lines.push('', `### Exact totals at ${meta.growthRows.toLocaleString('en-US')} rows (maintained counts)`, '', totalsTable(records));
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
    '- A1M (issue 27, Basalt only) `POST /auth/signin` answering `{ mfaRequired, mfaToken }`, then `POST /auth/mfa/challenge`',
    '  with the current TOTP code, over a pool of accounts with TOTP on (bench/mfa.ts), as long as A1 and right after it.',
    ...fileScenarioLines(),
    '- R4 `GET /api/items?createdAt[gte]=..&createdAt[lt]=..&order=createdAt.desc&limit=20` (1,000 rows in range, index on',
    '  (createdAt, id)); B1 `POST /api/my_items` with an array of ' + BULK_ROWS + ' records (B1 rows/s = req/s x ' + BULK_ROWS + ');',
    '  R5 (growth part) `GET /api/items?limit=20&count=none`, then page 5,000 `&after=<cursor>` and `&offset=' + DEEP_OFFSET + '`.',
    '- R7 (growth part) `GET /api/my_items?limit=20&order=id.asc` as the member, who owns all ' + GROWTH_MY_ROWS.toLocaleString('en-US') + ' rows of',
    '  that owner-scoped table (refilled for the growth part), with its total and (`R7 none`) with `count=none`. T1 and T7 (issue 16): Basalt answers R1',
    '  and R7 with their totals while the baseline answers the same pages without (R5 page 1, R7 none), in ' + meta.slices + ' slices of ' + fmt(meta.durationS / meta.slices, 1) + ' s taken in turn;',
    '  D1 and D5000: R5 page 1 and R5 cursor on one server in slices taken in turn (the R5 target).',
    '- R6 `GET /api/posts?limit=20&select=*,author(*),comments(*)&comments.order=createdAt.desc&comments.limit=3`',
    '  (10,000 posts, 200 authors, 5 comments per post); the baseline writes the same query by hand.',
    '- R10 `GET /api/shared_items?limit=20` as the member, who owns 5 rows in 8 of that owner-scoped table (made by the admin',
    '  API: owner index on (user_id, id)): 1,000 of 1,600 analysed rows in the main part, 500,000 of 800,000 loaded by SQL',
    '  and never analysed (autovacuum off on it) in the growth part. Its target compares the two sizes, as the growth table does.',
    `- Access rules (issue 24), as the member, on tables made by the admin API (${RULED.projects.toLocaleString('en-US')} projects read by their members,`,
    `  ${(RULED.users * RULED.projectsPerUser).toLocaleString('en-US')} memberships \`private\`, the member in ${RULED.projectsPerUser} projects; indexes memberships (project_id, user_id), tasks and tickets`,
    '  (project_id, createdAt)): R8 `GET /api/tasks?limit=20&order=createdAt.desc` with its exact total, ' + RULED.tasks.toLocaleString('en-US') + ' tasks (' + (RULED.tasks / RULED.projects) + ' per project)',
    `  under read \`${MEMBER_RULE}\` (an EXISTS through projects and memberships); R9 \`GET /api/articles/:id\``,
    `  (a random one of the readable 3 in 4 of ${RULED.articles.toLocaleString('en-US')}) under read \`${ARTICLE_READ}\`; W3 \`POST /api/tickets\` in one of the member's`,
    `  projects under create \`${MEMBER_RULE}\`. The baseline runs the same SQL by hand: R8 the same EXISTS in its page and`,
    '  its count(*), R9 the same WHERE, W3 `INSERT ... SELECT ... WHERE EXISTS (...)` (one statement; Basalt also checks that',
    "  the project named is readable, a statement of its own). Before the load each server must refuse a request the rule refuses.",
    ...query2ScenarioLines(),
    '- The baseline reads and writes its own copies of these tables (schema `bare`, same columns, keys and indexes, rows',
    '  copied), with none of Basalt\'s triggers: what a hand-written backend would have (issue 22).',
    '- Every list answer carries `next` (Basalt reads one row past the page and its order keys as text); the baseline',
    '  does the same: the same statements, the same signed cursors, so a cursor of one works on the other.',
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
  writeMarkedSection(file, { begin: BEGIN, end: END }, generated, { skeleton: SKELETON });
}

/**
 * Replaces what stands between two markers of a report file, keeping everything else as it is (every benchmark
 * writes its own section of docs/performance.md this way). Markers not both there: the section is added at the end,
 * under `heading`; no file: `skeleton` (or a bare title) first.
 */
export function writeMarkedSection(file: string, markers: { begin: string; end: string }, text: string, options: { skeleton?: string; heading?: string } = {}): void {
  let content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : (options.skeleton ?? '# Performance\n');
  if (!content.includes(markers.begin) || !content.includes(markers.end)) {
    content = `${content.trimEnd()}\n\n${options.heading ? `${options.heading}\n\n` : ''}${markers.begin}\n${markers.end}\n`;
  }
  const start = content.indexOf(markers.begin) + markers.begin.length;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${content.slice(0, start)}\n${text}\n${content.slice(content.indexOf(markers.end))}`);
}

/** One line per run on the terminal as the benchmark goes. */
export function describeRun(r: RunRecord): string {
  const requests = requestsOf(r);
  if (r.flow) return describeFlow(r, requests);
  if (r.transfer) return describeTransfer(r);
  const extra = r.extra ? (r.scenario === ABUSE ? `; A2 p50 ${fmt(r.extra.p50, 2)} ms, ${r.extra.statuses['401'] ?? 0} x 401, ${r.extra.statuses['429'] ?? 0} x 429` : `; A1 ${fmt(r.extra.rps, 1)} req/s`) : '';
  const head = `${r.phase === 'growth' ? `[${r.rows.toLocaleString('en-US')} rows] ` : ''}round ${r.round} ${r.scenario.padEnd(5)} ${r.server.padEnd(8)}`;
  return `${head} ${fmt(r.load.rps, 0).padStart(7)} req/s  p50 ${fmt(r.load.p50, 2)} ms  p99 ${fmt(r.load.p99, 2)} ms  cpu ${fmt(r.serverCpuMs / requests, 3)} ms/req${extra}`;
}
