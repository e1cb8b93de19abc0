import { OVERVIEW_BUCKET_SECONDS, OVERVIEW_WINDOW_SECONDS, type Overview, type OverviewPoint, type StandbyStatus } from '@basalt/contract';

/**
 * The owner's overview of recent traffic: each process counts its responses in 10 s buckets over the last hour, in a
 * ring of typed arrays (nothing allocated per request). Latency goes into fixed-boundary histograms, so the buckets
 * of several workers can be summed before a percentile is read from them.
 */

const BUCKET_MS = OVERVIEW_BUCKET_SECONDS * 1000;
const SLOTS = OVERVIEW_WINDOW_SECONDS / OVERVIEW_BUCKET_SECONDS;

/** Upper bounds (ms) of the latency histogram; slower responses fall into one more, open-ended cell. */
export const LATENCY_BOUNDS_MS = [1, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, 30000, 60000];

/** Where each count sits in a bucket's cells. */
const REQUESTS = 0;
const CLIENT_ERRORS = 1;
const SERVER_ERRORS = 2;
const SIGN_INS = 3;
const SIGN_IN_FAILURES = 4;
/** The slowest response of the bucket: the answer when the 99th percentile falls past the last bound. */
const MAX_MS = 5;
const HISTOGRAM = 6;
const WIDTH = HISTOGRAM + LATENCY_BOUNDS_MS.length + 1;

/** What a sign-in response means for the overview: none (another route), accepted, or refused (401, 429). */
export type SignIn = 0 | 1 | 2;
export const NOT_SIGN_IN = 0;
export const SIGN_IN_ACCEPTED = 1;
export const SIGN_IN_REFUSED = 2;

/** One process's non-empty buckets: [bucket number (ms since the epoch / BUCKET_MS), ...cells]. */
export interface TrafficPart {
  buckets: number[][];
  /** The process's read replicas as it sees them (DATABASE_REPLICA_URLS), combined over the workers. */
  replicas?: NonNullable<Overview['replicas']>;
}

export class TrafficRing {
  private readonly stamps = new Float64Array(SLOTS).fill(-1);
  private readonly cells = new Float64Array(SLOTS * WIDTH);

  /** One finished response; `durationMs` < 0 when it has no meaningful duration (an event stream that ended). */
  record(status: number, durationMs: number, signIn: SignIn, now = Date.now()): void {
    const bucket = Math.floor(now / BUCKET_MS);
    const slot = bucket % SLOTS;
    const base = slot * WIDTH;
    const cells = this.cells;
    if (this.stamps[slot] !== bucket) {
      cells.fill(0, base, base + WIDTH);
      this.stamps[slot] = bucket;
    }
    cells[base + REQUESTS]! += 1;
    if (status >= 500) cells[base + SERVER_ERRORS]! += 1;
    else if (status >= 400) cells[base + CLIENT_ERRORS]! += 1;
    if (signIn === SIGN_IN_ACCEPTED) cells[base + SIGN_INS]! += 1;
    else if (signIn === SIGN_IN_REFUSED) cells[base + SIGN_IN_FAILURES]! += 1;
    if (durationMs < 0) return;
    if (durationMs > cells[base + MAX_MS]!) cells[base + MAX_MS] = durationMs;
    let cell = 0;
    while (cell < LATENCY_BOUNDS_MS.length && durationMs > LATENCY_BOUNDS_MS[cell]!) cell++;
    cells[base + HISTOGRAM + cell]! += 1;
  }

  /** The buckets of the last hour that saw a response, for summing with other processes' (plain JSON for IPC). */
  snapshot(now = Date.now()): TrafficPart {
    const newest = Math.floor(now / BUCKET_MS);
    const buckets: number[][] = [];
    for (let slot = 0; slot < SLOTS; slot++) {
      const bucket = this.stamps[slot]!;
      if (bucket <= newest - SLOTS || bucket > newest) continue;
      buckets.push([bucket, ...this.cells.subarray(slot * WIDTH, (slot + 1) * WIDTH)]);
    }
    return { buckets };
  }
}

/** The smallest bound under which 99% of the bucket's timed responses fall; past the last bound, the slowest one. */
function p99Of(cells: Float64Array): number | null {
  let timed = 0;
  for (let cell = 0; cell <= LATENCY_BOUNDS_MS.length; cell++) timed += cells[HISTOGRAM + cell]!;
  if (timed === 0) return null;
  const wanted = Math.ceil(timed * 0.99);
  let seen = 0;
  for (let cell = 0; cell < LATENCY_BOUNDS_MS.length; cell++) {
    seen += cells[HISTOGRAM + cell]!;
    if (seen >= wanted) return LATENCY_BOUNDS_MS[cell]!;
  }
  return Math.round(cells[MAX_MS]! * 10) / 10;
}

/** Sums the parts of every worker into the last hour's points, oldest first, empty buckets as zeros. */
export function combineTraffic(parts: TrafficPart[], now = Date.now()): Overview {
  const newest = Math.floor(now / BUCKET_MS);
  const oldest = newest - SLOTS + 1;
  const sums = new Float64Array(SLOTS * WIDTH);
  for (const part of parts) {
    for (const [bucket, ...values] of part.buckets) {
      if (bucket === undefined || bucket < oldest || bucket > newest) continue;
      const base = (bucket - oldest) * WIDTH;
      values.forEach((value, cell) => {
        if (cell === MAX_MS) sums[base + cell] = Math.max(sums[base + cell]!, value);
        else sums[base + cell]! += value;
      });
    }
  }
  const points: OverviewPoint[] = [];
  for (let index = 0; index < SLOTS; index++) {
    const cells = sums.subarray(index * WIDTH, (index + 1) * WIDTH);
    points.push({
      at: new Date((oldest + index) * BUCKET_MS).toISOString(),
      requests: cells[REQUESTS]!,
      clientErrors: cells[CLIENT_ERRORS]!,
      serverErrors: cells[SERVER_ERRORS]!,
      p99Ms: p99Of(cells),
      signIns: cells[SIGN_INS]!,
      signInFailures: cells[SIGN_IN_FAILURES]!,
    });
  }
  const replicas = combineReplicas(parts.flatMap((part) => (part.replicas ? [part.replicas] : [])));
  return { bucketSeconds: OVERVIEW_BUCKET_SECONDS, workers: parts.length, points, ...(replicas ? { replicas } : {}) };
}

/** Each standby over the workers: in use only if every process uses it, the largest lag, the reads summed. */
function combineReplicas(parts: Array<NonNullable<Overview['replicas']>>): Overview['replicas'] {
  if (parts.length === 0) return undefined;
  const standbys = new Map<string, StandbyStatus>();
  for (const part of parts) {
    for (const standby of part.standbys) {
      const seen = standbys.get(standby.name);
      standbys.set(standby.name, seen ? { name: standby.name, inUse: seen.inUse && standby.inUse, lagSeconds: Math.max(seen.lagSeconds, standby.lagSeconds), reads: seen.reads + standby.reads } : { ...standby });
    }
  }
  return { standbys: [...standbys.values()], primaryFallbacks: parts.reduce((sum, part) => sum + part.primaryFallbacks, 0) };
}
