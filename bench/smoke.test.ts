import { expect, test } from 'vitest';
import { testAdminUrl } from '../test-support/postgres.js';
import { parseOptions } from './options.js';
import { runBench } from './run.js';
import { CONCURRENT, SERVERS } from './report.js';
import { A1M, BASALTS, F1, F2, F3 } from './stats.js';
import { MAIN_SCENARIOS } from './queryScenarios.js';
import { parseRealtimeOptions, parseRulesRealtimeOptions, runRealtimeBench } from './realtime.js';
import { runRulesRealtimeBench } from './realtimeRules.js';
import { parseReplicaOptions, runReplicaBench } from './replicas.js';
import { parseEmailOptions, runEmailBench } from './email.js';
import { parseWebhookOptions, runWebhookBench } from './webhooks.js';

// The benchmark itself is not part of npm test; this smoke run of it is: one short round at a gentle rate, on the
// test Postgres, checking that every scenario answers 2xx with the right shape on Basalt (1 and 2 workers) and on the
// baseline. npm test builds the server before the unit tests run, so the benchmark does not build it again.
test('npm run bench -- --smoke passes on every server and scenario', async () => {
  const outcome = await runBench({ ...parseOptions(['--smoke']), databaseUrl: testAdminUrl(), build: false });
  expect(outcome.problems).toEqual([]);
  expect(outcome.ok).toBe(true);
  for (const server of SERVERS) {
    for (const scenario of [...MAIN_SCENARIOS.map((s) => s.name), CONCURRENT]) {
      const runs = outcome.records.filter((r) => r.server === server && r.scenario === scenario);
      expect(runs.length, `${scenario} on ${server}`).toBe(1);
      expect(runs[0]!.load.responses, `${scenario} on ${server}`).toBeGreaterThan(0);
    }
  }
  // A1M (issue 27): sign-ins with the second step, on Basalt only (the baseline has no second factor).
  for (const server of BASALTS) {
    const runs = outcome.records.filter((r) => r.server === server && r.scenario === A1M);
    expect(runs.length, `${A1M} on ${server}`).toBe(1);
    expect(runs[0]!.load.responses, `${A1M} on ${server}`).toBeGreaterThan(0);
    expect(runs[0]!.flow?.poolWaits, `${A1M} on ${server}`).toBe(0);
  }
  expect(outcome.records.some((r) => r.server === 'baseline' && r.scenario === A1M)).toBe(false);
  // Files (issue 28): F1 and F2 on every server, F3 (a cached variant) on Basalt only; F2 moved every byte both ways.
  for (const [scenario, servers] of [[F1, SERVERS], [F2, SERVERS], [F3, BASALTS]] as const) {
    for (const server of servers) {
      const runs = outcome.records.filter((r) => r.server === server && r.scenario === scenario);
      expect(runs.length, `${scenario} on ${server}`).toBe(1);
      expect(runs[0]!.load.responses, `${scenario} on ${server}`).toBeGreaterThan(0);
    }
  }
  for (const r of outcome.records.filter((record) => record.scenario === F2)) expect(r.load.responses, `F2 on ${r.server}`).toBe(2 * r.transfer!.files);
  expect(outcome.records.some((r) => r.server === 'baseline' && r.scenario === F3)).toBe(false);
  // Production logging is part of what the benchmark measures: it must have been on.
  expect(outcome.requestLogLines['basalt-1']).toBeGreaterThan(0);
  expect(outcome.requestLogLines['basalt-2']).toBeGreaterThan(0);
  // About 2.5 minutes with R8, R9, W3 and A1M (its accounts' enrolment included) and the files' setup (a 12-megapixel
  // photo made and transformed) on a busy machine: room above that.
}, 300_000);

// RT1's smoke run: 20 streams on one process, 50 writes a second for 2 s; every delivery must arrive, once.
test('npm run bench:realtime -- --smoke delivers every event once', async () => {
  const outcome = await runRealtimeBench({ ...parseRealtimeOptions(['--smoke']), databaseUrl: testAdminUrl() });
  expect(outcome.problems).toEqual([]);
  expect(outcome.writes).toBeGreaterThan(50);
  expect(outcome.delivered).toBe(outcome.expected);
}, 60_000);

// RT2's smoke run: 20 member streams under a membership rule (4 projects, 10 members each), 50 writes a second for
// 2 s; every change must reach exactly the members of its project, once.
test('npm run bench:realtime -- --smoke delivers each change under a rule to exactly its members', async () => {
  const outcome = await runRulesRealtimeBench({ ...parseRulesRealtimeOptions(['--smoke']), databaseUrl: testAdminUrl() });
  expect(outcome.problems).toEqual([]);
  expect(outcome.writes).toBeGreaterThan(50);
  expect([outcome.missed, outcome.extra]).toEqual([0, 0]);
  expect(outcome.delivered).toBe(outcome.expected);
}, 60_000);

// S1's smoke run (issue 25): a primary and a hot standby of its own, 200 write-then-read pairs by 4 callers: none
// stale, the standby serving reads; R2 routed to it, and R1-R3/W1 through PgBouncer when one is on PATH.
test('npm run bench:replicas -- --smoke reads every write back, from the standby', async () => {
  const outcome = await runReplicaBench(parseReplicaOptions(['--smoke']));
  expect(outcome.problems).toEqual([]);
  expect(outcome.s1).toMatchObject({ pairs: 200, stale: 0, failed: 0 });
  expect(outcome.s1!.fromStandby).toBeGreaterThan(0);
  expect(outcome.r2Ratio).toBeGreaterThan(0);
}, 120_000);

// E1's smoke run (issue 26): 30 recoveries at 30/s in each pass (alone, beside R2, beside A1), sent through the outbox
// to an SMTP catcher: every mail accepted, none twice.
test('npm run bench:email -- --smoke sends every recovery mail once', async () => {
  const outcome = await runEmailBench({ ...parseEmailOptions(['--smoke']), databaseUrl: testAdminUrl(), build: false });
  expect(outcome.problems).toEqual([]);
  expect(outcome.passes.map((pass) => [pass.name, pass.answered, pass.accepted, pass.duplicates])).toEqual([
    ['alone', 30, 30, 0],
    ['R2', 30, 30, 0],
    ['A1', 30, 30, 0],
  ]);
  expect(outcome.alone.R2!.responses).toBeGreaterThan(0);
  expect(outcome.alone.A1!.responses).toBeGreaterThan(0);
}, 90_000);

// The webhooks' smoke run (issue 29): one Basalt process with a webhook on my_items, 50 writes a second for 4 s to a
// receiver on loopback, twice (the second time it answers 503 from 1 s to 3 s); then one round of W1, W2 and B1 on
// the baseline and on Basalt: every change delivered, a sample of signatures right.
test('npm run bench:webhooks -- --smoke delivers every change, after an outage too', async () => {
  const outcome = await runWebhookBench({ ...parseWebhookOptions(['--smoke']), databaseUrl: testAdminUrl(), build: false });
  expect(outcome.problems).toEqual([]);
  expect(outcome.passes.map((pass) => [pass.name, pass.answered, pass.drain.delivered, pass.rows])).toEqual([
    ['clean', 200, 200, 200],
    ['outage', 200, 200, 200],
  ]);
  expect(outcome.passes[1]!.refused).toBeGreaterThan(0);
  for (const scenario of ['W1', 'W2', 'B1']) {
    for (const server of ['baseline', 'basalt-1']) {
      const runs = outcome.records.filter((r) => r.server === server && r.scenario === scenario);
      expect(runs.length, `${scenario} on ${server}`).toBe(1);
      expect(runs[0]!.load.responses, `${scenario} on ${server}`).toBeGreaterThan(0);
    }
  }
  expect(outcome.drains.map((run) => [run.scenario, run.drain.complete])).toEqual([['W1', true], ['W2', true], ['B1', true]]);
  expect(outcome.signatures.verified).toBeGreaterThan(0);
}, 150_000);
