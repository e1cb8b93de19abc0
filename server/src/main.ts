import fs from 'node:fs';
import path from 'node:path';
import http, { type Server } from 'node:http';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createApp } from './app.js';
import { createServices, type Services } from './services.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { loadOrCreateDevSecret } from './secret.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;

function fail(message: string): never {
  console.error(`basalt: ${message}`);
  process.exit(1);
}

async function openDatabase(config: Config): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o755 });
  const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'));
  return { url: embedded.url, embedded };
}

function listen(server: Server, config: Config): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : config.port);
    });
  });
}

/**
 * Start-up: configuration, database (the embedded one when DATABASE_URL is unset), migrations, schema cache, listen;
 * SIGTERM and SIGINT drain in-flight requests, then close the pools and the embedded database.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const jwtSecret = config.jwtSecret ?? loadOrCreateDevSecret(config.dataDir);
  const database = await openDatabase(config).catch((error: Error) => fail(error.message));
  let services: Services;
  try {
    services = await createServices({
      databaseUrl: database.url,
      jwtSecret,
      bcryptCost: config.bcryptCost,
      signupEnabled: config.signupEnabled,
      onError: (error) => console.error('basalt:', (error as Error).message ?? error),
    });
  } catch (error) {
    await database.embedded?.stop();
    fail(`cannot prepare the database: ${(error as Error).message}`);
  }
  const app = createApp(services, { bodyLimitBytes: config.bodyLimitBytes, corsOrigins: config.corsOrigins });
  const httpServer = http.createServer(app);
  const port = await listen(httpServer, config).catch(async (error: Error) => {
    await services.close();
    await database.embedded?.stop();
    fail(`cannot listen on port ${config.port}: ${error.message}`);
  });
  const shownHost = config.host && config.host !== '0.0.0.0' && config.host !== '::' ? config.host : 'localhost';
  console.log(`Basalt listening on http://${shownHost}:${port}`);
  if (!config.production) {
    console.log(`  database: ${database.embedded ? `embedded PostgreSQL (data in ${config.dataDir})` : 'DATABASE_URL'}`);
    console.log(`  console:  http://${shownHost}:${port}/console/`);
    console.log(`  anon key: ${services.tokens.anonKey}`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => {
      console.error(`basalt: shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms after ${signal}; exiting`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    await new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      httpServer.closeIdleConnections();
    });
    await services.close().catch(() => undefined);
    await database.embedded?.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
