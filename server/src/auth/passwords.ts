import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PasswordJob, PasswordResult } from './passwordWorker.js';

type Pending = { resolve: (value: string | boolean) => void; reject: (error: Error) => void };
type JobInput = PasswordJob extends infer J ? (J extends PasswordJob ? Omit<J, 'id'> : never) : never;

// Under vitest the sources run as TypeScript, which a bare worker cannot load: it registers tsx's loader first.
const runningFromSource = import.meta.url.endsWith('.ts');

function startWorker(): Worker {
  if (!runningFromSource) return new Worker(new URL('./passwordWorker.js', import.meta.url));
  // tsx's ESM entry (its CommonJS one cannot register from an eval'd worker).
  const api = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const source = new URL('./passwordWorker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`, { eval: true });
}

/**
 * bcrypt hashing and comparing on a pool of worker threads, so a burst of sign-ins uses every core and never freezes
 * the requests the main thread is serving. Jobs go to the least busy worker; a worker that dies is replaced.
 */
export class PasswordHasher {
  private readonly workers: Array<{ worker: Worker; pending: Map<number, Pending> }> = [];
  private nextId = 1;
  private closed = false;
  /** A real hash to compare against when an email is unknown, so both failures take about the same time. */
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly cost: number,
    private readonly size = Math.max(1, Math.min(4, os.availableParallelism())),
  ) {}

  private spawn(): { worker: Worker; pending: Map<number, Pending> } {
    const worker = startWorker();
    const slot = { worker, pending: new Map<number, Pending>() };
    worker.on('message', (result: PasswordResult) => {
      const waiting = slot.pending.get(result.id);
      if (!waiting) return;
      slot.pending.delete(result.id);
      if (result.ok) waiting.resolve(result.value);
      else waiting.reject(new Error(result.message));
    });
    const fail = (error: Error) => {
      for (const waiting of slot.pending.values()) waiting.reject(error);
      slot.pending.clear();
      const index = this.workers.indexOf(slot);
      if (index >= 0) this.workers.splice(index, 1);
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('password worker exited')));
    worker.unref();
    return slot;
  }

  private run(job: JobInput): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('password hasher is closed'));
    while (this.workers.length < this.size) this.workers.push(this.spawn());
    const slot = this.workers.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...job, id });
    });
  }

  async hash(password: string): Promise<string> {
    return (await this.run({ kind: 'hash', password, cost: this.cost })) as string;
  }

  async compare(password: string, hash: string): Promise<boolean> {
    return (await this.run({ kind: 'compare', password, hash })) as boolean;
  }

  /** Spends the same bcrypt work as a real comparison and always fails. */
  async compareWithDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('dummy password that never matches');
    await this.compare(password, await this.dummyHash);
    return false;
  }

  /** Jobs handed to the threads and not answered yet: one running per busy thread, the rest queued behind it. */
  load(): { running: number; queued: number } {
    let running = 0;
    let queued = 0;
    for (const { pending } of this.workers) {
      running += Math.min(1, pending.size);
      queued += Math.max(0, pending.size - 1);
    }
    return { running, queued };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.splice(0).map(({ worker }) => worker.terminate()));
  }
}
