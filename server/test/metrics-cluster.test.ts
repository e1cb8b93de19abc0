import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Overview } from '@basalt/contract';
import { spawnServer, type SpawnedServer } from '../../test-support/server.js';
import { eventually } from '../../test-support/wait.js';
import { parseSamples, promtoolCheck, total } from './metricsText.js';

/** WORKERS=2: one scrape, or one overview, answers for both workers, whichever of them receives it. */

const TOKEN = 'cluster-metrics-token-0123456789';
const PASSWORD = 'correct horse';

let server: SpawnedServer;

beforeAll(async () => {
  server = await spawnServer({ env: { WORKERS: '2', METRICS_TOKEN: TOKEN } });
});
afterAll(() => server.stop());

interface Answer {
  status: number;
  body: string;
  /** The prefix of X-Request-Id is random per process: it tells which worker answered. */
  worker: string;
}

/** A request on a connection of its own (`Connection: close`), so the primary hands each to the next worker. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: object): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined;
    const req = http.request(`${server.url}${path}`, { method, agent: false, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, worker: String(res.headers['x-request-id']).split('-')[0]! }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The worker processes of the spawned primary. */
function workerPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === server.process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const scrape = async () => {
  const answer = await request('GET', '/metrics', { authorization: `Bearer ${TOKEN}` });
  expect(answer.status).toBe(200);
  return { ...answer, samples: parseSamples(answer.body) };
};

describe('WORKERS=2', () => {
  it('sums every worker in one scrape: N requests spread over both are all counted', async () => {
    const n = 20;
    const workers = new Set<string>();
    for (let i = 0; i < n; i++) {
      const answer = await request('GET', `/api/no_such_table/id-${i}`, { apikey: server.anonKey });
      expect(answer.status).toBe(404);
      workers.add(answer.worker);
    }
    expect(workers.size).toBe(2);
    const seenBy = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const { samples, body, worker } = await scrape();
      seenBy.add(worker);
      expect(total(samples, 'basalt_http_requests_total', { method: 'GET', route: '/api/:table/:id', status: '404' })).toBe(n);
      expect(total(samples, 'basalt_http_request_duration_seconds_count', { method: 'GET', route: '/api/:table/:id', status: '404' })).toBe(n);
      expect(total(samples, 'basalt_scrape_workers', { state: 'answered' })).toBe(2);
      expect(total(samples, 'basalt_scrape_workers', { state: 'missing' })).toBe(0);
      expect(body).not.toContain('no_such_table');
      const { code, output } = await promtoolCheck(body);
      expect(output).toBe('');
      expect(code).toBe(0);
    }
    // Successive scrapes reached both workers, and each answered for the two.
    expect(seenBy.size).toBe(2);
  });

  it('sums every worker in the owner\'s overview', async () => {
    const signup = await request('POST', '/auth/signup', {}, { email: 'owner@example.test', password: PASSWORD });
    expect(signup.status).toBe(201);
    const { accessToken } = (JSON.parse(signup.body) as { data: { accessToken: string } }).data;
    const workers = new Set<string>();
    const signIns = 6;
    for (let i = 0; i < signIns; i++) {
      const answer = await request('POST', '/auth/signin', {}, { email: 'owner@example.test', password: PASSWORD });
      expect(answer.status).toBe(200);
      workers.add(answer.worker);
    }
    for (let i = 0; i < 2; i++) expect((await request('POST', '/auth/signin', {}, { email: 'owner@example.test', password: 'wrong password' })).status).toBe(401);
    expect(workers.size).toBe(2);
    for (let i = 0; i < 2; i++) {
      const answer = await request('GET', '/admin/overview', { authorization: `Bearer ${accessToken}` });
      expect(answer.status).toBe(200);
      const overview = (JSON.parse(answer.body) as { data: Overview }).data;
      const sum = (key: 'requests' | 'signIns' | 'signInFailures' | 'clientErrors') => overview.points.reduce((n, point) => n + point[key], 0);
      expect(overview.workers).toBe(2);
      expect(sum('signIns')).toBe(signIns);
      expect(sum('signInFailures')).toBe(2);
      // The 20 reads of the first test (404s) and the two failed sign-ins at least; every request of this file.
      expect(sum('clientErrors')).toBeGreaterThanOrEqual(22);
      expect(sum('requests')).toBeGreaterThanOrEqual(20 + 4 + 1 + signIns + 2);
    }
  });

  it('leaves out a worker that does not answer in time, says so, and still answers', async () => {
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    const frozen = pids[1]!;
    process.kill(frozen, 'SIGSTOP');
    let both: Array<Promise<unknown>> = [];
    try {
      // The primary may hand one of the two to the frozen worker: the other answers without it.
      const started = Date.now();
      both = [scrape(), scrape()];
      const first = (await Promise.race(both)) as Awaited<ReturnType<typeof scrape>>;
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(total(first.samples, 'basalt_scrape_workers', { state: 'answered' })).toBe(1);
      expect(total(first.samples, 'basalt_scrape_workers', { state: 'missing' })).toBe(1);
    } finally {
      process.kill(frozen, 'SIGCONT');
    }
    // Thawed, the frozen worker answers the scrape it held too.
    for (const outcome of await Promise.allSettled(both)) expect(outcome.status).toBe('fulfilled');
    // The primary's log is written in batches (every 200 ms at most).
    await eventually(async () => expect(server.output()).toContain('workers left out of a gather'));
  });
});
