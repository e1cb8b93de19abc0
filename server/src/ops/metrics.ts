import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { HttpSeries } from './httpSeries.js';
import type { Replicas } from '../replicas/router.js';

/**
 * The Prometheus metrics of one process (`GET /metrics`, API.md "Operations"). Request counts and durations are
 * observed on every response into series cached by route, method and status (ops/httpSeries.ts), so the hot path
 * looks up three maps and never builds a label object; pool, schema, hashing and realtime numbers are read at
 * scrape time.
 */

/** What the gauges read when scraped. */
export interface MetricSources {
  pool: { totalCount: number; idleCount: number; waitingCount: number };
  /** Completed schema loads since start. */
  schemaLoads: () => number;
  passwordJobs: () => { running: number; queued: number };
  realtimeStreams: () => number;
  /** Changes the realtime hub could not deliver since start (their subscribers got a reset). */
  realtimeUndeliverable: () => number;
  /** The read replicas: each standby's lag, use and reads served, and the reads that fell back to the primary. */
  replicas?: Pick<Replicas, 'report' | 'primaryFallbacks'> | null;
  /** The outbox: mails this process sent or gave up on, and the queue as the database holds it. */
  mail?: { counts: { sent: number; failed: number }; backlog(): Promise<{ queued: number; oldestSeconds: number }> };
  /** Webhooks: attempts of this process by outcome, and the queue and the log's hold as the database holds them. */
  webhooks?: {
    counts: { delivered: number; failed: number; dead: number };
    backlog(): Promise<{ queued: number; oldestSeconds: number; logBehindSeconds: number }>;
  };
}

/** Seconds; from a millisecond to ten seconds, the range where an API's latency means something. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const SIGN_IN_OUTCOMES = ['success', 'refused', 'rate_limited', 'invalid', 'error'] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];

/** Workers a scrape covers: each process says 1 answered; the cluster's primary adds the ones that did not answer. */
export const SCRAPE_WORKERS = 'basalt_scrape_workers';
const SCRAPE_WORKERS_HELP = 'Worker processes whose metrics this scrape sums (answered) or lacks (missing: no answer in time)';

export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly http = new HttpSeries(
    { count: 'basalt_http_requests_total', duration: 'basalt_http_request_duration_seconds' },
    {
      count: 'HTTP responses finished, by method, route template and status',
      duration: 'Time from a request reaching the app to its response finishing, by method, route template and status (event streams are not timed)',
    },
    DURATION_BUCKETS,
  );
  private readonly signIns = new Map<SignInOutcome, { inc(): void }>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters (promtool refuses them); their per-type siblings without `_total` stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    this.http.registerIn(this.registry);
    const signIns = new Counter({ name: 'basalt_signins_total', help: 'POST /auth/signin answers by outcome: success (200), refused (401), rate_limited (429), invalid (other 4xx), error (5xx)', labelNames: ['outcome'], registers });
    for (const outcome of SIGN_IN_OUTCOMES) this.signIns.set(outcome, signIns.labels(outcome));
    for (const outcome of SIGN_IN_OUTCOMES) signIns.inc({ outcome }, 0);
    const { pool } = sources;
    gauge(registers, 'basalt_db_pool_connections', 'Open connections of the record pool', () => pool.totalCount);
    gauge(registers, 'basalt_db_pool_idle_connections', 'Idle connections of the record pool', () => pool.idleCount);
    gauge(registers, 'basalt_db_pool_waiting_queries', 'Queries waiting for a connection of the record pool', () => pool.waitingCount);
    gauge(registers, 'basalt_realtime_streams', 'Open realtime event streams', sources.realtimeStreams);
    new Gauge({
      name: 'basalt_password_jobs',
      help: 'bcrypt jobs of sign-ins, sign-ups and password changes: running on a hashing thread, or queued behind one',
      labelNames: ['state'],
      registers,
      collect() {
        const { running, queued } = sources.passwordJobs();
        this.set({ state: 'running' }, running);
        this.set({ state: 'queued' }, queued);
      },
    });
    counter(registers, 'basalt_schema_reloads_total', 'Loads of the schema cache from the catalog (the first at start included)', sources.schemaLoads);
    counter(
      registers,
      'basalt_realtime_undeliverable_changes_total',
      "Changes whose rows could not be read back into their table's types (their subscribers got a reset event instead)",
      sources.realtimeUndeliverable,
    );
    if (sources.replicas) replicaMetrics(registers, sources.replicas);
    if (sources.mail) mailMetrics(registers, sources.mail);
    if (sources.webhooks) webhookMetrics(registers, sources.webhooks);
    const workers = new Gauge({ name: SCRAPE_WORKERS, help: SCRAPE_WORKERS_HELP, labelNames: ['state'], registers });
    workers.set({ state: 'answered' }, 1);
    workers.set({ state: 'missing' }, 0);
  }

  /** One finished response; `seconds` < 0 when it has no meaningful duration (an event stream that ended). */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.http.observe(method, route, status, seconds);
  }

  signIn(outcome: SignInOutcome): void {
    this.signIns.get(outcome)?.inc();
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

function gauge(registers: Registry[], name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

/** A counter that follows a running total read at scrape time. */
function counter(registers: Registry[], name: string, help: string, read: () => number): void {
  let counted = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const total = read();
      if (total > counted) this.inc(total - counted);
      counted = total;
    },
  });
}

/** Per standby: lag and whether reads go to it (the worst of the workers), reads served; reads the primary took instead. */
function replicaMetrics(registers: Registry[], replicas: Pick<Replicas, 'report' | 'primaryFallbacks'>): void {
  new Gauge({
    name: 'basalt_replica_lag_seconds',
    help: "How far each standby is behind the primary: the time since its replayed position was first below the primary's sampled position",
    labelNames: ['standby'],
    aggregator: 'max',
    registers,
    collect() {
      for (const standby of replicas.report()) this.set({ standby: standby.name }, standby.lagSeconds);
    },
  });
  new Gauge({
    name: 'basalt_replica_in_use',
    help: 'Whether record reads may go to the standby (1: it answers and is within REPLICA_MAX_LAG_MS; 0: skipped)',
    labelNames: ['standby'],
    aggregator: 'min',
    registers,
    collect() {
      for (const standby of replicas.report()) this.set({ standby: standby.name }, standby.inUse ? 1 : 0);
    },
  });
  const served = new Map<string, number>();
  new Counter({
    name: 'basalt_replica_reads_total',
    help: 'Record reads served by each standby',
    labelNames: ['standby'],
    registers,
    collect() {
      for (const standby of replicas.report()) {
        const before = served.get(standby.name) ?? 0;
        this.inc({ standby: standby.name }, standby.served - before);
        served.set(standby.name, standby.served);
      }
    },
  });
  counter(registers, 'basalt_replica_primary_fallbacks_total', 'Record reads served by the primary because no standby had replayed what they must see in time (or a standby failed mid-read)', () => replicas.primaryFallbacks);
}

/** The outbox: sent and failed by this process; queued mails and the oldest's age, read from the database (max over workers). */
function mailMetrics(registers: Registry[], mail: NonNullable<MetricSources['mail']>): void {
  counter(registers, 'basalt_mails_sent_total', 'Mails the SMTP server accepted', () => mail.counts.sent);
  counter(registers, 'basalt_mails_failed_total', 'Mails given up on: refused for good (5xx) or still failing 24 hours after they were written', () => mail.counts.failed);
  let backlog: Promise<{ queued: number; oldestSeconds: number }> | null = null;
  // One read per scrape for both gauges.
  const read = () => (backlog ??= mail.backlog().finally(() => setTimeout(() => (backlog = null), 100)));
  new Gauge({
    name: 'basalt_mails_queued',
    help: 'Mails in the outbox waiting to be sent (SMTP configured)',
    aggregator: 'max',
    registers,
    async collect() {
      this.set((await read()).queued);
    },
  });
  new Gauge({
    name: 'basalt_mails_oldest_queued_seconds',
    help: 'Age of the oldest mail waiting to be sent (0 when none)',
    aggregator: 'max',
    registers,
    async collect() {
      this.set((await read()).oldestSeconds);
    },
  });
}

/** Webhooks: outcomes of this process's attempts; the queue, its oldest and how far the enqueuer lags the log (max over workers). */
function webhookMetrics(registers: Registry[], webhooks: NonNullable<MetricSources['webhooks']>): void {
  const OUTCOMES = ['delivered', 'failed', 'dead'] as const;
  const counted = { delivered: 0, failed: 0, dead: 0 };
  new Counter({
    name: 'basalt_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered (a 2xx), failed (tried again later), dead (given up after 24 hours)',
    labelNames: ['outcome'],
    registers,
    collect() {
      for (const outcome of OUTCOMES) {
        const total = webhooks.counts[outcome];
        this.inc({ outcome }, total - counted[outcome]);
        counted[outcome] = total;
      }
    },
  });
  let backlog: ReturnType<typeof webhooks.backlog> | null = null;
  const read = () => (backlog ??= webhooks.backlog().finally(() => setTimeout(() => (backlog = null), 100)));
  const queueGauge = (name: string, help: string, pick: (value: Awaited<ReturnType<typeof webhooks.backlog>>) => number) =>
    new Gauge({
      name,
      help,
      aggregator: 'max',
      registers,
      async collect() {
        this.set(pick(await read()));
      },
    });
  queueGauge('basalt_webhook_queue_depth', 'Webhook deliveries waiting: pending or failed and to be tried again', (value) => value.queued);
  queueGauge('basalt_webhook_oldest_pending_seconds', 'Age of the oldest webhook delivery waiting (0 when none)', (value) => value.oldestSeconds);
  queueGauge('basalt_webhook_log_behind_seconds', 'Age of the oldest change the webhooks have not queued yet: the change log is kept from there on (0 when none)', (value) => value.logBehindSeconds);
}

export type MetricsPart = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** The workers' metrics summed (prom-client's aggregation, by each metric's aggregator), plus the missing count. */
export function combineMetrics(parts: MetricsPart[], missing: number): Promise<string> {
  const missingWorkers = { name: SCRAPE_WORKERS, help: SCRAPE_WORKERS_HELP, type: 'gauge', aggregator: 'sum', values: [{ labels: { state: 'missing' }, value: missing }] };
  return AggregatorRegistry.aggregate([...parts, [missingWorkers]]).metrics();
}

