import { fmt, table } from './format.js';
import { A1M, BASALTS, median, pairedRatio, RPS, SERVER_LABELS, summarize, type RunRecord } from './stats.js';

/** A1M's part of the report (bench/mfa.ts measures it): its table beside A1, and its line on the terminal. */

type Flow = NonNullable<RunRecord['flow']>;

/** Issue 27: sign-ins with the second step beside A1 on the same server; Basalt only (the baseline has no second factor). */
export function secondStepTable(records: RunRecord[]): string {
  return table(
    ['Server', 'A1 sign-ins/s', 'A1M sign-ins/s', 'A1M / A1 (paired)', 'A1M p50 / p99 ms (both steps)', 'second step p50 / p99 ms', 'server CPU ms per sign-in, A1 / A1M', 'load generator CPU ms per A1M sign-in', 'pool waits per run'],
    BASALTS.map((server) => {
      const [a1, a1m] = ['A1', A1M].map((scenario) => summarize(records, 'main', scenario, server));
      const runs = records.filter((r) => r.phase === 'main' && r.scenario === A1M && r.server === server && r.flow);
      const valid = runs.filter((r) => r.problems.length === 0).map((r) => r.flow!);
      const mid = (pick: (flow: Flow) => number) => (valid.length ? median(valid.map(pick)) : null);
      return [
        SERVER_LABELS[server],
        fmt(a1?.rps, 1),
        fmt(a1m?.rps, 1),
        fmt(pairedRatio(records, 'main', [A1M, server], ['A1', server], RPS), 2),
        `${fmt(a1m?.p50, 0)} / ${fmt(a1m?.p99, 0)}`,
        `${fmt(mid((flow) => flow.secondP50), 1)} / ${fmt(mid((flow) => flow.secondP99), 1)}`,
        `${fmt(a1?.cpuPerRequest, 1)} / ${fmt(a1m?.cpuPerRequest, 1)}`,
        fmt(mid((flow) => flow.clientCpuMs), 2),
        runs.length ? runs.map((r) => r.flow!.poolWaits).join(' / ') : 'n/a',
      ];
    }),
  );
}

/** One A1M run on the terminal: completed sign-ins, not requests. */
export function describeFlow(r: RunRecord, signIns: number): string {
  const flow = r.flow!;
  const head = `round ${r.round} ${r.scenario.padEnd(5)} ${r.server.padEnd(8)}`;
  return (
    `${head} ${fmt(r.load.rps, 1).padStart(7)} sign-ins/s (${flow.requests} requests)  p50 ${fmt(r.load.p50, 0)} ms  p99 ${fmt(r.load.p99, 0)} ms  ` +
    `second step p50 ${fmt(flow.secondP50, 1)} ms  cpu ${fmt(r.serverCpuMs / signIns, 1)} ms/sign-in, load generator ${fmt(flow.clientCpuMs, 2)}; pool waits ${flow.poolWaits}`
  );
}
