import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findFreePort, startEmbeddedPostgres } from '../server/src/db/embedded.js';

/** The benchmarks need only contract, migrations and server compiled (tsc -b, incremental); not the console. */
export function buildServer(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-b', 'contract', 'migrations', 'server'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the server does not compile (tsc -b contract migrations server)');
}

export interface BenchDatabase {
  /** A fresh database of its own, dropped by stop(). */
  url: string;
  /** Where it runs: "embedded PostgreSQL (temporary)" or the variable that named the server. */
  source: string;
  /** The postmaster's pid when the server runs on this machine (its CPU can then be measured), else null. */
  postmasterPid: number | null;
  version: string;
  stop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** One short-lived connection to run a few statements on. */
export async function onServer<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for one benchmark: on the server named by the caller, BENCH_DATABASE_URL or TEST_DATABASE_URL
 * (which must allow CREATE DATABASE), else on an embedded PostgreSQL in `tempDir`, so a fresh clone needs nothing
 * but npm. Never the database the URL names: the benchmark creates its own and drops it.
 */
export async function provisionDatabase(tempDir: string, given?: string): Promise<BenchDatabase> {
  const named = given ? 'the given URL' : process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : null;
  const adminUrlGiven = given ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const embedded = adminUrlGiven ? undefined : await startEmbeddedPostgres(path.join(tempDir, 'postgres'));
  const adminUrl = adminUrlGiven ?? embedded!.url;
  const name = `basalt_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  try {
    await onServer(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const url = withDatabase(adminUrl, name);
  const { version, postmasterPid } = await onServer(url, async (client) => {
    const result = await client.query<{ version: string; pid: number }>(`SELECT current_setting('server_version') AS version, pg_backend_pid() AS pid`);
    // Looked up while connected: the backend process ends with the connection.
    return { version: result.rows[0]!.version, postmasterPid: parentOf(result.rows[0]!.pid) };
  });
  return {
    url,
    source: embedded ? 'embedded PostgreSQL (temporary folder)' : `${named} (${new URL(adminUrl).host})`,
    postmasterPid,
    version,
    async stop() {
      await onServer(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
      await embedded?.stop();
    },
  };
}

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number;
}

/** Fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parentheses). */
function readStat(pid: number): ProcStat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((index) => Number(fields[index]));
    return { ppid: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime! };
  } catch {
    return null;
  }
}

/** A local backend's parent is the postmaster; a remote server's backends are not in /proc. */
function parentOf(backendPid: number): number | null {
  const stat = readStat(backendPid);
  return stat && stat.ppid > 1 ? stat.ppid : null;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Every live process's stat, and each one's children. */
function processTable(): { stats: Map<number, ProcStat>; children: Map<number, number[]> } {
  const stats = new Map<number, ProcStat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  return { stats, children };
}

function descendants(rootPid: number, children: Map<number, number[]>): number[] {
  const found: number[] = [];
  const pending = [rootPid];
  while (pending.length) {
    const pid = pending.pop()!;
    found.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * CPU milliseconds spent so far by a process and all its live descendants (cluster workers, Postgres backends).
 * Each process's own time plus its reaped children's (cutime, cstime), so a child that exits between two samples
 * still counts: its time moves into its parent's, and the difference of two samples stays the work done between them.
 */
export function treeCpuMs(rootPid: number): number {
  const { stats, children } = processTable();
  const ticks = descendants(rootPid, children).reduce((sum, pid) => sum + (stats.get(pid)?.ticks ?? 0), 0);
  return (ticks * 1000) / clockTicks();
}

/** A process and its live descendants (a Basalt primary and its cluster workers). */
export function treePids(rootPid: number): number[] {
  return descendants(rootPid, processTable().children).filter((pid) => fs.existsSync(`/proc/${pid}`));
}

/** A process's resident memory in bytes (VmRSS of /proc/<pid>/status), or null once it has gone. */
export function rssBytes(pid: number): number | null {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** Request log lines written since the last call, and lines that look like trouble (warnings, errors, 5xx). */
  drainLog(): { requestLines: number; problems: string[] };
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a server process with its stdout and stderr going to files (appending, so they can be emptied between
 * runs): a pipe into this process could stall the server's logging whenever the load generator keeps this event
 * loop busy. Resolves once it prints "listening on <url>".
 */
export async function startServer(options: { name: string; args: string[]; env: Record<string, string>; logDir: string; cwd: string }): Promise<ServerProcess> {
  const outFile = path.join(options.logDir, `${options.name}.out.log`);
  const errFile = path.join(options.logDir, `${options.name}.err.log`);
  const out = fs.openSync(outFile, 'a');
  const err = fs.openSync(errFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, options.args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', out, err] });
  } finally {
    fs.closeSync(out);
    fs.closeSync(err);
  }
  let exited = false;
  child.once('exit', () => (exited = true));
  const output = () => `${fs.readFileSync(outFile, 'utf8')}${fs.readFileSync(errFile, 'utf8')}`;
  let url: string | undefined;
  for (let waited = 0; !url; waited += 50) {
    url = /listening on (http:\/\/\S+)/.exec(fs.readFileSync(outFile, 'utf8'))?.[1];
    if (url) break;
    if (exited || waited > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not start:\n${output().slice(-3000)}`);
    }
    await sleep(50);
  }
  return {
    name: options.name,
    url,
    pid: child.pid!,
    drainLog() {
      const lines = fs.readFileSync(outFile, 'utf8').split('\n');
      const errors = fs.readFileSync(errFile, 'utf8').trim();
      fs.truncateSync(outFile, 0);
      fs.truncateSync(errFile, 0);
      let requestLines = 0;
      const problems: string[] = errors ? [`stderr: ${errors.slice(0, 500)}`] : [];
      for (const line of lines) {
        if (line.includes('"status":')) requestLines += 1;
        // pino levels: 40 warn, 50 error, 60 fatal. A 5xx line names a request that failed on the server.
        if (/"level":[456]0/.test(line) || /"status":5\d\d/.test(line)) problems.push(line.slice(0, 500));
      }
      if (exited) problems.push(`${options.name} exited`);
      return { requestLines, problems: problems.slice(0, 5) };
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** A free loopback port, never 5432 (the machine's own Postgres). */
export const freePort = findFreePort;

/**
 * Waits until every server process tree is idle (at most `maxMs`): a run that ends while sign-ins are queued leaves
 * seconds of bcrypt work behind (the baseline's on its main thread), which would otherwise slow the next run, on
 * whichever server it is.
 */
export async function settle(rootPids: number[], maxMs = 10_000): Promise<void> {
  const total = () => rootPids.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
  let last = total();
  for (let waited = 0; waited < maxMs; waited += 150) {
    await sleep(150);
    const now = total();
    if (now - last < 15) return; // under 10% of one core
    last = now;
  }
}

/** The machine, as every report names it: cores and model, memory, kernel. */
export function machine(): string {
  const cpus = os.cpus();
  const gib = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${gib} GiB RAM, ${os.type()} ${os.release()} (${os.arch()})`;
}
