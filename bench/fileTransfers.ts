/**
 * F2 (issue 28): 20 uploads of 100 MiB at once (`POST /files/transfers`, a raw body, as the owner), then their 20
 * downloads at once (`GET /files/transfers/:id` with the anon key: a public-read bucket), on each server in turn, every
 * round. Throughput is the bytes moved both ways over the two phases' time; the server's memory is each of its
 * processes' resident set (VmRSS), sampled every 50 ms from just before the uploads to the last download's end: a
 * server that streams holds a few chunks per request, one that buffers holds the files. The baseline pipes bodies to
 * files with a SHA-256 on the way and streams them back (bench/baselineFiles.ts).
 *
 * The bodies are made here as they are sent (a unique first MiB per file, then one shared random MiB repeated), and
 * their SHA-256s computed once beforehand, so each answer's `sha256` and each download's ETag and length are checked
 * without hashing 2 GiB again per run (the check before the load hashes what it downloads). Between runs every file is
 * deleted (Basalt through its API, the baseline's by SQL and from its folder) and the disk synced, so no run pays for
 * another's writeback.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { LoadResult } from './load.js';
import { record, sampleRun, type Bench, type LoadRun } from './measure.js';
import { onServer, rssBytes, treePids } from './processes.js';
import { BARE, BUCKETS, type BenchProject } from './scenarios.js';
import { F2, type RunRecord, type ServerName, type Transfer } from './stats.js';
import { percentile } from './streams.js';

export const MiB = 1024 * 1024;
export interface TransferPlan {
  files: number;
  bytes: number;
}
export const F2_PLAN: TransferPlan = { files: 20, bytes: 100 * MiB };
export const SMOKE_F2_PLAN: TransferPlan = { files: 4, bytes: 2 * MiB };
/** The target: no server process grows by this much over a run. */
export const RSS_GROWTH_LIMIT_MIB = 64;
const REQUEST_TIMEOUT_MS = 300_000;

/** The bodies of a plan: file i is its own random first MiB, then one shared random MiB repeated (cut to size). */
export class Payloads {
  private readonly shared = randomBytes(MiB);
  private readonly firsts: Buffer[];
  readonly sha256s: string[];

  constructor(readonly plan: TransferPlan) {
    this.firsts = Array.from({ length: plan.files }, () => randomBytes(Math.min(MiB, plan.bytes)));
    this.sha256s = this.firsts.map((_, i) => {
      const hash = createHash('sha256');
      for (const chunk of this.chunks(i)) hash.update(chunk);
      return hash.digest('hex');
    });
  }

  *chunks(i: number): Generator<Buffer> {
    yield this.firsts[i]!;
    for (let left = this.plan.bytes - this.firsts[i]!.length; left > 0; left -= MiB) yield left >= MiB ? this.shared : this.shared.subarray(0, left);
  }
}

/** Each process of a tree's resident memory: before, its peak (sampled every 50 ms) and at the end. */
export class MemoryWatch {
  private readonly pids: number[];
  private readonly before = new Map<number, number>();
  private readonly peak = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(rootPid: number) {
    this.pids = treePids(rootPid);
    for (const pid of this.pids) this.before.set(pid, rssBytes(pid) ?? 0);
    for (const [pid, rss] of this.before) this.peak.set(pid, rss);
    this.timer = setInterval(() => this.sample(), 50);
  }

  private sample(): Map<number, number> {
    const now = new Map<number, number>();
    for (const pid of this.pids) {
      const rss = rssBytes(pid) ?? 0;
      now.set(pid, rss);
      if (rss > this.peak.get(pid)!) this.peak.set(pid, rss);
    }
    return now;
  }

  /** MiB: the tree's total before, the largest growth of one process at its peak and at the end. */
  stop(): Pick<Transfer, 'rssBeforeMiB' | 'rssPeakGrowthMiB' | 'rssEndGrowthMiB' | 'processes'> {
    clearInterval(this.timer);
    const end = this.sample();
    const growth = (of: Map<number, number>) => Math.max(...this.pids.map((pid) => of.get(pid)! - this.before.get(pid)!)) / MiB;
    return { rssBeforeMiB: [...this.before.values()].reduce((a, b) => a + b, 0) / MiB, rssPeakGrowthMiB: growth(this.peak), rssEndGrowthMiB: growth(end), processes: this.pids.length };
  }
}

interface Answer {
  status: number;
  ms: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  sha256?: string;
}

/** One request; the answer's bytes are counted (and hashed when `hash`), kept only when small (JSON, errors). */
function request(url: string, options: http.RequestOptions, body: Iterable<Buffer> | null, hash = false): Promise<Answer> {
  const started = performance.now();
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(url, { ...options, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }, (res) => {
      const kept: Buffer[] = [];
      const hasher = hash ? createHash('sha256') : null;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hasher?.update(chunk);
        if (bytes <= 64 * 1024) kept.push(chunk);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(kept), headers: res.headers, bytes, ...(hasher ? { sha256: hasher.digest('hex') } : {}) }));
      res.once('error', reject);
    });
    req.once('error', reject);
    void (async () => {
      for (const chunk of body ?? []) if (!req.write(chunk)) await once(req, 'drain');
      req.end();
    })().catch(reject);
  });
}

/** One run on one server: the uploads at once, then the downloads at once; checked answer by answer. */
export async function roundTrip(url: string, project: BenchProject, payloads: Payloads, rootPid: number, verify = false): Promise<LoadRun & { ids: string[] }> {
  const { files, bytes } = payloads.plan;
  const agent = new http.Agent({ keepAlive: true, maxSockets: files });
  const problems: string[] = [];
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  const counted = async (run: () => Promise<Answer>): Promise<Answer | null> => {
    try {
      const answer = await run();
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      latencies.push(answer.ms);
      return answer;
    } catch (error) {
      errors++;
      problems.push(`${(error as Error).message}`);
      return null;
    }
  };
  const memory = new MemoryWatch(rootPid);
  const started = performance.now();
  const headers = { authorization: `Bearer ${project.ownerToken}`, 'content-type': 'application/octet-stream', 'content-length': String(bytes) };
  const uploads = await Promise.all(
    Array.from({ length: files }, (_, i) => counted(() => request(`${url}/files/${BUCKETS.transfers}?name=transfer-${i}.bin`, { method: 'POST', agent, headers }, payloads.chunks(i)))),
  );
  const uploaded = performance.now();
  const ids = uploads.map((answer, i) => {
    if (!answer) return null;
    const data = (JSON.parse(answer.body.toString('utf8') || '{}') as { data?: { id?: string; size?: unknown; sha256?: unknown } }).data;
    if (answer.status !== 201 || !data?.id) problems.push(`upload ${i} answered ${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`);
    else if (Number(data.size) !== bytes || data.sha256 !== payloads.sha256s[i]) problems.push(`upload ${i}: size ${String(data.size)}, sha256 ${String(data.sha256)}, sent ${bytes} bytes of ${payloads.sha256s[i]}`);
    return data?.id ?? null;
  });
  const downloads = await Promise.all(ids.map((id) => (id === null ? null : counted(() => request(`${url}/files/${BUCKETS.transfers}/${encodeURIComponent(id)}`, { agent, headers: { apikey: project.anonKey } }, null, verify)))));
  const downloaded = performance.now();
  const rss = memory.stop();
  agent.destroy();
  downloads.forEach((answer, i) => {
    if (!answer) return;
    const sha256 = payloads.sha256s[i]!;
    if (answer.status !== 200 || answer.bytes !== bytes) problems.push(`download ${i} answered ${answer.status} with ${answer.bytes} bytes`);
    else if (answer.headers.etag !== `"${sha256}"` || answer.headers['content-length'] !== String(bytes)) problems.push(`download ${i}: ETag ${answer.headers.etag}, Content-Length ${answer.headers['content-length']}`);
    else if (verify && answer.sha256 !== sha256) problems.push(`download ${i}: other bytes than uploaded`);
  });
  const [uploadS, downloadS] = [(uploaded - started) / 1000, (downloaded - uploaded) / 1000];
  const sorted = latencies.sort((a, b) => a - b);
  const moved = (bytes * files) / MiB;
  const load: LoadResult = { responses: sorted.length, durationS: uploadS + downloadS, rps: sorted.length / (uploadS + downloadS), p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), statuses, errors, timeouts: 0 };
  const transfer: Transfer = { files, bytesEach: bytes, uploadS, downloadS, mibPerS: (2 * moved) / (uploadS + downloadS), uploadMibPerS: moved / uploadS, downloadMibPerS: moved / downloadS, ...rss };
  return { load, problems: problems.slice(0, 5), transfer, ids: ids.filter((id): id is string => id !== null) };
}

/** Every file of a run deleted (Basalt's through its API, so its bytes go its own way), then the disk synced. */
export async function clearTransfers(bench: Bench, server: ServerName, ids: string[], baselineDir: string): Promise<void> {
  if (server === 'baseline') {
    await onServer(bench.db.url, (client) => client.query(`DELETE FROM ${BARE}.${BUCKETS.transfers}`));
    for (const id of ids) fs.rmSync(path.join(baselineDir, id), { force: true });
  } else {
    for (const id of ids) {
      const answer = await fetch(`${bench.servers[server].url}/api/${BUCKETS.transfers}/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${bench.project.ownerToken}` } });
      await answer.arrayBuffer();
      if (!answer.ok) bench.problems.push(`F2 on ${server}: deleting transfer ${id} answered ${answer.status}`);
    }
  }
  spawnSync('sync');
}

/** F2's part of the main rounds: one run per server in the round's order, each on a quiet machine and a clean disk. */
export function transferRounds(bench: Bench, payloads: Payloads, baselineDir: string): (order: ServerName[], round: number) => Promise<RunRecord[]> {
  return async (order, round) => {
    const records: RunRecord[] = [];
    for (const server of order) {
      let ids: string[] = [];
      const sample = await sampleRun(bench, server, F2, async (url) => {
        const run = await roundTrip(url, bench.project, payloads, bench.servers[server].pid);
        ids = run.ids;
        return run;
      });
      const failed = bench.failedChecks.get(`${server} ${F2}`);
      records.push(record(bench, server, F2, 'main', round, [], { ...sample, problems: [...(sample.problems ?? []), ...(failed ? [`failed its check: ${failed}`] : [])] }));
      await clearTransfers(bench, server, ids, baselineDir);
    }
    return records;
  };
}
