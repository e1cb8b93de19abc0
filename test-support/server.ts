import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from './database.js';
import { pooledConnection } from './pgbouncer.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface SpawnedServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  anonKey: string;
  /** Absent when the server runs on its embedded PostgreSQL. */
  database: TestDatabase | undefined;
  process: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Use this database instead of a fresh one (it is not dropped on stop). */
  database?: TestDatabase;
  /** Run on the embedded PostgreSQL with its data here (DATABASE_URL unset), as `npm start` does on a laptop. */
  embeddedDataDir?: string;
}

export interface ExitedServer {
  code: number | null;
  output: string;
}

/** Runs the built server expecting it to stop by itself (bad configuration): its exit code and output. */
export function runServerToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<ExitedServer> {
  const child = spawn(process.execPath, [path.join(root, 'server/dist/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Starts the built server (`server/dist/main.js`, as `npm start` runs it) on a fresh database and a free port, the way
 * a user starts it. `npm test` builds before it runs the tests.
 */
export async function spawnServer(options: SpawnOptions = {}): Promise<SpawnedServer> {
  const database = options.embeddedDataDir ? undefined : (options.database ?? (await createTestDatabase()));
  // Through the run's PgBouncer when it has one (TEST_THROUGH_POOLER=1) and the database is the run's own.
  const pooled = database ? pooledConnection(database) : undefined;
  const databaseEnv = pooled
    ? { DATABASE_URL: pooled.databaseUrl, DATABASE_POOL_MODE: pooled.poolMode, DATABASE_LISTEN_URL: pooled.listenUrl }
    : database
      ? { DATABASE_URL: database.url }
      : { DATABASE_URL: '', DATA_DIR: options.embeddedDataDir! };
  const child = spawn(process.execPath, [path.join(root, 'server/dist/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      ...databaseEnv,
      JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
      BCRYPT_COST: '4',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 60 s:\n${output}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  const settings = await fetch(`${url}/auth/settings`);
  if (!settings.ok) throw new Error(`server answered ${settings.status} on /auth/settings`);
  const anonKey = /anon key: (\S+)/.exec(output)?.[1] ?? '';
  return {
    url,
    anonKey,
    database,
    process: child,
    output: () => output,
    async stop() {
      await stopProcess(child);
      if (database && !options.database) await database.drop();
    },
  };
}

/** SIGTERM to a child process, waiting until it has exited (nothing to do when it already has). */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
