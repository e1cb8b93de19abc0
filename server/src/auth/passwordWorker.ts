import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

// Hashing yields to request handling: on Linux a nice value is per thread, and 0 means "this thread". Sign-ins
// still use every idle core, but a burst of them does not push up the latency of everything else.
try {
  os.setPriority(0, 10);
} catch {
  // Not permitted here (or not Linux): run at normal priority.
}

/** One bcrypt job, run off the main thread: bcryptjs blocks the event loop for ~75 ms at cost 10. */
export type PasswordJob =
  | { id: number; kind: 'hash'; password: string; cost: number }
  | { id: number; kind: 'compare'; password: string; hash: string };

export type PasswordResult = { id: number; ok: true; value: string | boolean } | { id: number; ok: false; message: string };

parentPort?.on('message', (job: PasswordJob) => {
  try {
    const value = job.kind === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort?.postMessage({ id: job.id, ok: true, value } satisfies PasswordResult);
  } catch (error) {
    parentPort?.postMessage({ id: job.id, ok: false, message: (error as Error).message } satisfies PasswordResult);
  }
});
