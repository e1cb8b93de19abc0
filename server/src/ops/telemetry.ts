import cluster from 'node:cluster';
import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Overview } from '@basalt/contract';
import type { PasswordHasher } from '../auth/passwords.js';
import type { SchemaCache } from '../db/schemaCache.js';
import type { Hub } from '../realtime/hub.js';
import type { Replicas } from '../replicas/router.js';
import { answerPrimary, gatherFromPrimary, type GatherKind } from './gather.js';
import { ProcessMetrics, type MetricSources, type SignInOutcome } from './metrics.js';
import { RouteLabeler } from './routeLabel.js';
import { combineTraffic, NOT_SIGN_IN, SIGN_IN_ACCEPTED, SIGN_IN_REFUSED, TrafficRing, type SignIn, type TrafficPart } from './traffic.js';

export interface TelemetryDeps {
  knex: Knex;
  pool: pg.Pool;
  cache: SchemaCache;
  passwords: PasswordHasher;
  hub: Hub;
  /** The read replicas (DATABASE_REPLICA_URLS), or null. */
  replicas?: Replicas | null;
  /** The outbox's numbers (auth/email). */
  mail?: MetricSources['mail'];
  /** The webhooks' queue (webhooks/). */
  webhooks?: MetricSources['webhooks'];
  /** METRICS_TOKEN: unset, no Prometheus metrics are kept (the overview's counts always are). */
  metricsToken?: string;
}

const SIGN_IN_ROUTE = '/auth/signin';
/** /ready's and /health's database check gives up after this long: a probe must answer well within its own timeout. */
const READY_TIMEOUT_MS = 2_000;

function signInOutcome(status: number): SignInOutcome {
  if (status < 300) return 'success';
  if (status === 401) return 'refused';
  if (status === 429) return 'rate_limited';
  return status < 500 ? 'invalid' : 'error';
}

/** What each outcome shows on the overview's sign-in chart: accepted, refused (401, 429), or not counted. */
const SIGN_IN_OVERVIEW: Record<SignInOutcome, SignIn> = {
  success: SIGN_IN_ACCEPTED,
  refused: SIGN_IN_REFUSED,
  rate_limited: SIGN_IN_REFUSED,
  invalid: NOT_SIGN_IN,
  error: NOT_SIGN_IN,
};

/** A response that stayed open as an event stream: its duration is the stream's life, not a response time. */
function isEventStream(res: Response): boolean {
  const type = res.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/**
 * What one process knows about itself for operators: the overview's traffic ring, the Prometheus metrics (when
 * METRICS_TOKEN is set), readiness. Fed by one hook per finished response; with WORKERS=N, `overview()` and
 * `metricsText()` answer for every worker through the primary (ops/gather.ts).
 */
export class Telemetry {
  readonly traffic = new TrafficRing();
  readonly metrics: ProcessMetrics | null;
  readonly metricsToken: string | undefined;
  private readonly labeler: RouteLabeler;
  private stopping = false;

  constructor(private readonly deps: TelemetryDeps) {
    this.metricsToken = deps.metricsToken || undefined;
    this.labeler = new RouteLabeler(deps.cache);
    this.metrics = this.metricsToken
      ? new ProcessMetrics({
          pool: deps.pool,
          schemaLoads: () => deps.cache.loadCount,
          passwordJobs: () => deps.passwords.load(),
          realtimeStreams: () => deps.hub.size,
          realtimeUndeliverable: () => deps.hub.undeliverable,
          replicas: deps.replicas ?? null,
          ...(deps.mail ? { mail: deps.mail } : {}),
          ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
        })
      : null;
  }

  /** The per-request hook: called by the request frame when a response has finished. */
  readonly observe = (req: Request, res: Response, durationMs: number): void => {
    const route = this.labeler.label(req);
    const status = res.statusCode;
    // Only a long response can be a stream; the header is not looked up on every request.
    const timedMs = durationMs > 1_000 && isEventStream(res) ? -1 : durationMs;
    let signIn: SignIn = NOT_SIGN_IN;
    if (route === SIGN_IN_ROUTE && req.method === 'POST') {
      const outcome = signInOutcome(status);
      signIn = SIGN_IN_OVERVIEW[outcome];
      this.metrics?.signIn(outcome);
    }
    this.traffic.record(status, timedMs, signIn);
    this.metrics?.observe(req.method, route, status, timedMs < 0 ? -1 : timedMs / 1_000);
  };

  get metricsContentType(): string {
    return this.metrics?.registry.contentType ?? 'text/plain';
  }

  /** The Prometheus text of the process group (of this process alone outside a cluster). */
  async metricsText(): Promise<string> {
    if (cluster.isWorker) return (await gatherFromPrimary('metrics')) as string;
    // Mounted only with METRICS_TOKEN set, which is when metrics are kept.
    return this.metrics!.text();
  }

  /** The last hour of the process group's traffic. */
  async overview(): Promise<Overview> {
    if (cluster.isWorker) return (await gatherFromPrimary('traffic')) as Overview;
    return combineTraffic([this.trafficPart()]);
  }

  /** This process's traffic ring, and its read replicas as it sees them. */
  private trafficPart(): TrafficPart {
    const part = this.traffic.snapshot();
    const { replicas } = this.deps;
    if (!replicas) return part;
    const standbys = replicas.report().map(({ name, inUse, lagSeconds, served }) => ({ name, inUse, lagSeconds, reads: served }));
    return { ...part, replicas: { standbys, primaryFallbacks: replicas.primaryFallbacks } };
  }

  /** This process's own numbers, for the primary to combine. */
  async collect(kind: GatherKind): Promise<unknown> {
    if (kind === 'traffic') return this.trafficPart();
    return this.metrics ? this.metrics.registry.getMetricsAsJSON() : [];
  }

  /** In a cluster worker: answer the primary's requests for this process's numbers. Returns how to stop. */
  answerPrimary(): () => void {
    return answerPrimary((kind) => this.collect(kind));
  }

  /** The service can serve: the schema is loaded, the process is not stopping and the database answers in time. */
  async ready(): Promise<boolean> {
    if (this.stopping || this.deps.cache.loadCount === 0) return false;
    return this.databaseAnswers();
  }

  /** With read replicas: how many are configured and how many reads may go to now (per-standby lag is in /metrics). */
  replicaCounts(): { configured: number; inUse: number } | undefined {
    const { replicas } = this.deps;
    return replicas ? { configured: replicas.standbys.length, inUse: replicas.inUse().length } : undefined;
  }

  /** `SELECT 1` answered within READY_TIMEOUT_MS (a probe must answer well within its own timeout). */
  async databaseAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)));
    const answered = Promise.resolve(this.deps.knex.raw('SELECT 1')).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([answered, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A stopping process is no longer ready: load balancers stop sending it requests while it drains. */
  markStopping(): void {
    this.stopping = true;
  }
}
