import cluster from 'node:cluster';
import type { Socket } from 'node:net';
import type { Config } from './config.js';
import { createApp } from './app.js';
import { createServices, type Services } from './services.js';
import type { Logger } from './logger.js';
import { createHttpServer } from './http/server.js';

/** How long SIGTERM waits for in-flight requests before closing what is left. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

export interface RunningServer {
  port: number;
  services: Services;
  /** Stops accepting connections, drains in-flight requests, closes idle keep-alive sockets, then the pools. */
  stop(): Promise<void>;
}

/** One HTTP process: services on the given database, the app, listening on the configured port. */
export async function serve(
  config: Config,
  options: { databaseUrl: string; jwtSecret: string; logger: Logger; prepared?: boolean },
): Promise<RunningServer> {
  const { logger } = options;
  const services = await createServices({
    databaseUrl: options.databaseUrl,
    jwtSecret: options.jwtSecret,
    bcryptCost: config.bcryptCost,
    signupEnabled: config.signupEnabled,
    limits: config.limits,
    realtimeMaxStreams: config.realtimeMaxStreams,
    poolSize: config.poolSize,
    statementTimeoutMs: config.statementTimeoutMs,
    poolMode: config.poolMode,
    listenUrl: config.listenUrl,
    replicas: config.replicas,
    metricsToken: config.metricsToken,
    email: config.email,
    providers: config.providers,
    webhooks: config.webhooks,
    storage: config.storage,
    production: config.production,
    ...(config.production ? {} : { announceMail: (message: string) => logger.info(message) }),
    prepare: !options.prepared,
    onError: (error) => logger.warn({ err: error }, 'background work'),
    log: (message) => logger.info(message),
  });
  const app = createApp(services, {
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    logger,
    reportError: (error) => logger.error({ err: error }, 'unexpected error'),
  });
  const server = createHttpServer(app);
  // Every connection, so a stop can end the ones with no response under way that Node's own idle tracking misses (a
  // stream's connection whose client abandoned it without closing it stays open otherwise; seen with Node's fetch).
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const closeIdle = () => {
    server.closeIdleConnections();
    for (const socket of sockets) if (!(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.destroy();
  };
  // Keep-alive sockets outlive load balancers' idle timeouts (usually 60 s) so they never hit a closed socket.
  server.keepAliveTimeout = 65_000;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : config.port);
    });
  }).catch(async (error: Error) => {
    await services.close();
    throw new Error(`cannot listen on port ${config.port}: ${error.message}`);
  });
  // Without PUBLIC_URL, mails' links name the port actually listened on (PORT=0 picks one).
  if (config.email.publicUrlIsDefault) services.email.settings.publicUrl = `http://localhost:${port}`;
  // A worker's share of /metrics and /admin/overview, asked for by the primary whichever worker was asked.
  const stopAnswering = cluster.isWorker ? services.telemetry.answerPrimary() : undefined;
  let stopping: Promise<void> | undefined;
  return {
    port,
    services,
    stop() {
      stopping ??= (async () => {
        // /ready answers 503 from now on, so load balancers stop sending requests here while it drains.
        services.telemetry.markStopping();
        // Open streams would hold the drain forever: they end now, and their clients resume on another process.
        services.hub.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        closeIdle();
        // Busy keep-alive connections close once their response is sent.
        const drain = setInterval(closeIdle, 100);
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS - 1_000).unref());
        await Promise.race([closed, timeout]);
        clearInterval(drain);
        server.closeAllConnections();
        stopAnswering?.();
        await services.close().catch(() => undefined);
      })();
      return stopping;
    },
  };
}
