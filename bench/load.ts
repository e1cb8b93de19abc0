import autocannon from 'autocannon';
import type { HttpRequest } from './scenarios.js';

export interface LoadOptions {
  connections: number;
  durationS: number;
  /** Requests per second over all connections (the smoke run stays gentle beside other tests); 0: flat out. */
  overallRate?: number;
  /** Stop after this many requests instead of after the duration. */
  amount?: number;
}

export interface LoadResult {
  responses: number;
  durationS: number;
  rps: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole milliseconds). */
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Every response's time, sorted; kept until slices of one run are merged (`mergeLoads`), then dropped. */
  latencies?: Float64Array;
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/**
 * Keep-alive connections sending `next()`'s requests back to back for the duration (autocannon, in this process).
 * A connection's request is built just before it is sent, so ids are random per request.
 */
export async function runLoad(url: string, next: () => HttpRequest, options: LoadOptions): Promise<LoadResult> {
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.durationS,
    // Sign-ins queue behind bcrypt (about 75 ms of CPU each): generous, so slowness shows as latency, not as errors.
    timeout: 30,
    // autocannon refuses overallRate 0: leave it out to mean flat out.
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    ...(options.amount ? { amount: options.amount } : {}),
    requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
  });
  let latencies = new Float64Array(1 << 14);
  let count = 0;
  const statuses: Record<string, number> = {};
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTimeMs;
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  const sorted = latencies.slice(0, count).sort();
  return {
    responses: count,
    durationS: result.duration,
    rps: count / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    latencies: sorted,
  };
}

/** One result from the slices of a run: responses and time added up, percentiles over every response of them all. */
export function mergeLoads(slices: LoadResult[]): LoadResult {
  const responses = slices.reduce((sum, slice) => sum + slice.responses, 0);
  const durationS = slices.reduce((sum, slice) => sum + slice.durationS, 0);
  const all = new Float64Array(responses);
  let at = 0;
  for (const slice of slices) {
    if (!slice.latencies) throw new Error('mergeLoads needs the latencies of every slice');
    all.set(slice.latencies, at);
    at += slice.latencies.length;
  }
  all.sort();
  const statuses: Record<string, number> = {};
  for (const slice of slices) for (const [status, n] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return {
    responses,
    durationS,
    rps: responses / durationS,
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    statuses,
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
    timeouts: slices.reduce((sum, slice) => sum + slice.timeouts, 0),
  };
}

/**
 * Anything but 2xx, a socket error or a timeout makes a run invalid; so does silence, unless `allowSilence` (the
 * sign-in side of A1+R2, where a server that starves sign-ins during a read flood is a finding, not a broken run).
 */
export function loadProblems(result: LoadResult, allowSilence = false): string[] {
  const problems: string[] = [];
  const bad = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'));
  if (bad.length) problems.push(`non-2xx responses: ${bad.map(([status, n]) => `${n} x ${status}`).join(', ')}`);
  if (result.errors) problems.push(`${result.errors} connection errors`);
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`);
  if (result.responses === 0 && !allowSilence) problems.push('no response at all');
  return problems;
}
