import type { LoadOptions, LoadResult } from './load.js';
import { A1, type BenchProject, type HttpRequest } from './scenarios.js';

/**
 * A2 (issue 13): 2,000 wrong-password attempts at one account from one address while A1 (successful sign-ins) runs.
 * The attacker comes through a proxy the servers trust (TRUST_PROXY=loopback), so its address is the one in
 * X-Forwarded-For and A1's is 127.0.0.1; each run attacks from a fresh address, so its counters start at zero.
 * Only Basalt runs it: the baseline has no limits.
 */
export const ABUSE = 'A1+A2';
export const A2_ATTEMPTS = 2_000;
export const A2_CONNECTIONS = 4;
/** The account attacked: the owner's (A1 signs the member in). */
export const A2_VICTIM = 'owner@bench.test';
/** The failures the limit lets through (config default: 10 per account and address). */
export const A2_ALLOWED_FAILURES = 10;

export function attackerAddress(round: number, server: number): string {
  return `198.51.${100 + round}.${server + 1}`;
}

export function a2Request(address: string): HttpRequest {
  return {
    method: 'POST',
    path: '/auth/signin',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ email: A2_VICTIM, password: 'not-the-password-at-all' }),
  };
}

/** A2 is paced over A1's run: its 2,000 attempts spread over the same seconds. */
export function abuseLoads(project: BenchProject, a1: LoadOptions, address: string): Array<{ next: () => HttpRequest; options: LoadOptions }> {
  return [
    { next: () => A1.next(project), options: a1 },
    { next: () => a2Request(address), options: { connections: A2_CONNECTIONS, durationS: a1.durationS, amount: A2_ATTEMPTS, overallRate: A2_ATTEMPTS / a1.durationS } },
  ];
}

/** What makes an A2 side wrong: anything but 401 and 429, more failures let through than the limit, errors. */
export function a2Problems(result: LoadResult): string[] {
  const problems: string[] = [];
  const other = Object.entries(result.statuses).filter(([status]) => status !== '401' && status !== '429');
  if (other.length) problems.push(`A2 side: answers other than 401/429: ${other.map(([status, n]) => `${n} x ${status}`).join(', ')}`);
  const failures = result.statuses['401'] ?? 0;
  if (failures > A2_ALLOWED_FAILURES) problems.push(`A2 side: ${failures} attempts were hashed (401), the limit is ${A2_ALLOWED_FAILURES}`);
  if (result.responses < A2_ATTEMPTS) problems.push(`A2 side: ${result.responses} of ${A2_ATTEMPTS} attempts answered`);
  if (result.errors || result.timeouts) problems.push(`A2 side: ${result.errors} errors, ${result.timeouts} timeouts`);
  return problems;
}
