import type { LoadResult } from './load.js';

/** What every run records, and the medians and paired ratios the report and the targets are made of. */

export const SERVERS = ['baseline', 'basalt-1', 'basalt-2'] as const;
export type ServerName = (typeof SERVERS)[number];
export const SERVER_LABELS: Record<ServerName, string> = {
  baseline: 'baseline (node:http + pg)',
  'basalt-1': 'Basalt WORKERS=1',
  'basalt-2': 'Basalt WORKERS=2',
};
export const BASALTS = ['basalt-1', 'basalt-2'] as const;
/** The scenario that runs sign-ins and R2 at once, to see what bcrypt does to everyone else's latency. */
export const CONCURRENT = 'A1+R2';
/** Sign-in with the second step (issue 27, bench/mfa.ts): password, then a TOTP code; Basalt only, against its own A1. */
export const A1M = 'A1M';
/**
 * Files (issue 28, bench/files.ts): F1 a small file of a public bucket, F2 20 large uploads then their downloads (its
 * numbers in `transfer`), F3 a cached image variant (Basalt only, against its own F1).
 */
export const F1 = 'F1';
export const F2 = 'F2';
export const F3 = 'F3';
export const FILE_SCENARIOS: readonly string[] = [F1, F2, F3];

/** One F2 run: uploads, then their downloads, and what the server's processes held meanwhile (MiB). */
export interface Transfer {
  files: number;
  bytesEach: number;
  uploadS: number;
  downloadS: number;
  /** Both ways: bytes uploaded plus bytes downloaded, over the two phases' time. */
  mibPerS: number;
  uploadMibPerS: number;
  downloadMibPerS: number;
  /** Resident memory of the server's process tree just before the uploads. */
  rssBeforeMiB: number;
  /** The largest growth of any one process of the tree over its RSS before: at its peak during the run, and at its end. */
  rssPeakGrowthMiB: number;
  rssEndGrowthMiB: number;
  processes: number;
}

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
  /**
   * A1M only: `load` counts completed sign-ins (both requests 2xx), its latencies from the first request's start to the
   * second's answer; here the HTTP requests answered, the second step's own latency, the waits for an account whose
   * code had not been used in the current 30 s step (the pool ran dry: the run is invalid), the load generator's CPU.
   */
  flow?: { requests: number; secondP50: number; secondP99: number; poolWaits: number; clientCpuMs: number };
  /** F2 only: its throughput and memory; `load` counts its HTTP requests (uploads and downloads). */
  transfer?: Transfer;
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
  extraP50?: number;
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
  /** Issue 28: the F3 photo and its first transforms (bench/files.ts), when the file scenarios ran. */
  files?: FilesMeta;
}

/** The photo F3 transforms, and the first transform of each copy, per Basalt server (ms, request to last byte). */
export interface FilesMeta {
  photo: { width: number; height: number; bytes: number };
  /** The variant F3 serves, as the first check read it. */
  variant?: { width: number; height: number; bytes: number };
  firstTransformMs: Partial<Record<ServerName, number[]>>;
  /** The same variants asked again (cached), ms. */
  cachedMs: Partial<Record<ServerName, number[]>>;
  /** The largest growth of one server process's RSS while it made its first transforms, MiB. */
  transformRssGrowthMiB: Partial<Record<ServerName, number>>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const requestsOf = (r: RunRecord) => r.load.responses + (r.extra?.responses ?? 0);

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
    ...(valid[0]!.extra ? { extraRps: median(valid.map((r) => r.extra!.rps)), extraP50: median(valid.map((r) => r.extra!.p50)), extraP99: median(valid.map((r) => r.extra!.p99)) } : {}),
  };
}

export type Pick = (r: RunRecord) => number;
export const RPS: Pick = (r) => r.load.rps;
export const P99: Pick = (r) => r.load.p99;
export const CPU: Pick = (r) => r.serverCpuMs / requestsOf(r);

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

