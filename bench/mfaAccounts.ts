/**
 * A1M's accounts (bench/mfa.ts runs the load): made by SQL with A1's password (one bcrypt hash for all: the same cost
 * per compare), access tokens signed here, TOTP turned on for each through the API (POST /auth/mfa/totp, then
 * /verify); the pool that hands each out at most once per 30 s step (the server accepts each step of an account once);
 * the checks made before the load; the HTTP client of the load and the checks.
 */
import http from 'node:http';
import { generateSync } from 'otplib';
import bcrypt from 'bcryptjs';
import jwt from 'jsonwebtoken';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '@basalt/contract';
import { onServer } from './processes.js';

const PERIOD_MS = TOTP_PERIOD_SECONDS * 1000;
/** As load.ts gives autocannon: sign-ins queue behind bcrypt, so slowness shows as latency, not as errors. */
const TIMEOUT_MS = 30_000;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface MfaAccount {
  id: string;
  email: string;
  /** The TOTP secret (base32) the enrolment answered. */
  secret: string;
  /** The last time step whose code this account used (or may have: a challenge cut off by the end of a run). */
  lastStep: number;
}

const currentStep = () => Math.floor(Date.now() / PERIOD_MS);
export const codeAt = (secret: string, step: number) => generateSync({ secret, epoch: step * TOTP_PERIOD_SECONDS, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });
/** The step an account's next code is for (taken at once: the server accepts each step once). */
export function takeStep(account: MfaAccount): number {
  account.lastStep = Math.max(currentStep(), account.lastStep + 1);
  return account.lastStep;
}

export type Json = Record<string, unknown>;
/** The body as JSON, or as the text it is (a check then names the status and the text). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
export const dataOf = (body: unknown): Json | undefined => ((body as { data?: unknown } | null)?.data ?? undefined) as Json | undefined;

/**
 * One POST over `agent`'s keep-alive connections (node:http: about a third of fetch's CPU per request, and the load
 * generator shares the machine with the servers). Rejects with a TimeoutError after TIMEOUT_MS, or when `signal` aborts.
 */
export function post(url: string, path: string, body: unknown, options: { headers?: Record<string, string>; agent?: http.Agent; signal?: AbortSignal } = {}): Promise<{ status: number; body: unknown }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'content-length': String(Buffer.byteLength(payload)), ...options.headers };
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${path}`, { method: 'POST', headers, agent: options.agent, signal: options.signal }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: parseJson(text) }));
      response.on('error', reject);
      // Cut off mid-answer (the run's end, a timeout): rejected, never left pending.
      response.on('close', () => response.complete || reject(Object.assign(new Error('the answer was cut off'), { name: 'AbortError' })));
    });
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`no answer in ${TIMEOUT_MS} ms`), { name: 'TimeoutError' })), TIMEOUT_MS);
    request.on('error', reject);
    request.on('close', () => clearTimeout(timer));
    request.end(payload);
  });
}

/** Accounts by the least recent use; one is handed out only when its code of the current step is still unused. */
export class AccountPool {
  private readonly idle: MfaAccount[];
  /** Times a flow found none free in the current step and waited for the next. */
  waits = 0;

  constructor(readonly accounts: MfaAccount[]) {
    this.idle = [...accounts];
  }

  /** An account, or null when none frees up before `deadline` (ms since the epoch). */
  async claim(deadline: number): Promise<MfaAccount | null> {
    for (;;) {
      const head = this.idle[0];
      if (head && head.lastStep < currentStep()) return this.idle.shift()!;
      // Every account in flight (a pool smaller than the connections): one comes back soon.
      if (!head) {
        await sleep(5);
        continue;
      }
      this.waits++;
      const wait = (currentStep() + 1) * PERIOD_MS - Date.now() + 20;
      if (Date.now() + wait >= deadline) return null;
      await sleep(wait);
    }
  }

  release(account: MfaAccount): void {
    this.idle.push(account);
  }
}

/** One account turns TOTP on through the API, with an access token signed here (it was made by SQL). */
async function enrol(url: string, jwtSecret: string, id: string, email: string): Promise<MfaAccount> {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const token = jwt.sign({ sub: id, role: 'member', sid: `${id}-setup`, typ: 'access', aal: 1, exp }, jwtSecret, { algorithm: 'HS256' });
  const authorization = { authorization: `Bearer ${token}` };
  const enrolled = await post(url, '/auth/mfa/totp', undefined, { headers: authorization });
  const secret = dataOf(enrolled.body)?.secret;
  if (enrolled.status !== 200 || typeof secret !== 'string') throw new Error(`POST /auth/mfa/totp for ${email}: ${enrolled.status} ${JSON.stringify(enrolled.body).slice(0, 200)}`);
  // The previous step's code (one step either side is accepted) leaves the current step free for the load; at a step's
  // edge the server may already be past it, and the current one is taken instead.
  let answer: { status: number; body: unknown } | undefined;
  for (const step of [currentStep() - 1, currentStep()]) {
    answer = await post(url, '/auth/mfa/totp/verify', { code: codeAt(secret, step) }, { headers: authorization });
    const codes = dataOf(answer.body)?.recoveryCodes;
    if (answer.status === 200 && Array.isArray(codes) && codes.length > 0) return { id, email, secret, lastStep: step };
  }
  throw new Error(`POST /auth/mfa/totp/verify for ${email}: ${answer!.status} ${JSON.stringify(answer!.body).slice(0, 200)}`);
}

/** `count` accounts with A1's password and TOTP on, 16 enrolments at a time. */
export async function enrolAccounts(url: string, databaseUrl: string, jwtSecret: string, password: string, count: number): Promise<MfaAccount[]> {
  const hash = bcrypt.hashSync(password, 10);
  await onServer(databaseUrl, async (client) => {
    await client.query(
      `INSERT INTO users (id, email, password_hash, role) SELECT 'a1m-' || i, 'a1m-' || i || '@bench.test', $1, 'member' FROM generate_series(1, $2::int) AS i`,
      [hash, count],
    );
    await client.query('ANALYZE users');
  });
  const accounts: MfaAccount[] = [];
  let next = 1;
  const enroller = async () => {
    for (let i = next++; i <= count; i = next++) accounts[i - 1] = await enrol(url, jwtSecret, `a1m-${i}`, `a1m-${i}@bench.test`);
  };
  await Promise.all(Array.from({ length: 16 }, enroller));
  return accounts;
}

/** The first step, checked: the mfaToken, no tokens yet. */
async function firstStep(url: string, account: MfaAccount, password: string, headers: Record<string, string>): Promise<string> {
  const { status, body } = await post(url, '/auth/signin', { email: account.email, password }, { headers });
  const data = dataOf(body);
  if (status !== 200 || data?.mfaRequired !== true || typeof data.mfaToken !== 'string') {
    throw new Error(`POST /auth/signin -> ${status} ${JSON.stringify(body).slice(0, 200)}, expected 200 { mfaRequired: true, mfaToken }`);
  }
  if ('accessToken' in data || 'refreshToken' in data) throw new Error('POST /auth/signin answered tokens before the second step');
  return data.mfaToken;
}

/** The second step, checked: this account's token pair, its session proven by the second factor (aal 2). */
async function secondStep(url: string, account: MfaAccount, mfaToken: string, code: string, headers: Record<string, string>): Promise<void> {
  const { status, body } = await post(url, '/auth/mfa/challenge', { mfaToken, code }, { headers });
  const data = dataOf(body);
  const user = data?.user as Json | undefined;
  if (status !== 200 || typeof data?.accessToken !== 'string' || typeof data.refreshToken !== 'string') {
    throw new Error(`POST /auth/mfa/challenge -> ${status} ${JSON.stringify(body).slice(0, 200)}, expected 200 with the token pair`);
  }
  if (user?.id !== account.id || user.email !== account.email) throw new Error('POST /auth/mfa/challenge answered another user');
  if ((jwt.decode(data.accessToken) as Json | null)?.aal !== 2) throw new Error('the access token after the second step is not aal 2');
}

/**
 * Before the load, on one server: a pool account signs in with both steps, every answer checked; then a check account
 * of its own, from an address of its own (so its refused code counts against no counter the load uses), signs in
 * twice with one code: the second use must be refused, or the benchmark would measure a server that skips the check.
 */
export async function check(url: string, pool: AccountPool, checker: MfaAccount, password: string, address: string): Promise<string | null> {
  try {
    const account = (await pool.claim(Number.POSITIVE_INFINITY))!;
    try {
      await secondStep(url, account, await firstStep(url, account, password, {}), codeAt(account.secret, takeStep(account)), {});
    } finally {
      pool.release(account);
    }
    const headers = { 'x-forwarded-for': address };
    const code = codeAt(checker.secret, takeStep(checker));
    await secondStep(url, checker, await firstStep(url, checker, password, headers), code, headers);
    const replay = await post(url, '/auth/mfa/challenge', { mfaToken: await firstStep(url, checker, password, headers), code }, { headers });
    return replay.status === 400 ? null : `a code used once was answered ${replay.status} on its second use, expected 400`;
  } catch (error) {
    return (error as Error).message;
  }
}
