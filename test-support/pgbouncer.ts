import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { postgresOsUser, testAdminUrl } from './postgres.js';

/**
 * A real PgBouncer in transaction mode in front of the test PostgreSQL (issue 25), for the pooler tests. It needs a
 * `pgbouncer` >= 1.21 on PATH (`.ci/run` builds and caches one: scripts/pgbouncer.sh); without one the pooler tests
 * say in one line that they did not run.
 */

export const PGBOUNCER_MINIMUM = [1, 21] as const;

/** Where the global setup (TEST_THROUGH_POOLER=1) tells test processes the pooler's URL (no database name). */
export const POOLER_URL_ENV = 'BASALT_TEST_POOLER_URL';

/** The URL through the run's pooler to `database`, when the run goes through one (TEST_THROUGH_POOLER=1). */
export function throughPooler(database: string): string | undefined {
  const base = process.env[POOLER_URL_ENV];
  if (!base) return undefined;
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * How a server reaches `database` in this run: through the run's pooler (transaction mode, LISTEN on the direct URL)
 * when the run goes through one and the database is on the run's own server as its admin user, else undefined: a
 * database elsewhere (a standby's primary, an embedded server stopped mid-test) or another role connects directly.
 */
export function pooledConnection(database: { url: string; name: string }): { databaseUrl: string; poolMode: 'transaction'; listenUrl: string } | undefined {
  const pooled = throughPooler(database.name);
  if (!pooled) return undefined;
  const [given, run] = [new URL(database.url), new URL(testAdminUrl())];
  if (given.host !== run.host || given.username !== run.username) return undefined;
  return { databaseUrl: pooled, poolMode: 'transaction', listenUrl: database.url };
}

/** The version of the `pgbouncer` on PATH when it is recent enough, else why not. */
export function pgbouncerVersion(): { ok: true; version: string } | { ok: false; reason: string } {
  let output: string;
  try {
    output = execFileSync('pgbouncer', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return { ok: false, reason: 'no pgbouncer on PATH (scripts/pgbouncer.sh builds one)' };
  }
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return { ok: false, reason: `cannot read the version of pgbouncer: ${output.trim()}` };
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const recent = major > PGBOUNCER_MINIMUM[0] || (major === PGBOUNCER_MINIMUM[0] && minor >= PGBOUNCER_MINIMUM[1]);
  return recent ? { ok: true, version: match[0] } : { ok: false, reason: `pgbouncer ${match[0]} is older than ${PGBOUNCER_MINIMUM.join('.')}` };
}

export interface PgBouncer {
  /** A URL through the pooler to `database` (as the test PostgreSQL's admin user). */
  url(database: string): string;
  /** A `SHOW ...` of the pooler's admin console (`SHOW CLIENTS`: each client connection, its prepared statements). */
  show(what: string): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `targetUrl`: the PostgreSQL it pools (default: the test PostgreSQL). */
export async function startPgBouncer(targetUrl = testAdminUrl()): Promise<PgBouncer> {
  const target = new URL(targetUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  // Clients come in on trust; PgBouncer logs in to the server with this password when the server asks for one (the
  // embedded test PostgreSQL does).
  const password = decodeURIComponent(target.password);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-pgbouncer-'));
  await fs.chmod(dir, 0o777);
  const port = await freePort();
  const ini = [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    'max_prepared_statements = 200',
    'default_pool_size = 20',
    'max_client_conn = 1000',
    'query_wait_timeout = 5',
    // After a failed login to the server (the database refusing connections) PgBouncer waits this long before trying
    // again (default 15 s): Basalt's recovery after an outage waits on it.
    'server_login_retry = 1',
    'server_reset_query =',
    `admin_users = ${user}`,
    `logfile = ${path.join(dir, 'pgbouncer.log')}`,
  ].join('\n');
  await fs.writeFile(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
  await fs.writeFile(path.join(dir, 'users.txt'), `"${user}" "${password.replace(/"/g, '""')}"\n`, { mode: 0o600 });
  const owner = postgresOsUser();
  if (owner) for (const file of [dir, path.join(dir, 'pgbouncer.ini'), path.join(dir, 'users.txt')]) await fs.chown(file, owner.uid, owner.gid);
  const child: ChildProcess = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...(owner ?? {}) });
  const url = (database: string) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new pg.Client({ connectionString: url(target.pathname.slice(1) || 'postgres'), connectionTimeoutMillis: 1_000 });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      break;
    } catch (error) {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline || child.exitCode !== null) {
        const log = await fs.readFile(path.join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
        child.kill('SIGKILL');
        throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${log.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    async show(what: string) {
      const admin = new pg.Client({ connectionString: url('pgbouncer') });
      await admin.connect();
      try {
        return (await admin.query(`SHOW ${what.replace(/[^A-Z_ ]/gi, '')}`)).rows as Array<Record<string, unknown>>;
      } finally {
        await admin.end();
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
