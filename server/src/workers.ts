import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createKnex } from './db/knex.js';
import { prepareDatabase } from './db/prepare.js';
import { TokenService } from './auth/tokens.js';
import { SHUTDOWN_TIMEOUT_MS } from './serve.js';
import { combineGathered, relayGathers } from './ops/gather.js';

/** How the primary hands the database and the secret to its workers. */
export const WORKER_ENV = { databaseUrl: 'BASALT_WORKER_DATABASE_URL', secret: 'BASALT_WORKER_JWT_SECRET' } as const;

const RESTART_DELAY_MS = 500;

export interface Primary {
  port: number;
  anonKey: string;
  /** SIGTERM to every worker (they drain), waiting for them within a bounded time. */
  stop(): Promise<void>;
}

/**
 * The primary of WORKERS=N: migrates once, forks N API workers on one port, replaces a worker that dies, and on stop
 * lets every worker drain before it returns.
 */
export async function runPrimary(config: Config, options: { databaseUrl: string; jwtSecret: string; logger: Logger }): Promise<Primary> {
  const { logger } = options;
  // Migrations and the DDL trigger once, before any worker starts (workers then find them done).
  // On the session connection (DATABASE_LISTEN_URL) when there is one: a transaction pooler keeps no session.
  const knex = createKnex(config.listenUrl ?? options.databaseUrl, { poolSize: 1 });
  try {
    await prepareDatabase(knex, config.listenUrl ?? options.databaseUrl);
  } finally {
    await knex.destroy();
  }

  // /metrics and /admin/overview on any worker answer for all of them: the primary gathers and combines.
  relayGathers(combineGathered, (kind, pids) => logger.warn({ kind, workers: pids }, 'workers left out of a gather: no answer in time'));

  let stopping = false;
  const env = { [WORKER_ENV.databaseUrl]: options.databaseUrl, [WORKER_ENV.secret]: options.jwtSecret };
  const fork = (): Worker => cluster.fork(env);

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.process.pid, code, signal }, 'worker died; starting a new one');
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS).unref();
  });

  const port = await new Promise<number>((resolve, reject) => {
    let listening = 0;
    let firstPort = config.port;
    const onListening = (_worker: Worker, address: { port: number }) => {
      firstPort = address.port;
      listening += 1;
      if (listening === config.workers) {
        cluster.off('listening', onListening);
        cluster.off('exit', onEarlyExit);
        resolve(firstPort);
      }
    };
    const onEarlyExit = (_worker: Worker, code: number) => {
      if (listening < config.workers) {
        stopping = true;
        cluster.off('listening', onListening);
        cluster.off('exit', onEarlyExit);
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
        reject(new Error(`a worker exited with code ${code} during start-up; see its message above`));
      }
    };
    cluster.on('listening', onListening);
    cluster.on('exit', onEarlyExit);
    for (let i = 0; i < config.workers; i++) fork();
  });

  return {
    port,
    anonKey: new TokenService(options.jwtSecret).anonKey,
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => Boolean(worker));
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              const timer = setTimeout(() => {
                worker.process.kill('SIGKILL');
                resolve();
              }, SHUTDOWN_TIMEOUT_MS);
              worker.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
