/**
 * How `npm run bench` measures (bench/run.ts drives it): one stretch of load on one server with the CPU it cost
 * (`sampleLoads`), servers in turn with whole runs (`measureInTurn`) or taking turns slice by slice (`measureInSlices`),
 * and the rounds of a part (`runRounds`), each run recorded with its problems.
 */
import { settle, treeCpuMs, type BenchDatabase, type ServerProcess } from './processes.js';
import { loadProblems, mergeLoads, runLoad, type LoadOptions, type LoadResult } from './load.js';
import { A1, R2, type BenchProject, type HttpRequest, type Scenario } from './scenarios.js';
import { a2Problems, abuseLoads, ABUSE, attackerAddress } from './abuse.js';
import { DEEP_PAIR, TOTAL_PAIRS } from './queryScenarios.js';
import { CONCURRENT, describeRun, SERVERS, type RunRecord, type ServerName } from './report.js';
import type { BenchOptions } from './options.js';

export interface Bench {
  options: BenchOptions;
  db: BenchDatabase;
  project: BenchProject;
  servers: Record<ServerName, ServerProcess>;
  records: RunRecord[];
  problems: string[];
  /** Problems found by the check requests, per "server scenario": they make that pair's runs invalid. */
  failedChecks: Map<string, string>;
  logLines: Record<string, number>;
  /**
   * A1M (bench/mfa.ts), when selected: its runs of one round on the Basalt servers, measured right after A1's (or at
   * the end of the round's scenarios when A1 is not run), so its ratio to A1 pairs runs minutes apart at most.
   */
  secondStep?: (order: ServerName[], round: number) => Promise<RunRecord[]>;
  /** F2 (bench/fileTransfers.ts), when selected: its runs of one round; all rounds at the end (runTransfers). */
  transfers?: (order: ServerName[], round: number) => Promise<RunRecord[]>;
}

export function loadOptions(bench: Bench, scenarios: Scenario[]): LoadOptions {
  // A scenario alone may ask for a longer run (sign-ins: see scenarios.ts); beside another it keeps the common length.
  const factor = scenarios.length === 1 ? (scenarios[0]!.durationFactor ?? 1) : 1;
  // And may ask for fewer connections (AG1), never more than the run's.
  const connections = Math.min(bench.options.connections, (scenarios.length === 1 ? scenarios[0]!.connections : undefined) ?? Infinity);
  return { connections, durationS: Math.ceil(bench.options.durationS * factor), overallRate: bench.options.overallRate };
}

/** One stretch of load on one server, with the CPU its process tree and Postgres spent meanwhile. */
export interface Sample {
  load: LoadResult;
  extra?: LoadResult;
  serverCpuMs: number;
  dbCpuMs: number | null;
  /** What the load itself found wrong beyond statuses and errors (A1M: a pool that ran dry, a shape). */
  problems?: string[];
  flow?: RunRecord['flow'];
  transfer?: RunRecord['transfer'];
}

async function sample(bench: Bench, name: ServerName, label: string, scenarios: Scenario[], options: LoadOptions, settleFirst = true): Promise<Sample> {
  return sampleLoads(bench, name, label, scenarios.map((scenario) => ({ next: () => scenario.next(bench.project), options })), settleFirst);
}

/** Loads at once on one server, each with its own requests and options: the first is the run, a second its `extra`. */
async function sampleLoads(bench: Bench, name: ServerName, label: string, loads: Array<{ next: () => HttpRequest; options: LoadOptions }>, settleFirst = true): Promise<Sample> {
  return sampleRun(
    bench,
    name,
    label,
    async (url) => {
      const [load, extra] = await Promise.all(loads.map((load) => runLoad(url, load.next, load.options)));
      return { load: load!, ...(extra ? { extra } : {}) };
    },
    settleFirst,
  );
}

/** What a load run answers: its result (and a second load's), with what it found wrong and its own details. */
export type LoadRun = Pick<Sample, 'load' | 'extra' | 'problems' | 'flow' | 'transfer'>;

/** One run of any load on one server (`run` is given the server's URL), with the CPU it cost and the log it wrote. */
export async function sampleRun(bench: Bench, name: ServerName, label: string, run: (url: string) => Promise<LoadRun>, settleFirst = true): Promise<Sample> {
  const server = bench.servers[name];
  // Postgres too: a slow run's statements (a count of a million rows) go on after its load stops, and would weigh
  // on the next run, whichever server that is.
  // A part with one Basalt process (bench/webhooks.ts) names it twice: each process counted once.
  if (settleFirst) await settle([...new Set(SERVERS.map((other) => bench.servers[other].pid)), ...(bench.db.postmasterPid ? [bench.db.postmasterPid] : [])]);
  server.drainLog();
  const cpuBefore = treeCpuMs(server.pid);
  const dbBefore = bench.db.postmasterPid ? treeCpuMs(bench.db.postmasterPid) : null;
  const result = await run(server.url);
  const serverCpuMs = treeCpuMs(server.pid) - cpuBefore;
  const dbCpuMs = dbBefore === null ? null : treeCpuMs(bench.db.postmasterPid!) - dbBefore;
  const log = server.drainLog();
  bench.logLines[name] = (bench.logLines[name] ?? 0) + log.requestLines;
  for (const problem of log.problems) bench.problems.push(`log of ${name} during ${label}: ${problem}`);
  return { ...result, serverCpuMs, dbCpuMs };
}

/** The latencies were only needed for the percentiles: a run keeps its numbers, not every response time. */
function withoutLatencies({ latencies: _latencies, ...numbers }: LoadResult): LoadResult {
  return numbers;
}

export function record(bench: Bench, name: ServerName, label: string, phase: RunRecord['phase'], round: number, scenarios: Scenario[], run: Sample): RunRecord {
  const extraProblems = (extra: LoadResult) => (label === ABUSE ? a2Problems(extra) : loadProblems(extra, true).map((p) => `A1 side: ${p}`));
  const problems = [...loadProblems(run.load), ...(run.extra ? extraProblems(run.extra) : []), ...(run.problems ?? [])];
  for (const scenario of scenarios) {
    const failed = bench.failedChecks.get(`${name} ${scenario.name}`);
    if (failed) problems.push(`failed its check: ${failed}`);
  }
  const load = withoutLatencies(run.load);
  const extra = run.extra ? withoutLatencies(run.extra) : undefined;
  const result: RunRecord = {
    phase,
    rows: bench.project.rows,
    round,
    server: name,
    scenario: label,
    load,
    serverCpuMs: run.serverCpuMs,
    dbCpuMs: run.dbCpuMs,
    problems,
    ...(extra ? { extra } : {}),
    ...(run.flow ? { flow: run.flow } : {}),
    ...(run.transfer ? { transfer: run.transfer } : {}),
  };
  console.log(describeRun(result));
  if (problems.length) console.error(`!!! INVALID RUN (${phase} round ${round} ${label} on ${name}): ${problems.join('; ')}`);
  return result;
}

/** Each server in turn, one whole run each. */
async function measureInTurn(bench: Bench, servers: ServerName[], label: string, phase: RunRecord['phase'], round: number, scenarios: Scenario[]): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const name of servers) records.push(record(bench, name, label, phase, round, scenarios, await sample(bench, name, label, scenarios, loadOptions(bench, scenarios))));
  return records;
}

/** One side of a comparison measured in slices: a server, what it is asked, and the name its run is recorded under. */
interface Side {
  server: ServerName;
  scenario: Scenario;
  label: string;
}

/**
 * The sides take turns in slices of one run (A B C A B C ...), and each side's slices make its run: whatever else
 * slows the machine for a few seconds then falls on every side alike, instead of on whichever ran then. A side is
 * usually a server asked one scenario; it can also be two scenarios on one server, or another scenario per server.
 */
async function measureInSlices(bench: Bench, sides: Side[], phase: RunRecord['phase'], round: number): Promise<RunRecord[]> {
  const slices: Sample[][] = sides.map(() => []);
  const options = loadOptions(bench, [sides[0]!.scenario]);
  const sliceS = options.durationS / bench.options.slices;
  for (let slice = 0; slice < bench.options.slices; slice++) {
    // Only the first slice waits for the machine to go quiet (after sign-ins); a slice's reads and writes end with it.
    for (const [index, side] of sides.entries()) slices[index]!.push(await sample(bench, side.server, side.label, [side.scenario], { ...options, durationS: sliceS }, slice === 0));
  }
  return sides.map((side, index) => {
    const parts = slices[index]!;
    const dbCpu = parts.map((part) => part.dbCpuMs);
    const merged: Sample = {
      load: mergeLoads(parts.map((part) => part.load)),
      serverCpuMs: parts.reduce((sum, part) => sum + part.serverCpuMs, 0),
      dbCpuMs: dbCpu.includes(null) ? null : dbCpu.reduce((sum: number, ms) => sum + ms!, 0),
    };
    return record(bench, side.server, side.label, phase, round, [side.scenario], merged);
  });
}

/** Round r starts with a different server, so no server always runs first (or right after the same neighbour). */
export const rotated = (servers: readonly ServerName[], round: number): ServerName[] => servers.map((_, i) => servers[(i + round - 1) % servers.length]!);

export async function runRounds(bench: Bench, phase: RunRecord['phase'], scenarios: Scenario[], servers: readonly ServerName[], withConcurrent: boolean): Promise<void> {
  for (let round = 1; round <= bench.options.rounds; round++) {
    const order = rotated(servers, round);
    for (const scenario of scenarios) {
      // Sign-ins leave seconds of hashing queued when a run stops: they run whole, as do scenarios of slow requests
      // (Scenario.whole); the others in slices.
      const sliced = bench.options.slices > 1 && !scenario.durationFactor && !scenario.whole && scenario.name !== 'M1' && phase === 'main';
      const servers = scenario.basaltOnly ? order.filter((server) => server !== 'baseline') : order;
      const sides = servers.map((server) => ({ server, scenario, label: scenario.name }));
      bench.records.push(...(sliced ? await measureInSlices(bench, sides, phase, round) : await measureInTurn(bench, servers, scenario.name, phase, round, [scenario])));
      if (scenario === A1 && phase === 'main' && bench.secondStep) bench.records.push(...(await bench.secondStep(order, round)));
    }
    if (!scenarios.includes(A1) && phase === 'main' && bench.secondStep) bench.records.push(...(await bench.secondStep(order, round)));
    if (phase === 'growth') {
      // Issue 16's comparisons: Basalt's page with its total, the baseline's without, taking turns slice by slice.
      for (const pair of TOTAL_PAIRS) {
        const sides = order.map((server) => ({ server, scenario: server === 'baseline' ? pair.baseline : pair.basalt, label: pair.name }));
        bench.records.push(...(await measureInSlices(bench, sides, phase, round)));
      }
      // Issue 11's deep page against the first, on each server, the two taking turns slice by slice.
      // The pair's order alternates by round, as the servers' does.
      const deep = round % 2 ? DEEP_PAIR : [...DEEP_PAIR].reverse();
      for (const server of order) bench.records.push(...(await measureInSlices(bench, deep.map(([label, scenario]) => ({ server, scenario, label })), phase, round)));
    }
    if (!withConcurrent) continue;
    bench.records.push(...(await measureInTurn(bench, order, CONCURRENT, phase, round, [R2, A1])));
    bench.records.push(...(await measureAbuse(bench, order, round)));
  }
}

/**
 * F2's rounds, after every other scenario of the run (growth part included): its gigabytes through the disk evict the
 * tables' pages from the OS cache and leave writeback behind, which fell on whatever was measured next (the first
 * full runs: W1-W3 after each round's F2, T1 after all of them).
 */
export async function runTransfers(bench: Bench, servers: readonly ServerName[]): Promise<void> {
  if (!bench.transfers) return;
  for (let round = 1; round <= bench.options.rounds; round++) bench.records.push(...(await bench.transfers(rotated(servers, round), round)));
}

/** A1 while A2 guesses at another account from its own address (bench/abuse.ts); Basalt only. */
async function measureAbuse(bench: Bench, order: ServerName[], round: number): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const name of order.filter((server) => server !== 'baseline')) {
    const loads = abuseLoads(bench.project, loadOptions(bench, [A1]), attackerAddress(round, SERVERS.indexOf(name)));
    records.push(record(bench, name, ABUSE, 'main', round, [A1], await sampleLoads(bench, name, ABUSE, loads)));
  }
  return records;
}
