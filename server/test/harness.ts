import type { EmailSettings } from '../src/auth/email/settings.js';
import type { ProviderConfig } from '../src/auth/providers/settings.js';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { StorageSettings } from '../src/files/storage/settings.js';
import pg from 'pg';
import supertest from 'supertest';
import type { Limits } from '@basalt/contract';
import { pooledConnection } from '../../test-support/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { createApp } from '../src/app.js';
import { createServices, type Services } from '../src/services.js';
import { createHttpServer } from '../src/http/server.js';
import type { ReplicaConfig, WebhookConfig } from '../src/config.js';

export { freePort } from '../../test-support/ports.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';

export interface Harness {
  url: string;
  services: Services;
  database: TestDatabase;
  request: () => supertest.Agent;
  /** A connection of its own to the harness's database, as psql would be (closed with the harness). */
  sql(): Promise<pg.Client>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  signupEnabled?: boolean;
  bodyLimitBytes?: number;
  corsOrigins?: string[] | null;
  /** Use this database instead of a fresh one (it is not dropped on close). */
  database?: TestDatabase;
  /** false: this instance hears no schema notifications (only the schema-version guard keeps it right). */
  listen?: boolean;
  /** STATEMENT_TIMEOUT of the record pool, in ms. */
  statementTimeoutMs?: number;
  /** Connections of the record pool. */
  poolSize?: number;
  /** The abuse limits; default: the contract's defaults. */
  limits?: Limits | false;
  trustProxy?: boolean | number | string;
  /** METRICS_TOKEN: set, `GET /metrics` answers with this bearer token. */
  metricsToken?: string;
  /** The record pool's and Knex's database URL instead of the database's own (a pooler in front of it). */
  databaseUrl?: string;
  /** DATABASE_POOL_MODE. */
  poolMode?: 'session' | 'transaction';
  /** DATABASE_LISTEN_URL. */
  listenUrl?: string;
  /** DATABASE_REPLICA_URLS and its companions. */
  replicas?: ReplicaConfig;
  /** SMTP_URL, PUBLIC_URL, `email` and `auth` of config.json (issue 26); default: no SMTP. */
  email?: EmailSettings;
  /** `auth.providers` of config.json (issue 27). */
  providers?: ProviderConfig[];
  /** NODE_ENV=production as services see it (signed links then need PUBLIC_URL). */
  production?: boolean;
  /** JWT_SECRET; default TEST_SECRET. */
  jwtSecret?: string;
  /** STORAGE_URL's settings; default: a fresh temporary directory per harness (removed on close). */
  storage?: StorageSettings;
  /** Listen on this port (a provider must know Basalt's callback before it starts); default: any free one. */
  port?: number;
  /** `webhooks` of config.json (issue 29); default: private targets refused. */
  webhooks?: WebhookConfig;
}

/**
 * How the harness reaches its database: as the options say, else through the run's pooler when there is one
 * (TEST_THROUGH_POOLER=1, test-support/globalSetup.ts), else directly.
 */
function connectionOf(options: HarnessOptions, database: TestDatabase): { databaseUrl: string; poolMode?: 'session' | 'transaction'; listenUrl?: string } {
  if (options.databaseUrl) return { databaseUrl: options.databaseUrl, poolMode: options.poolMode, listenUrl: options.listenUrl };
  const pooled = pooledConnection(database);
  if (pooled) return pooled;
  return { databaseUrl: database.url, poolMode: options.poolMode, listenUrl: options.listenUrl };
}

/**
 * The app on its own fresh database (created, migrated, dropped), listening on a free port: requests are real HTTP,
 * so races are real races.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = options.database ?? (await createTestDatabase());
  const storage = options.storage ?? { driver: 'file' as const, directory: await mkdtemp(path.join(os.tmpdir(), 'basalt-files-')) };
  const services = await createServices({
    jwtSecret: options.jwtSecret ?? TEST_SECRET,
    bcryptCost: 4,
    ...connectionOf(options, database),
    signupEnabled: options.signupEnabled ?? true,
    listen: options.listen,
    statementTimeoutMs: options.statementTimeoutMs,
    poolSize: options.poolSize,
    limits: options.limits,
    metricsToken: options.metricsToken,
    replicas: options.replicas,
    email: options.email,
    providers: options.providers,
    storage,
    production: options.production,
    webhooks: options.webhooks,
  });
  const app = createApp(services, {
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    corsOrigins: options.corsOrigins ?? null,
    trustProxy: options.trustProxy,
    reportError: (error) => console.error('unexpected server error:', error),
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: pg.Client[] = [];
  return {
    url,
    services,
    database,
    request: () => supertest.agent(url),
    async sql() {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.end()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      if (!options.storage && storage.driver === 'file') await rm(storage.directory, { recursive: true, force: true });
      if (!options.database) await database.drop();
    },
  };
}

export interface Account {
  id: string;
  email: string;
  role: 'owner' | 'member';
  accessToken: string;
  refreshToken: string;
  auth: { Authorization: string };
}

let counter = 0;

export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}@example.test`;
}

export async function signUp(h: Harness, email = uniqueEmail(), password = 'correct horse'): Promise<Account> {
  const response = await h.request().post('/auth/signup').send({ email, password });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${JSON.stringify(response.body)}`);
  const { user, accessToken, refreshToken } = response.body.data;
  return { ...user, accessToken, refreshToken, auth: { Authorization: `Bearer ${accessToken}` } };
}

export function anonHeaders(h: Harness): { apikey: string } {
  return { apikey: h.services.tokens.anonKey };
}

/** Creates a table through the admin API as the owner. */
export async function createTable(h: Harness, owner: Account, body: Record<string, unknown>): Promise<void> {
  const response = await h.request().post('/admin/tables').set(owner.auth).send(body);
  if (response.status !== 201) throw new Error(`create table failed: ${response.status} ${JSON.stringify(response.body)}`);
}

/** Asserts the documented error envelope and returns it. */
export function errorOf(response: supertest.Response): { code: string; message: string; details?: Record<string, unknown> } {
  const error = (response.body as { error?: { code: string; message: string; details?: Record<string, unknown> } }).error;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
    throw new Error(`not an error envelope: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return error;
}
