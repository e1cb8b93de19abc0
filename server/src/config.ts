import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStorageUrl, type StorageSettings } from './files/storage/settings.js';
import { DEFAULT_LIMITS, LIMIT_NAMES, type LimitName, type Limits } from '@basalt/contract';
import { ConfigError } from './configError.js';
import { parseEmailSettings, type EmailSettings } from './auth/email/settings.js';
import { parseProviders, type ProviderConfig } from './auth/providers/settings.js';

/** Root of the repository (where config.json, migrations/ and .data/ live). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Config {
  production: boolean;
  port: number;
  host: string | undefined;
  /** Unset: the embedded PostgreSQL in `dataDir/postgres`. */
  databaseUrl: string | undefined;
  /** Unset in development: generated once and kept in `dataDir`. */
  jwtSecret: string | undefined;
  /** null: every origin. */
  corsOrigins: string[] | null;
  bcryptCost: number;
  bodyLimitBytes: number;
  logLevel: string;
  dataDir: string;
  workers: number;
  /** Connections of each process's record pool. */
  poolSize: number;
  /** How long one record statement may run (ms) before it is cancelled and answered 504; never index builds. */
  statementTimeoutMs: number;
  /**
   * DATABASE_POOL_MODE: `session` (a direct connection or a session pooler: the timeout is a startup parameter) or
   * `transaction` (behind PgBouncer and the like: no session state, the timeout set per statement's transaction).
   */
  poolMode: PoolMode;
  /** DATABASE_LISTEN_URL: a session connection to the primary for LISTEN, migrations and index builds; unset: the database URL. */
  listenUrl: string | undefined;
  /** Where record reads may go (issue 25): DATABASE_REPLICA_URLS and its companions; null without standbys. */
  replicas: ReplicaConfig | null;
  signupEnabled: boolean;
  /** The abuse limits of config.json; false: all off. */
  limits: Limits | false;
  /** Open realtime streams one process takes (REALTIME_MAX_STREAMS). */
  realtimeMaxStreams: number;
  /** Express's `trust proxy` (TRUST_PROXY): whose `X-Forwarded-For` names the client's address; false: nobody's. */
  trustProxy: boolean | number | string;
  /** METRICS_TOKEN: the bearer token of `GET /metrics`; unset, there are no Prometheus metrics (404). */
  metricsToken: string | undefined;
  /** STORAGE_URL: where files' bytes live (issue 28). */
  storage: StorageSettings;
  /** SMTP_URL, PUBLIC_URL and the `email` and `auth` keys of config.json (issue 26). */
  email: EmailSettings;
  /** `auth.providers` of config.json, with their secrets from the environment (issue 27). */
  providers: ProviderConfig[];
  /** `webhooks` of config.json (issue 29). */
  webhooks: WebhookConfig;
  configPath: string;
}

export { ConfigError };

export interface ReplicaConfig {
  /** DATABASE_REPLICA_URLS: hot standbys of the primary, comma-separated. */
  urls: string[];
  /** REPLICA_WAIT_MS: how long a read waits for a standby to replay what it must see before it goes to the primary. */
  waitMs: number;
  /** REPLICA_MAX_LAG_MS: a standby further behind than this is skipped until it catches up. */
  maxLagMs: number;
  /** REALTIME_FROM_REPLICA: the realtime hub reads the change log from the first healthy standby. */
  realtime: boolean;
}

function parseReplicas(env: NodeJS.ProcessEnv): ReplicaConfig | null {
  const urls = (env.DATABASE_REPLICA_URLS ?? '').split(',').map((url) => url.trim()).filter(Boolean);
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError('DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs');
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new ConfigError('DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs');
  }
  const realtime = parseBoolean(env.REALTIME_FROM_REPLICA, 'REALTIME_FROM_REPLICA');
  if (urls.length === 0) {
    if (realtime) throw new ConfigError('REALTIME_FROM_REPLICA=true needs DATABASE_REPLICA_URLS');
    return null;
  }
  return {
    urls,
    waitMs: parseInteger(env.REPLICA_WAIT_MS, 'REPLICA_WAIT_MS', 20, 0, 60_000),
    maxLagMs: parseInteger(env.REPLICA_MAX_LAG_MS, 'REPLICA_MAX_LAG_MS', 10_000, 1, 3_600_000),
    realtime,
  };
}

function parseBoolean(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

export type PoolMode = 'session' | 'transaction';

function parsePoolMode(value: string | undefined): PoolMode {
  if (value === undefined || value === '' || value === 'session') return 'session';
  if (value === 'transaction') return 'transaction';
  throw new ConfigError(`DATABASE_POOL_MODE must be session or transaction, got "${value}"`);
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

export function parseByteSize(value: string, name: string): number {
  const match = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!match) throw new ConfigError(`${name} must be a number of bytes or a size such as 2mb, got "${value}"`);
  const bytes = Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1);
  if (bytes < 1) throw new ConfigError(`${name} must be at least 1 byte`);
  return bytes;
}

function parseInteger(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be a whole number, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

export interface ProjectConfig {
  signupEnabled: boolean;
  limits: Limits | false;
  /** `email` and `auth` as written: checked by parseEmailSettings, which also needs the environment. */
  email?: unknown;
  auth?: unknown;
  /** `webhooks` (issue 29). */
  webhooks?: WebhookConfig;
}

/** `webhooks` of config.json: `allowPrivateTargets` lets webhooks reach loopback and private addresses (tests, a LAN). */
export interface WebhookConfig {
  allowPrivateTargets: boolean;
}

function parseWebhookConfig(value: unknown, configPath: string): WebhookConfig {
  if (value === undefined) return { allowPrivateTargets: false };
  const known = ['allowPrivateTargets'];
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).some((key) => !known.includes(key))) {
    throw new ConfigError(`${configPath}: "webhooks" must be an object such as { "allowPrivateTargets": false }`);
  }
  const { allowPrivateTargets = false } = value as { allowPrivateTargets?: unknown };
  if (typeof allowPrivateTargets !== 'boolean') throw new ConfigError(`${configPath}: webhooks.allowPrivateTargets must be true or false`);
  return { allowPrivateTargets };
}

/** `limits` of config.json: false, or an object overriding some of the defaults, each `{ max, windowSeconds }`. */
function parseLimits(value: unknown, configPath: string): Limits | false {
  if (value === undefined) return DEFAULT_LIMITS;
  if (value === false) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${configPath}: "limits" must be false or an object such as { "signupsPerAddress": { "max": 100, "windowSeconds": 3600 } }`);
  }
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const [name, limit] of Object.entries(value)) {
    if (name === 'realtimeStreamsPerCaller') {
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new ConfigError(`${configPath}: limits.realtimeStreamsPerCaller must be a whole number from 1 to 100000`);
      limits.realtimeStreamsPerCaller = limit;
      continue;
    }
    if (name === 'storageBytesPerUser') {
      const max = (limit as { max?: unknown } | null)?.max;
      if (typeof limit !== 'object' || limit === null || Object.keys(limit).some((key) => key !== 'max') || typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
        throw new ConfigError(`${configPath}: limits.storageBytesPerUser must be { "max": <bytes, a whole number >= 1> }`);
      }
      limits.storageBytesPerUser = { max };
      continue;
    }
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) throw new ConfigError(`${configPath}: unknown limit "${name}" (known limits: ${LIMIT_NAMES.join(', ')})`);
    const { max, windowSeconds, ...rest } = (limit ?? {}) as Record<string, unknown>;
    const whole = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= 1e9;
    if (typeof limit !== 'object' || limit === null || Object.keys(rest).length > 0 || !whole(max, 1) || !whole(windowSeconds, 1)) {
      throw new ConfigError(`${configPath}: limits.${name} must be { "max": <whole number >= 1>, "windowSeconds": <whole number >= 1> }`);
    }
    limits[name as LimitName] = { max: max as number, windowSeconds: windowSeconds as number };
  }
  return limits;
}

/** TRUST_PROXY: unset or `false` trusts no proxy; `true`, a hop count, or addresses/subnets as Express takes them. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text;
}

/** METRICS_TOKEN: unset or a token Prometheus sends as `Authorization: Bearer <token>` (no spaces, 16+ characters). */
function parseMetricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[\x21-\x7e]{16,}$/.test(value)) throw new ConfigError('METRICS_TOKEN must be at least 16 printable characters without spaces (e.g. openssl rand -hex 32)');
  return value;
}

/** Reads `config.json`; a malformed file stops start-up with a message naming the file and the problem. */
export function readProjectConfig(configPath: string): ProjectConfig {
  let text: string;
  try {
    text = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { signupEnabled: true, limits: DEFAULT_LIMITS };
    throw new ConfigError(`${configPath}: cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${configPath}: is not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${configPath}: must hold a JSON object such as { "signupEnabled": true }`);
  }
  const known = new Set(['signupEnabled', 'limits', 'email', 'auth', 'webhooks']);
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw new ConfigError(`${configPath}: unknown key "${key}" (known keys: ${[...known].join(', ')})`);
  }
  const { signupEnabled = true, limits, email, auth, webhooks } = parsed as { signupEnabled?: unknown; limits?: unknown; email?: unknown; auth?: unknown; webhooks?: unknown };
  if (typeof signupEnabled !== 'boolean') throw new ConfigError(`${configPath}: "signupEnabled" must be true or false`);
  return { signupEnabled, limits: parseLimits(limits, configPath), email, auth, webhooks: parseWebhookConfig(webhooks, configPath) };
}

/** Environment plus config.json, validated once at start-up. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const configPath = path.resolve(env.CONFIG_PATH || path.join(PROJECT_ROOT, 'config.json'));
  const jwtSecret = env.JWT_SECRET || undefined;
  if (production && (!jwtSecret || jwtSecret.length < 32)) {
    throw new ConfigError('JWT_SECRET must be set to at least 32 characters when NODE_ENV=production');
  }
  const workers = parseInteger(env.WORKERS, 'WORKERS', production ? os.availableParallelism() : 1, 1, 64);
  const port = parseInteger(env.PORT, 'PORT', 3000, 0, 65535);
  const project = readProjectConfig(configPath);
  const corsOrigins = env.CORS_ORIGINS?.trim()
    ? env.CORS_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean)
    : null;
  return {
    production,
    port,
    host: env.HOST || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret,
    corsOrigins,
    bcryptCost: parseInteger(env.BCRYPT_COST, 'BCRYPT_COST', 10, 4, 15),
    bodyLimitBytes: env.BODY_LIMIT ? parseByteSize(env.BODY_LIMIT, 'BODY_LIMIT') : 1024 * 1024,
    logLevel: env.LOG_LEVEL || 'info',
    dataDir: path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, '.data')),
    workers,
    // Ten connections per machine by default, shared by its processes: N pools of 10 on one Postgres would run N
    // times as many counts at once and stretch every tail.
    poolSize: parseInteger(env.DB_POOL_SIZE, 'DB_POOL_SIZE', Math.max(2, Math.ceil(10 / workers)), 1, 500),
    statementTimeoutMs: parseInteger(env.STATEMENT_TIMEOUT, 'STATEMENT_TIMEOUT', 10_000, 1, 3_600_000),
    poolMode: parsePoolMode(env.DATABASE_POOL_MODE),
    listenUrl: env.DATABASE_LISTEN_URL || undefined,
    replicas: parseReplicas(env),
    signupEnabled: project.signupEnabled,
    limits: project.limits,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    realtimeMaxStreams: parseInteger(env.REALTIME_MAX_STREAMS, 'REALTIME_MAX_STREAMS', 5000, 1, 1_000_000),
    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    email: parseEmailSettings(project, env, { configPath, production, port }),
    storage: parseStorageUrl(env, path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, '.data'))),
    webhooks: project.webhooks ?? { allowPrivateTargets: false },
    providers: parseProviders((project.auth as { providers?: unknown } | undefined)?.providers, env, configPath),
    configPath,
  };
}
