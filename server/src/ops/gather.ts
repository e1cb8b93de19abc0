import cluster, { type Worker } from 'node:cluster';
import { ApiError } from '../errors.js';
import { combineMetrics, type MetricsPart } from './metrics.js';
import { combineTraffic, type TrafficPart } from './traffic.js';

/**
 * One answer for the whole process group (WORKERS=N): the worker that received `/metrics` or `/admin/overview` asks the
 * primary over IPC; the primary asks every worker for its own numbers, waits a bounded time, combines what came and
 * answers the asking worker. A worker that does not answer in time is left out and counted as missing.
 */

export type GatherKind = 'metrics' | 'traffic';

const GATHER = 'basalt:ops:gather';
const GATHERED = 'basalt:ops:gathered';
const COLLECT = 'basalt:ops:collect';
const COLLECTED = 'basalt:ops:collected';

/** How long the primary waits for the workers; the asking worker waits a little longer for the primary. */
export const COLLECT_TIMEOUT_MS = 1_500;
const GATHER_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 1_500;

interface Message {
  type?: unknown;
  id?: unknown;
  kind?: unknown;
  value?: unknown;
  failed?: unknown;
}

const isKind = (kind: unknown): kind is GatherKind => kind === 'metrics' || kind === 'traffic';

let nextId = 1;
const waiting = new Map<number, (message: Message) => void>();

/** Worker side: the process group's combined answer, from the primary. */
export function gatherFromPrimary(kind: GatherKind): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    if (!process.send || !process.connected) {
      reject(new ApiError('UNAVAILABLE', 'This worker has lost its primary process; try again'));
      return;
    }
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new ApiError('UNAVAILABLE', 'The other worker processes did not answer in time; try again'));
    }, GATHER_TIMEOUT_MS);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      waiting.delete(id);
      if (message.failed) reject(new Error(`combining the workers' ${kind} failed: ${String(message.failed)}`));
      else resolve(message.value);
    });
    process.send({ type: GATHER, id, kind });
  });
}

/**
 * Worker side: answers the primary's requests for this process's own numbers, and routes the primary's combined
 * answers to whoever asked. Returns the function that stops listening.
 */
export function answerPrimary(collect: (kind: GatherKind) => Promise<unknown>): () => void {
  const onMessage = (message: Message) => {
    if (message?.type === GATHERED && typeof message.id === 'number') {
      waiting.get(message.id)?.(message);
      return;
    }
    if (message?.type !== COLLECT || !isKind(message.kind)) return;
    collect(message.kind).then(
      (value) => process.send?.({ type: COLLECTED, id: message.id, value }),
      (error: unknown) => process.send?.({ type: COLLECTED, id: message.id, failed: String(error) }),
    );
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

export type Combine = (kind: GatherKind, parts: unknown[], missing: number) => unknown;

/**
 * Primary side: relays every worker's gather to all workers and answers with `combine` of what came back in time.
 * `onMissing` hears of the workers left out. Returns the function that stops relaying.
 */
export function relayGathers(combine: Combine, onMissing: (kind: GatherKind, missing: number[]) => void): () => void {
  const collecting = new Map<number, (worker: Worker, message: Message) => void>();
  let nextCollect = 1;

  const gather = (asker: Worker, askId: unknown, kind: GatherKind) => {
    const id = nextCollect++;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => Boolean(worker?.isConnected()));
    const parts: unknown[] = [];
    const pending = new Set(workers.map((worker) => worker.id));
    const failed: number[] = [];
    let done = false;
    const finish = async () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      collecting.delete(id);
      const missing = [...pending, ...failed];
      if (missing.length > 0) onMissing(kind, missing.map((workerId) => cluster.workers?.[workerId]?.process.pid ?? -workerId));
      let reply: Message;
      try {
        reply = { type: GATHERED, id: askId, value: await combine(kind, parts, missing.length) };
      } catch (error) {
        reply = { type: GATHERED, id: askId, failed: String(error) };
      }
      if (asker.isConnected()) asker.send(reply);
    };
    const timer = setTimeout(() => void finish(), COLLECT_TIMEOUT_MS);
    collecting.set(id, (worker, message) => {
      if (!pending.delete(worker.id)) return;
      if (message.failed) failed.push(worker.id);
      else parts.push(message.value);
      if (pending.size === 0) void finish();
    });
    for (const worker of workers) worker.send({ type: COLLECT, id, kind });
    if (workers.length === 0) void finish();
  };

  const onMessage = (worker: Worker, message: Message) => {
    if (message?.type === GATHER && isKind(message.kind)) gather(worker, message.id, message.kind);
    else if (message?.type === COLLECTED && typeof message.id === 'number') collecting.get(message.id)?.(worker, message);
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}

/** How the primary combines what the workers sent (`relayGathers` relays, this sums). */
export function combineGathered(kind: GatherKind, parts: unknown[], missing: number): unknown {
  if (kind === 'metrics') return combineMetrics(parts as MetricsPart[], missing);
  return combineTraffic(parts as TrafficPart[]);
}
