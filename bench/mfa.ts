/**
 * A1M (issue 27): sign-in with the second step. An account with TOTP on signs in with its password (POST /auth/signin
 * answers `{ mfaRequired, mfaToken }`, after the same bcrypt work as A1), then with its current code (POST
 * /auth/mfa/challenge answers the token pair, at aal 2). A completed sign-in is both answered 2xx; its rate must stay
 * >= 0.9 x A1's (one request) on the same server in the same round. Basalt only: the baseline has no second factor,
 * and the yardstick is Basalt's own password sign-in, so A1M needs no bare counterpart.
 *
 * The server accepts each 30 s step of an account once (a replay is refused, and a wrong code counts against the
 * sign-in limits), so the load cannot reuse one account's code: it signs in accounts of a pool, each at most once per
 * step, least recently used first (bench/mfaAccounts.ts: made by SQL, TOTP turned on through the API). A flow that
 * finds no account unused in the current step waits for the next step, and its run is invalid: the pool is too small
 * for the rate. Codes are computed per request (otplib, tens of µs); the load generator's CPU per sign-in (node:http
 * here, autocannon for A1) is reported beside the servers'.
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { loadOptions, record, sampleRun, type Bench, type LoadRun } from './measure.js';
import type { LoadOptions } from './load.js';
import { A1 } from './scenarios.js';
import { A1M, BASALTS, type RunRecord, type ServerName } from './stats.js';
import { percentile } from './streams.js';
import { AccountPool, check, codeAt, dataOf, enrolAccounts, post, sleep, takeStep, type Json, type MfaAccount } from './mfaAccounts.js';

/** Accounts in the pool: each signs in at most once per 30 s step, so this many allow up to ~100 sign-ins a second. */
export const A1M_ACCOUNTS = 3_000;
const SMOKE_ACCOUNTS = 300;

/** Sign-ins with both steps from `connections` flows for the duration; a flow's two requests go one after the other. */
async function runSignIns(url: string, pool: AccountPool, password: string, options: LoadOptions): Promise<LoadRun> {
  const stop = new AbortController();
  // Every request of the run listens to this one signal: not a leak.
  setMaxListeners(0, stop.signal);
  // Keep-alive connections of this run alone, closed after it (as autocannon's are).
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const statuses: Record<string, number> = {};
  const totals: number[] = [];
  const seconds: number[] = [];
  let [requests, errors, timeouts, malformed] = [0, 0, 0, 0];
  const [waitsBefore, cpuBefore, startedAt] = [pool.waits, process.cpuUsage(), Date.now()];
  const deadline = startedAt + options.durationS * 1000;
  let stoppedAt = deadline;
  const timer = setTimeout(() => {
    stoppedAt = Date.now();
    stop.abort();
  }, options.durationS * 1000);
  /** An answer's data when it is 200 and `valid`; anything else is counted (statuses, errors, malformed). */
  const ask = async (path: string, body: Json, valid: (data: Json) => boolean): Promise<Json | undefined> => {
    try {
      const answer = await post(url, path, body, { agent, signal: stop.signal });
      requests++;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const data = dataOf(answer.body) ?? {};
      if (answer.status !== 200) return undefined;
      if (!valid(data)) malformed++;
      return valid(data) ? data : undefined;
    } catch (error) {
      // Cut off by the end of the run: not an error, and not counted (autocannon counts no answer after its run).
      if (stop.signal.aborted) return undefined;
      if ((error as Error).name === 'TimeoutError') timeouts++;
      else errors++;
      return undefined;
    }
  };
  const signIn = async (account: MfaAccount) => {
    const started = performance.now();
    const first = await ask('/auth/signin', { email: account.email, password }, (data) => data.mfaRequired === true && typeof data.mfaToken === 'string');
    if (!first) return;
    const code = codeAt(account.secret, takeStep(account));
    const challenged = performance.now();
    const second = await ask('/auth/mfa/challenge', { mfaToken: first.mfaToken, code }, (data) => typeof data.accessToken === 'string');
    // Answered after the run's end: not counted, as autocannon counts none.
    if (!second || stop.signal.aborted) return;
    const now = performance.now();
    totals.push(now - started);
    seconds.push(now - challenged);
  };
  // Rate-capped (the smoke run): flows start at most overallRate / 2 a second, two requests each.
  const gapMs = options.overallRate ? 2000 / options.overallRate : 0;
  let nextStart = startedAt;
  const connection = async () => {
    while (!stop.signal.aborted) {
      if (gapMs) {
        const at = Math.max(Date.now(), nextStart);
        nextStart = at + gapMs;
        await sleep(at - Date.now());
      }
      const account = await pool.claim(deadline);
      if (!account || stop.signal.aborted) {
        if (account) pool.release(account);
        break;
      }
      await signIn(account).finally(() => pool.release(account));
    }
  };
  await Promise.all(Array.from({ length: options.connections }, connection));
  clearTimeout(timer);
  agent.destroy();
  const cpu = process.cpuUsage(cpuBefore);
  const durationS = (stoppedAt - startedAt) / 1000;
  const [sorted, secondSorted] = [totals, seconds].map((list) => [...list].sort((a, b) => a - b)) as [number[], number[]];
  const waits = pool.waits - waitsBefore;
  const problems = [
    ...(malformed ? [`${malformed} answers 200 without mfaRequired and mfaToken (first step) or tokens (second)`] : []),
    ...(waits ? [`the pool of ${pool.accounts.length} accounts ran dry ${waits} times (a flow waited for the next 30 s step): too few for this rate`] : []),
  ];
  return {
    load: { responses: sorted.length, durationS, rps: sorted.length / durationS, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), statuses, errors, timeouts, latencies: Float64Array.from(sorted) },
    problems,
    flow: {
      requests,
      secondP50: percentile(secondSorted, 0.5),
      secondP99: percentile(secondSorted, 0.99),
      poolWaits: waits,
      clientCpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, sorted.length),
    },
  };
}

/**
 * A1M's part of the main rounds: the pool made, every Basalt server checked, then (bench.secondStep) each round's
 * runs, one whole run per Basalt server, as long as A1's, after the machine has settled.
 */
export async function prepareA1M(bench: Bench, jwtSecret: string): Promise<(order: ServerName[], round: number) => Promise<RunRecord[]>> {
  const started = Date.now();
  const password = bench.project.member.password;
  const count = bench.options.smoke ? SMOKE_ACCOUNTS : A1M_ACCOUNTS;
  const accounts = await enrolAccounts(bench.servers['basalt-2'].url, bench.db.url, jwtSecret, password, count + BASALTS.length);
  const pool = new AccountPool(accounts.slice(0, count));
  console.log(`A1M: ${count.toLocaleString('en-US')} accounts with TOTP on (and ${BASALTS.length} to check replays) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const [index, server] of BASALTS.entries()) {
    const problem = await check(bench.servers[server].url, pool, accounts[count + index]!, password, `203.0.113.${index + 1}`);
    if (!problem) continue;
    const detail = `${A1M} on ${server}: ${problem}`;
    bench.failedChecks.set(`${server} ${A1M}`, detail);
    bench.problems.push(`check failed: ${detail}`);
    console.error(`!!! CHECK FAILED: ${detail}`);
  }
  return async (order, round) => {
    const records: RunRecord[] = [];
    for (const server of order.filter((name) => name !== 'baseline')) {
      const sample = await sampleRun(bench, server, A1M, (url) => runSignIns(url, pool, password, loadOptions(bench, [A1])));
      const failed = bench.failedChecks.get(`${server} ${A1M}`);
      records.push(record(bench, server, A1M, 'main', round, [], { ...sample, problems: [...(sample.problems ?? []), ...(failed ? [`failed its check: ${failed}`] : [])] }));
    }
    return records;
  };
}
