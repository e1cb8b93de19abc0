import { fmt, mark, table } from './format.js';
import { BULK_ROWS } from './queryScenarios.js';
import { pairedRatio, RPS, SERVER_LABELS, summarize, type RunRecord, type ServerName } from './stats.js';
import type { Drain, Pass, QueueState } from './webhookPasses.js';

/** Issue 29's targets for `npm run bench:webhooks` (bench/webhooks.ts), and its section of docs/performance.md. */

export const TARGET_P99_MS = 1_000;
export const TARGET_DRAIN_S = 60;
export const TARGET_DUPLICATES = 0.01;
export const TARGET_WRITES = 0.6;
export const TARGET_BULK = 10;

/** One Basalt run of the rounds: the rows it wrote (answered 2xx), the wait for their deliveries, the queue's peak. */
export interface RunDrain {
  round: number;
  scenario: string;
  answeredRows: number;
  drain: Drain;
  /** From the end of the load to the last delivery, s. */
  lastAfterS: number;
  peak: QueueState;
}

export interface Check {
  part: string;
  target: string;
  value: string;
  pass: boolean;
}

export interface WebhookMeta {
  rate: number;
  durationS: number;
  outage: [number, number];
  rounds: number;
  runS: number;
  connections: number;
  machine: string;
  node: string;
  postgres: string;
  load: string;
  verified: number;
  badSignatures: number;
}

const BASALT: ServerName = 'basalt-1';
const ratio = (records: RunRecord[], scenario: string, versus: [string, ServerName]) => pairedRatio(records, 'main', [scenario, BASALT], versus, RPS);
const outageLabel = (meta: WebhookMeta) => `503 from ${meta.outage[0]} s to ${meta.outage[1]} s`;
const share = (pass: Pass) => pass.duplicates / Math.max(1, pass.drain.delivered);
/** Every write answered, every change captured and delivered, one webhook-id per row. */
const allDelivered = (pass: Pass) => pass.drain.complete && pass.answered === pass.asked && pass.drain.captured === pass.answered && pass.drain.delivered === pass.answered && pass.rows === pass.answered;

export function checkTargets(passes: Pass[], records: RunRecord[], drains: RunDrain[], meta: WebhookMeta): Check[] {
  const [clean, outage] = passes as [Pass, Pass];
  const w1 = ratio(records, 'W1', ['W1', 'baseline']);
  const w2 = ratio(records, 'W2', ['W2', 'baseline']);
  const bulk = ratio(records, 'B1', ['W1', BASALT]);
  const w1Drains = drains.filter((run) => run.scenario === 'W1');
  const worst = w1Drains.length ? Math.max(...w1Drains.map((run) => (run.drain.complete ? run.lastAfterS : Infinity))) : NaN;
  const atLeast = (value: number | null, minimum: number) => value !== null && Number.isFinite(value) && value >= minimum;
  return [
    { part: 'WH1', target: 'every change delivered (distinct webhook-ids with a 2xx = writes answered 201)', value: `${clean.drain.delivered.toLocaleString('en-US')} / ${clean.answered.toLocaleString('en-US')}`, pass: allDelivered(clean) },
    { part: 'WH1', target: `commit-to-receipt p99 <= ${TARGET_P99_MS / 1000} s (from the write's answer)`, value: `${fmt(clean.fromAnswer[2], 0)} ms`, pass: clean.fromAnswer[2]! <= TARGET_P99_MS },
    { part: `WH1, ${outageLabel(meta)}`, target: 'every change delivered once the receiver recovers (waited up to 5 min)', value: `${outage.drain.delivered.toLocaleString('en-US')} / ${outage.answered.toLocaleString('en-US')}`, pass: allDelivered(outage) },
    { part: `WH1, ${outageLabel(meta)}`, target: `duplicates (a webhook-id received twice with a 2xx) < ${TARGET_DUPLICATES * 100} %`, value: `${outage.duplicates} (${fmt(share(outage) * 100, 2)} %)`, pass: share(outage) < TARGET_DUPLICATES },
    { part: 'W1 + webhook', target: `writes/s >= ${TARGET_WRITES} x baseline`, value: fmt(w1, 2), pass: atLeast(w1, TARGET_WRITES) },
    { part: 'W1 + webhook', target: `every delivery within ${TARGET_DRAIN_S} s after the run (worst round)`, value: `${fmt(worst, 1)} s`, pass: worst <= TARGET_DRAIN_S },
    { part: 'W2 + webhook', target: `writes/s >= ${TARGET_WRITES} x baseline`, value: fmt(w2, 2), pass: atLeast(w2, TARGET_WRITES) },
    { part: 'B1 + webhook', target: `rows/s >= ${TARGET_BULK} x W1 rows/s (${BULK_ROWS} rows per request, both with the webhook)`, value: fmt(bulk === null ? null : bulk * BULK_ROWS, 2), pass: atLeast(bulk === null ? null : bulk * BULK_ROWS, TARGET_BULK) },
  ];
}

const ms = (values: number[]) => `${values.map((value) => fmt(value, 0)).join(' / ')} ms`;
const count = (n: number) => n.toLocaleString('en-US');

function passTable(passes: Pass[], meta: WebhookMeta): string {
  const row = (measure: string, cell: (pass: Pass) => string) => [measure, ...passes.map(cell)];
  return table(
    ['WH1', `clean (${meta.rate}/s for ${meta.durationS} s)`, `the receiver answers ${outageLabel(meta)}`],
    [
      row('writes asked (answered 201) / changes captured', (p) => `${count(p.asked)} (${count(p.answered)}) / ${count(p.drain.captured)}`),
      row('delivered: distinct webhook-ids with a 2xx (rows)', (p) => `${count(p.drain.delivered)} (${count(p.rows)}) ${mark(allDelivered(p))}`),
      row('duplicates: a webhook-id again with a 2xx', (p) => `${p.duplicates} (${fmt(share(p) * 100, 2)} %)`),
      row('attempts answered 503', (p) => count(p.refused)),
      row('deliveries by attempts made (attempts: deliveries)', (p) => p.attempts.map(([attempts, n]) => `${attempts}: ${count(n)}`).join(', ')),
      row('receipt - write answered: p50 / p95 / p99', (p) => ms(p.fromAnswer)),
      row('receipt - `changedAt` (transaction start): p50 / p95 / p99', (p) => ms(p.fromChanged)),
      row('last delivery after the last answer (outage: after the recovery)', (p) => `${fmt(p.lastAfterS, 1)} s`),
      row('queue at its peak: waiting / oldest waiting / log not queued yet', (p) => `${count(p.peak.queued)} / ${fmt(p.peak.oldestS, 1)} s / ${fmt(p.peak.behindS, 1)} s`),
      row('CPU per change, Basalt / Postgres (write, capture, queueing, delivery)', (p) => `${fmt(p.serverCpuMsPerChange, 3)} / ${fmt(p.dbCpuMsPerChange, 3)} ms`),
    ],
  );
}

function roundsTable(records: RunRecord[], drains: RunDrain[]): string {
  const rows = ['W1', 'W2', 'B1'].map((scenario) => {
    const [base, basalt] = [summarize(records, 'main', scenario, 'baseline'), summarize(records, 'main', scenario, BASALT)];
    const runs = drains.filter((run) => run.scenario === scenario);
    const arrived = runs.filter((run) => run.drain.complete).length;
    const worst = Math.max(...runs.map((run) => run.lastAfterS));
    const cell = (summary: typeof base) => (summary ? `${fmt(summary.rps, 0)} (${fmt(summary.p99, 1)} ms)` : 'n/a');
    return [
      scenario,
      cell(base),
      cell(basalt),
      fmt(ratio(records, scenario, [scenario, 'baseline']), 2),
      `${fmt(base?.cpuPerRequest, 3)} / ${fmt(basalt?.cpuPerRequest, 3)} ms`,
      `${count(runs.reduce((sum, run) => sum + run.drain.delivered, 0))} of ${count(runs.reduce((sum, run) => sum + run.drain.captured, 0))} in ${runs.length} runs ${mark(arrived === runs.length && runs.length > 0)}`,
      `${fmt(worst, 1)} s`,
      runs.length ? count(Math.max(...runs.map((run) => run.peak.queued))) : 'n/a',
    ];
  });
  return table(
    ['Scenario', `${SERVER_LABELS.baseline} req/s (p99)`, `${SERVER_LABELS[BASALT]} + webhook req/s (p99)`, 'ratio (paired)', 'CPU per request, baseline / Basalt (deliveries included)', 'deliveries (of the changes captured)', 'last delivery after the run (worst)', 'queue peak (worst)'],
    rows,
  );
}

export function renderWebhookReport(passes: Pass[], records: RunRecord[], drains: RunDrain[], checks: Check[], meta: WebhookMeta): string {
  return [
    `### WH1 and writes with a webhook (issue 29, ${new Date().toISOString()})`,
    '',
    table(['Part', 'Target', 'Value', 'Result'], checks.map((check) => [check.part, check.target, check.value, mark(check.pass)])),
    '',
    passTable(passes, meta),
    '',
    roundsTable(records, drains),
    '',
    `Machine: ${meta.machine}; Node ${meta.node}; PostgreSQL ${meta.postgres}; load averages ${meta.load}. One Basalt process`,
    '(WORKERS=1, NODE_ENV=production, request log at info) with one webhook on `my_items` (`POST /admin/webhooks`, all',
    "events), delivering to a node:http receiver in the benchmark's process on loopback (config.json",
    '`webhooks.allowPrivateTargets`), which answers 204 and keeps each webhook-id\'s first receipt; it verified the',
    `Standard Webhooks signature of a sample with the \`standardwebhooks\` package: ${count(meta.verified)} right, ${meta.badSignatures} wrong.`,
    `WH1: W1's \`POST /api/my_items\` as the member, paced by the clock at ${meta.rate}/s for ${meta.durationS} s (after a warm-up pass, not shown),`,
    "each pass waiting until every change the capture logged (`_basalt_changes`) has its delivery and the queue",
    "(`_basalt_webhook_deliveries`, read every second) holds none waiting. Receipt and the write's answer are this",
    "process's clock; `changedAt` is Postgres's. CPU is the Basalt process and the postmaster's tree from the first",
    'write to the last delivery, over the writes. W1, W2, B1 (bench/scenarios.ts, bench/queryScenarios.ts): the bare',
    `baseline (bench/baseline.ts) and Basalt with the webhook in turn, whole runs of ${meta.runS} s on ${meta.connections} connections, ${meta.rounds} rounds,`,
    "the first server alternating; after each Basalt run the benchmark waits for all its deliveries (inside the run's CPU",
    "time, not its req/s) before the next run, so the baseline never runs beside Basalt's deliveries; a run whose",
    'deliveries are not all in after 5 minutes ends the rounds (every later run would measure its backlog). Ratios',
    "are paired per round, medians over rounds; B1's rows/s against W1's of the same Basalt round.",
  ].join('\n');
}
