import type { Overview, OverviewPoint } from '@basalt/contract';

/**
 * What the overview's charts draw and its summaries say, from the server's points (oldest first; the newest bucket is
 * the one still filling, so "last 10 s" reads the one before it). Pure, so the numbers are tested without a browser.
 */

export interface Series {
  label: string;
  /** One value per point; null where there is nothing to show (no requests in the bucket). */
  values: (number | null)[];
}

export interface ChartData {
  /** Start of each bucket, in seconds since the epoch (uPlot's time scale). */
  times: number[];
  series: Series[];
}

export interface OverviewCharts {
  requests: ChartData;
  errors: ChartData;
  latency: ChartData;
  signIns: ChartData;
}

export interface OverviewSummary {
  requests: { total: number; lastPerSecond: number; peakPerSecond: number };
  errors: { requests: number; client: number; server: number; clientShare: number | null; serverShare: number | null };
  latency: { lastMs: number | null; highestMs: number | null };
  signIns: { ok: number; failed: number };
}

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const percent = (value: number | null) => (value === null ? null : value * 100);
const sum = (points: OverviewPoint[], pick: (point: OverviewPoint) => number) => points.reduce((total, point) => total + pick(point), 0);

/** The last bucket that has ended: the newest one is still counting. */
function lastCompletePoint(points: OverviewPoint[]): OverviewPoint | undefined {
  return points.length > 1 ? points[points.length - 2] : points[0];
}

export function chartsOf(overview: Overview): OverviewCharts {
  const { points, bucketSeconds } = overview;
  const times = points.map((point) => Date.parse(point.at) / 1000);
  const column = (label: string, value: (point: OverviewPoint) => number | null): Series => ({ label, values: points.map(value) });
  return {
    requests: { times, series: [column('Requests/s', (point) => point.requests / bucketSeconds)] },
    errors: {
      times,
      series: [
        column('4xx %', (point) => percent(share(point.clientErrors, point.requests))),
        column('5xx %', (point) => percent(share(point.serverErrors, point.requests))),
      ],
    },
    latency: { times, series: [column('p99 ms', (point) => point.p99Ms)] },
    signIns: { times, series: [column('Succeeded', (point) => point.signIns), column('Failed', (point) => point.signInFailures)] },
  };
}

export function summaryOf(overview: Overview): OverviewSummary {
  const { points, bucketSeconds } = overview;
  const requests = sum(points, (point) => point.requests);
  const client = sum(points, (point) => point.clientErrors);
  const server = sum(points, (point) => point.serverErrors);
  const latencies = points.map((point) => point.p99Ms).filter((value): value is number => value !== null);
  const last = lastCompletePoint(points);
  return {
    requests: {
      total: requests,
      lastPerSecond: (last?.requests ?? 0) / bucketSeconds,
      peakPerSecond: Math.max(0, ...points.map((point) => point.requests)) / bucketSeconds,
    },
    errors: { requests, client, server, clientShare: share(client, requests), serverShare: share(server, requests) },
    latency: { lastMs: last?.p99Ms ?? null, highestMs: latencies.length > 0 ? Math.max(...latencies) : null },
    signIns: { ok: sum(points, (point) => point.signIns), failed: sum(points, (point) => point.signInFailures) },
  };
}

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

export function formatCount(value: number): string {
  return integer.format(value);
}

/** Requests per second: one decimal below 10 (a quiet project's 0.3/s is not 0), whole numbers above. */
export function formatRate(perSecond: number): string {
  return `${(perSecond < 10 ? oneDecimal : integer).format(perSecond)}/s`;
}

/** A share of requests as a percentage; a dash when there were none to share out. */
export function formatShare(value: number | null): string {
  if (value === null) return '–';
  if (value > 0 && value < 0.001) return '<0.1%';
  return `${oneDecimal.format(value * 100)}%`;
}

export function formatMs(value: number | null): string {
  if (value === null) return '–';
  return `${(value < 10 ? oneDecimal : integer).format(value)} ms`;
}

/** One row of the read replicas card: the standby, its state in words, its lag and the reads it served. */
export interface StandbyRow {
  name: string;
  state: 'in use' | 'skipped';
  lag: string;
  reads: string;
}

/** The read replicas card's rows (none without DATABASE_REPLICA_URLS), and the reads the primary took instead. */
export function replicasOf(overview: Overview): { rows: StandbyRow[]; primaryFallbacks: string } | null {
  if (!overview.replicas) return null;
  return {
    rows: overview.replicas.standbys.map((standby) => ({
      name: standby.name,
      state: standby.inUse ? 'in use' : 'skipped',
      lag: standby.lagSeconds < 1 ? formatMs(standby.lagSeconds * 1000) : `${(Math.round(standby.lagSeconds * 10) / 10).toLocaleString('en-US')} s`,
      reads: formatCount(standby.reads),
    })),
    primaryFallbacks: formatCount(overview.replicas.primaryFallbacks),
  };
}
