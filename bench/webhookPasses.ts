import pg from 'pg';
import { onServer, treeCpuMs, type BenchDatabase, type ServerProcess } from './processes.js';
import { MY_ITEMS, W1, type BenchProject } from './scenarios.js';
import { percentile } from './streams.js';
import type { Arrival, WebhookCatcher } from './webhookCatcher.js';

/**
 * WH1 of `npm run bench:webhooks` (bench/webhooks.ts): W1's writes at a fixed pace on a table with one webhook, each
 * change awaited at the catcher (`runPass`); and what every run of the part shares: the wait until the deliveries of
 * the changes captured since a moment all arrived (`drain`), the queue's state read in SQL (`watchQueue`).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WebhookContext { url: string; db: BenchDatabase; server: ServerProcess; catcher: WebhookCatcher; project: BenchProject; problems: string[] }

/** The queue in `_basalt_webhook_deliveries`: deliveries waiting (pending or failed), the oldest one's age, and the age of the oldest change not queued yet (s). */
export interface QueueState { queued: number; oldestS: number; behindS: number }

const QUEUE_SQL = `SELECT (SELECT count(*)::int FROM _basalt_webhook_deliveries WHERE status IN ('pending', 'failed')) AS queued,
  coalesce((SELECT extract(epoch FROM now() - min(created_at))::float8 FROM _basalt_webhook_deliveries WHERE status IN ('pending', 'failed')), 0) AS "oldestS",
  coalesce((SELECT extract(epoch FROM now() - min(c.at))::float8 FROM _basalt_changes c JOIN _basalt_change_holds h ON h.name = 'webhooks' AND c.xid >= h.xid), 0) AS "behindS"`;

const queueState = async (client: pg.Client) => (await client.query<QueueState>(QUEUE_SQL)).rows[0]!;

/** The queue read every second on a connection of its own; `peak` holds the largest of each. */
export async function watchQueue(url: string): Promise<{ peak: QueueState; stop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const peak: QueueState = { queued: 0, oldestS: 0, behindS: 0 };
  let reading: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    reading = queueState(client).then((state) => {
      for (const key of ['queued', 'oldestS', 'behindS'] as const) peak[key] = Math.max(peak[key], state[key]);
    }, () => undefined);
  }, 1000);
  return {
    peak,
    async stop() {
      clearInterval(timer);
      await reading;
      await client.end();
    },
  };
}

/** The database's clock now: changes captured from then on (their transaction's start) belong to what follows. */
export const databaseNow = (url: string) => onServer(url, async (client) => (await client.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now);

export interface Drain {
  /** Row changes of the webhook's table the capture logged since the start; deliveries of them received (distinct webhook-ids). */
  captured: number;
  /** Deliveries of changes from `since` on (a backlog of earlier runs' that came meanwhile is not counted). */
  delivered: number;
  /** Deliveries left waiting in the queue when the wait ended. */
  queued: number;
  complete: boolean;
  /** The last delivery's receipt (ms since the epoch; NaN: none). */
  lastAt: number;
}

/**
 * Waits until the catcher has received (after its arrival `from`) a delivery for every row change of the table the
 * capture logged since `since`, and the queue holds none waiting (an earlier run's backlog included: the next run
 * must not run beside it); or until `deadline` (ms since the epoch). Then half a second more, in which a second
 * receipt of a delivery would show. `changedAt` and `since` are both Postgres's clock.
 */
export async function drain(context: WebhookContext, from: number, since: Date, deadline: number): Promise<Drain> {
  const captured = `SELECT coalesce(sum(jsonb_array_length(record)), 0)::int AS n FROM _basalt_changes WHERE table_name = $1 AND at >= $2`;
  const ours = () => context.catcher.arrivals.slice(from).filter((arrival) => arrival.changedAt >= since.getTime());
  return onServer(context.db.url, async (client) => {
    let [expected, queued, askedAt, delivered, counted] = [-1, -1, 0, 0, from];
    for (;;) {
      // Counted as they come: a long drain (a backlog of 100,000) does not filter them all again every 100 ms.
      for (; counted < context.catcher.arrivals.length; counted++) if (context.catcher.arrivals[counted]!.changedAt >= since.getTime()) delivered++;
      // The log is summed again only when the count may be complete (B1's runs log 100 rows a statement).
      if (delivered >= expected || Date.now() - askedAt >= 1000) {
        askedAt = Date.now();
        queued = (await queueState(client)).queued;
        if (delivered >= expected) expected = (await client.query<{ n: number }>(captured, [MY_ITEMS, since])).rows[0]!.n;
        if (delivered >= expected && queued === 0) break;
      }
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    await sleep(500);
    const arrivals = ours();
    const lastAt = arrivals.length ? arrivals.reduce((last, arrival) => Math.max(last, arrival.receivedAt), 0) : NaN;
    return { captured: expected, delivered: arrivals.length, queued, complete: arrivals.length >= expected && queued === 0, lastAt };
  });
}

/** What a drain found wrong: rows answered but not captured, changes not delivered, deliveries beyond the changes. */
export function drainProblems(label: string, drained: Drain, answeredRows: number, waitS: number): string[] {
  const problems: string[] = [];
  if (drained.captured < answeredRows) problems.push(`${label}: ${answeredRows} rows written (answered 2xx), ${drained.captured} changes captured`);
  if (drained.delivered < drained.captured) problems.push(`${label}: ${drained.captured - drained.delivered} of ${drained.captured} changes not delivered within ${waitS} s (${drained.queued} deliveries still waiting)`);
  if (drained.delivered > drained.captured) problems.push(`${label}: ${drained.delivered - drained.captured} distinct deliveries more than the ${drained.captured} changes`);
  return problems;
}

export interface PassOptions {
  rate: number;
  durationS: number;
  /** Seconds into the pass when the catcher starts answering 503, and when it answers 2xx again; null: never. */
  outage: [number, number] | null;
  /** How long after the last write's answer the deliveries may take. */
  waitS: number;
}

export interface Pass {
  name: string;
  asked: number;
  answered: number;
  drain: Drain;
  /** Rows of the pass with a delivery; receipts with a 2xx of a webhook-id already received; attempts answered 503. */
  rows: number;
  duplicates: number;
  refused: number;
  /** Receipt minus the write's answer, and minus `changedAt`: [p50, p95, p99] ms. */
  fromAnswer: number[];
  fromChanged: number[];
  /** From the last write's answer (outage: from the catcher's recovery) to the last delivery, s. */
  lastAfterS: number;
  peak: QueueState;
  /** Deliveries of the pass by attempts made, as the queue holds them: [attempts, deliveries]. */
  attempts: Array<[number, number]>;
  serverCpuMsPerChange: number;
  dbCpuMsPerChange: number | null;
}

/** One W1 write (`POST /api/my_items` as the member), checked as W1 checks it; answers the new row's id. */
async function write(url: string, project: BenchProject): Promise<string> {
  const request = W1.next(project);
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const body: unknown = await response.json().catch(() => null);
  const problem = W1.check(project, request, response.status, body);
  if (problem) throw new Error(`${request.method} ${request.path} answered ${response.status}: ${problem}`);
  return String((body as { data: { id: unknown } }).data.id);
}

const quantiles = (values: number[]) => {
  values.sort((a, b) => a - b);
  return [0.5, 0.95, 0.99].map((fraction) => percentile(values, fraction));
};

/** One pass: `rate` writes a second for `durationS`, paced by the clock (a late tick catches up), then the wait for their deliveries. */
export async function runPass(context: WebhookContext, name: string, options: PassOptions): Promise<Pass> {
  const { url, db, server, catcher, project, problems } = context;
  const n = Math.round(options.rate * options.durationS);
  const answeredAt = new Map<string, number>();
  const [from, duplicates, refused] = [catcher.arrivals.length, catcher.duplicates, catcher.statuses[503] ?? 0];
  const since = await databaseNow(db.url);
  const queue = await watchQueue(db.url);
  const cpu = () => ({ server: treeCpuMs(server.pid), db: db.postmasterPid ? treeCpuMs(db.postmasterPid) : null });
  const [before, started] = [cpu(), performance.now()];
  let recoveredAt = NaN;
  const [failFrom, failTo] = options.outage ?? [];
  const timers = failFrom === undefined ? [] : [setTimeout(() => catcher.failWith(503), failFrom * 1000), setTimeout(() => (catcher.failWith(null), (recoveredAt = Date.now())), failTo! * 1000)];
  const writes: Array<Promise<unknown>> = [];
  let failed = 0;
  try {
    for (let i = 0; i < n; i++) {
      const wait = (i * 1000) / options.rate - (performance.now() - started);
      if (wait > 1) await sleep(wait);
      writes.push(write(url, project).then((id) => answeredAt.set(id, Date.now()), (error: unknown) => (failed++ < 3 ? problems.push(`WH1 ${name}: ${(error as Error).message}`) : 0)));
    }
    await Promise.all(writes);
    const lastAnswer = Date.now();
    if (options.outage) while (Number.isNaN(recoveredAt)) await sleep(50);
    const drained = await drain(context, from, since, lastAnswer + options.waitS * 1000);
    const after = cpu();
    const ours = catcher.arrivals.slice(from).filter((arrival) => answeredAt.has(arrival.rowId));
    const first = new Map<string, Arrival>();
    for (const arrival of ours) if (!first.has(arrival.rowId)) first.set(arrival.rowId, arrival);
    const attempts = await onServer(db.url, async (client) => {
      const sql = 'SELECT attempts, count(*)::int AS n FROM _basalt_webhook_deliveries WHERE changed_at >= $1 GROUP BY attempts ORDER BY attempts';
      return (await client.query<{ attempts: number; n: number }>(sql, [since])).rows.map((row): [number, number] => [row.attempts, row.n]);
    });
    const pass: Pass = {
      name,
      asked: n,
      answered: answeredAt.size,
      drain: drained,
      rows: first.size,
      duplicates: catcher.duplicates - duplicates,
      refused: (catcher.statuses[503] ?? 0) - refused,
      fromAnswer: quantiles([...first.values()].map((arrival) => arrival.receivedAt - answeredAt.get(arrival.rowId)!)),
      fromChanged: quantiles([...first.values()].map((arrival) => arrival.receivedAt - arrival.changedAt)),
      lastAfterS: (drained.lastAt - (options.outage ? recoveredAt : lastAnswer)) / 1000,
      peak: queue.peak,
      attempts,
      serverCpuMsPerChange: (after.server - before.server) / n,
      dbCpuMsPerChange: after.db === null || before.db === null ? null : (after.db - before.db) / n,
    };
    if (pass.answered < n) problems.push(`WH1 ${name}: ${n - pass.answered} of ${n} writes not answered 201`);
    problems.push(...drainProblems(`WH1 ${name}`, drained, pass.answered, options.waitS));
    if (ours.length > first.size) problems.push(`WH1 ${name}: ${ours.length - first.size} rows delivered under more than one webhook-id (queued twice)`);
    for (const problem of server.drainLog().problems) problems.push(`WH1 ${name}, server log: ${problem}`);
    return pass;
  } finally {
    timers.forEach(clearTimeout);
    catcher.failWith(null);
    await queue.stop();
  }
}
