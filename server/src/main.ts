import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { openDatabase, resolveSecret } from './database.js';
import { serve, SHUTDOWN_TIMEOUT_MS } from './serve.js';
import { runPrimary, WORKER_ENV } from './workers.js';

function fail(message: string): never {
  console.error(`basalt: ${message}`);
  process.exit(1);
}

function printBanner(config: Config, port: number, anonKey: string, embedded: boolean, workers: number): void {
  const host = config.host && config.host !== '0.0.0.0' && config.host !== '::' ? config.host : 'localhost';
  console.log(`Basalt listening on http://${host}:${port}${workers > 1 ? ` (${workers} worker processes)` : ''}`);
  if (config.production) return;
  console.log(`  database: ${embedded ? `embedded PostgreSQL (data in ${config.dataDir})` : 'DATABASE_URL'}`);
  console.log(`  console:  http://${host}:${port}/console/`);
  console.log(`  anon key: ${anonKey}`);
}

/** Runs when SIGTERM, SIGINT or SIGHUP arrives (or a cluster worker loses its primary): once, within a bounded time. */
function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    setTimeout(() => {
      logger.error({ reason }, `shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS + 2_000).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
  if (cluster.isWorker) process.on('disconnect', () => shutdown('primary gone'));
}

/**
 * Start-up. One process (WORKERS=1, the development default) opens the database and serves. With WORKERS=N the
 * primary opens the database (and creates the development secret) once, then forks N workers that share the port.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, production: config.production });

  if (cluster.isWorker) {
    // The primary migrated before forking.
    const server = await serve(config, {
      databaseUrl: process.env[WORKER_ENV.databaseUrl]!,
      jwtSecret: process.env[WORKER_ENV.secret]!,
      logger,
      prepared: true,
    });
    onShutdown(logger, () => server.stop());
    return;
  }

  let jwtSecret: string;
  try {
    jwtSecret = resolveSecret(config);
  } catch (error) {
    fail((error as Error).message);
  }
  const database = await openDatabase(config).catch((error: Error) => fail(error.message));
  const stopDatabase = () => database.embedded?.stop().catch(() => undefined) ?? Promise.resolve();

  if (config.workers > 1) {
    const primary = await runPrimary(config, { databaseUrl: database.url, jwtSecret, logger }).catch(async (error: Error) => {
      await stopDatabase();
      fail(error.message);
    });
    printBanner(config, primary.port, primary.anonKey, Boolean(database.embedded), config.workers);
    onShutdown(logger, async () => {
      await primary.stop();
      await stopDatabase();
    });
    return;
  }

  const server = await serve(config, { databaseUrl: database.url, jwtSecret, logger }).catch(async (error: Error) => {
    await stopDatabase();
    fail(`cannot start: ${error.message}`);
  });
  printBanner(config, server.port, server.services.tokens.anonKey, Boolean(database.embedded), 1);
  onShutdown(logger, async () => {
    await server.stop();
    await stopDatabase();
  });
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
