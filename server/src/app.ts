import fs from 'node:fs';
import path from 'node:path';
import express, { type Express } from 'express';
import { PROJECT_ROOT } from './config.js';
import type { Services } from './services.js';
import { authRoutes } from './auth/routes.js';
import { recordRoutes } from './records/routes.js';
import { adminRoutes } from './admin/routes.js';
import { realtimeRoutes } from './realtime/routes.js';
import { adminFileRoute, fileRoutes } from './files/routes.js';
import { errorHandler, routeNotFound, type ErrorReporter } from './http/handler.js';
import { ApiError } from './errors.js';
import { requestFrame } from './http/frame.js';
import { CONFIRM_PAGE, securityHeaders } from './http/securityHeaders.js';
import type { Logger } from './logger.js';
import { loggedCaller } from './auth/credentials.js';
import { healthRoute, metricsRoute, readyRoute } from './ops/routes.js';
import { openApiRoute } from './openapi/route.js';
import { SERVICE_VERSION } from './version.js';
import { readYourWrites } from './replicas/headers.js';

export interface AppOptions {
  bodyLimitBytes: number;
  corsOrigins: string[] | null;
  /** Where the built console lives (served at /console/). */
  consoleDir?: string;
  /** Request lines go here; without one, requests are not logged. */
  logger?: Logger;
  reportError?: ErrorReporter;
  trustProxy?: boolean | number | string;
}

/** Builds the HTTP app from the services; it does not listen, so tests mount it directly. */
export function createApp(services: Services, options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // API bodies are small and never cached by intermediaries: an ETag would cost a hash of every body.
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Whose X-Forwarded-For names the client's address (the abuse limits count it): TRUST_PROXY, nobody's by default.
  app.set('trust proxy', options.trustProxy ?? false);

  app.use(requestFrame({ logger: options.logger, corsOrigins: options.corsOrigins, callerOf: loggedCaller, observe: services.telemetry.observe, begin: services.load.begin }));
  app.use(securityHeaders);
  // Basalt-Min-Lsn checked on every request; with read replicas, Basalt-Lsn on every successful write.
  app.use(readYourWrites(services.replicas));

  const shared = { bodyLimitBytes: options.bodyLimitBytes };
  // The record API first: it is the hot path, and every layer in front of it is matched on every request.
  app.use('/api', recordRoutes({ ...services.records, tokens: services.tokens, keys: services.keys, ...shared }));
  app.get('/health', healthRoute(services.telemetry));
  app.get('/ready', readyRoute(services.telemetry));
  // Without METRICS_TOKEN there is no such route: the not-found handler answers 404.
  if (services.telemetry.metricsToken) app.get('/metrics', metricsRoute(services.telemetry.metricsToken, services.telemetry));
  app.get('/openapi.json', openApiRoute({ cache: services.cache, tokens: services.tokens, keys: services.keys, options: { metrics: services.telemetry.metrics !== null, version: SERVICE_VERSION } }));
  app.use('/realtime', realtimeRoutes({ hub: services.hub, capture: services.capture, cache: services.cache, tokens: services.tokens, keys: services.keys, streamsPerCaller: services.streamsPerCaller, maxStreams: services.maxStreams }));
  const consoleDir = options.consoleDir ?? path.join(PROJECT_ROOT, 'console/dist');
  const consolePage: express.RequestHandler = (_req, res, next) => {
    const page = path.join(consoleDir, 'index.html');
    if (!fs.existsSync(page)) {
      next(new ApiError('NOT_FOUND', 'The console is not built: run npm run build'));
      return;
    }
    res.sendFile(page);
  };
  // Mails' links open Basalt's confirm page (a page of the console) when auth.siteUrl is unset; a GET spends nothing.
  app.get(CONFIRM_PAGE, consolePage);
  const files = { files: services.files.service, downloads: services.files.downloads, uploads: services.files.uploads, tokens: services.tokens, keys: services.keys, ...shared };
  app.use('/files', fileRoutes(files));
  app.get('/admin/tables/:name/files/:id', adminFileRoute(files));
  app.use('/auth', authRoutes(services, { ...shared, signupEnabled: services.signupEnabled }));
  app.use('/admin', adminRoutes({ ...services, ...shared, realtime: { hub: services.hub, capture: services.capture, streamsPerCaller: services.streamsPerCaller, maxStreams: services.maxStreams } }));

  app.get('/', (_req, res) => res.redirect(302, '/console/'));
  app.use('/console', express.static(consoleDir, { index: 'index.html', fallthrough: true }));
  // The console routes in the browser: any other path under /console/ gets its page.
  app.get('/console/*splat', consolePage);

  app.use(routeNotFound);
  app.use(errorHandler(options.reportError ?? ((error) => console.error(error))));
  return app;
}
