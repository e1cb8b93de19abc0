import path from 'node:path';
import { PROJECT_ROOT, type PoolMode, type ReplicaConfig } from './config.js';
import { createFiles, type Files } from './files/wiring.js';
import { createAuth } from './auth/wiring.js';
import type { StorageSettings } from './files/storage/settings.js';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Limits } from '@basalt/contract';
import { DEFAULT_LIMITS } from '@basalt/contract';
import type { AccountService } from './auth/accounts.js';
import type { AbuseLimiter } from './auth/limits.js';
import type { AuthSweeper } from './auth/sweep.js';
import type { KeyService } from './auth/keys/service.js';
import type { PasswordChanges } from './auth/passwordChanges.js';
import type { SessionStore } from './auth/sessions.js';
import { PasswordHasher } from './auth/passwords.js';
import type { TokenService } from './auth/tokens.js';
import { createKnex } from './db/knex.js';
import { createRecordPool } from './db/recordPool.js';
import { MAX_PREPARED_PER_CONNECTION, PreparedPool } from './db/preparedPool.js';
import { prepareDatabase } from './db/prepare.js';
import { listenForSchemaChanges, SCHEMA_CHANNEL, type SchemaListener } from './db/notifications.js';
import { SchemaCache } from './db/schemaCache.js';
import { cursorKeyFrom, type RecordDeps } from './records/index.js';
import { TableAdmin } from './admin/tables.js';
import { Hub } from './realtime/hub.js';
import { ChangeTrimmer, RETENTION_MS } from './realtime/trim.js';
import { Telemetry } from './ops/telemetry.js';
import { TriggerPlacement } from './tracking/place.js';
import { CaptureSwitch } from './tracking/capture.js';
import { OwnerIndexUpgrade } from './admin/ownerIndexes.js';
import { FirstCount } from './tracking/count.js';
import { Replicas } from './replicas/router.js';
import { CountFolder } from './tracking/fold.js';
import type { EmailService } from './auth/email/service.js';
import type { Mfa } from './auth/mfa/service.js';
import type { ProvidersService } from './auth/providers/service.js';
import type { ProviderConfig } from './auth/providers/settings.js';
import type { EmailSettings } from './auth/email/settings.js';
import type { WebhookConfig } from './config.js';
import { createWebhooks, type Webhooks } from './webhooks/wiring.js';
import { RequestLoad } from './ops/load.js';

export interface ServiceOptions {
  databaseUrl: string;
  jwtSecret: string;
  bcryptCost: number;
  signupEnabled: boolean;
  /** The abuse limits (config.json); default: the contract's defaults; false: off. */
  limits?: Limits | false;
  /** Open realtime streams one process takes (REALTIME_MAX_STREAMS); default 5000. */
  realtimeMaxStreams?: number;
  poolSize?: number;
  /** STATEMENT_TIMEOUT of the record pool (ms); default 10 s. Index builds and migrations run on Knex, without it. */
  statementTimeoutMs?: number;
  /** DATABASE_POOL_MODE (config.ts); default `session`. */
  poolMode?: PoolMode;
  /** DATABASE_LISTEN_URL: LISTEN, migrations and the owner-index upgrade's session lock; default `databaseUrl`. */
  listenUrl?: string;
  /** DATABASE_REPLICA_URLS and its companions: record reads may go to these standbys. */
  replicas?: ReplicaConfig | null;
  /** false: do not LISTEN for schema changes (tests of the version guard alone). */
  listen?: boolean;
  /** false: migrations and the DDL trigger were already done (by a cluster primary before it forked). */
  prepare?: boolean;
  /** Reports errors that are not answered to a client (listener drops, unexpected failures). */
  onError?: (error: unknown) => void;
  /** Notes on work the process did by itself (an index rebuilt at start-up). */
  log?: (message: string) => void;
  /** METRICS_TOKEN: set, the process keeps Prometheus metrics for `GET /metrics`. */
  metricsToken?: string;
  /** SMTP_URL, PUBLIC_URL, `email` and `auth` of config.json; default: no SMTP, verification optional. */
  email?: EmailSettings;
  /** `auth.providers`: identity providers by OpenID Connect discovery (auth/providers); default none. */
  providers?: ProviderConfig[];
  /** Outside production: each mail kept unsent (no SMTP) has its link logged. */
  announceMail?: (message: string) => void;
  /** STORAGE_URL: where files' bytes live; default the local directory `.data/files`. */
  storage?: StorageSettings;
  /** NODE_ENV=production: signed links need PUBLIC_URL set (a default localhost URL would be a broken link). */
  production?: boolean;
  /** `webhooks` of config.json; default: private targets refused. */
  webhooks?: WebhookConfig;
}

/** The domain parts of one process, wired together; the HTTP app is built on top by `createApp`. */
export interface Services {
  knex: Knex;
  /** The record API's pool: prepared statements, no query builder on the hot path. */
  pool: pg.Pool;
  /** The read replicas and where each read goes (DATABASE_REPLICA_URLS), or null without any. */
  replicas: Replicas | null;
  cache: SchemaCache;
  tokens: TokenService;
  passwords: PasswordHasher;
  accounts: AccountService;
  sessions: SessionStore;
  passwordChanges: PasswordChanges;
  keys: KeyService;
  limiter: AbuseLimiter;
  /** Mails: the outbox and its sender, verification, recovery, sign-in by email, invites (auth/email). */
  email: EmailService;
  /** The second factor: TOTP, recovery codes, the sign-in step (auth/mfa). */
  mfa: Mfa;
  /** Identity providers: discovery, the redirect flow, native id tokens, identities (auth/providers). */
  providers: ProvidersService;
  /** Deletes ended limit windows, expired sessions and reset tokens (auth/sweep.ts). */
  sweeper: AuthSweeper;
  /** The write triggers' installer (change capture for realtime and count deltas, tracking/). */
  placement: TriggerPlacement;
  /** Capture on demand: a table's changes are logged while somebody streams it. */
  capture: CaptureSwitch;
  /** Rebuilds owner-column indexes made before they were on (owner, id), at start-up. */
  ownerIndexes: OwnerIndexUpgrade;
  hub: Hub;
  /** Deletes changes past their retention (every minute, subscribers or not). */
  trimmer: ChangeTrimmer;
  /** Exact counts: the installer (tables made with psql, owner columns changed) and the background fold. */
  /** Completes the maintained counts of tables whose triggers just went on. */
  counting: FirstCount;
  folder: CountFolder;
  /** Request counts for the owner's overview and Prometheus, readiness. */
  telemetry: Telemetry;
  /** Open realtime streams per caller (limits.realtimeStreamsPerCaller) and per process. */
  streamsPerCaller: number;
  maxStreams: number;
  /** What the record pipeline runs on: the record pool, the schema cache, and the account check of writes. */
  records: RecordDeps;
  tables: TableAdmin;
  /** Buckets' bytes: uploads, downloads, signed links, transforms, the sweep (files/). */
  files: Files;
  /** The owner's webhooks, the queue filled from the change log and its delivery (webhooks/). */
  webhooks: Webhooks;
  /** How busy the process is with requests (the request frame counts them). */
  load: RequestLoad;
  signupEnabled: boolean;
  close(): Promise<void>;
}

/** Connects, migrates, loads the schema cache and starts listening for schema changes. */
export async function createServices(options: ServiceOptions): Promise<Services> {
  // Knex serves accounts, admin and migrations; the record API has its own pool of plain pg clients.
  const knex = createKnex(options.databaseUrl, { poolSize: Math.min(5, options.poolSize ?? 5) });
  const transactionPooled = options.poolMode === 'transaction';
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  // What needs a session (migrations, the owner-index upgrade's advisory lock) runs on the listen URL's connections:
  // two, since the upgrade holds its lock on one while its builds run on the other.
  const sessionKnex = options.listenUrl !== undefined && options.listenUrl !== options.databaseUrl ? createKnex(options.listenUrl, { poolSize: 2 }) : knex;
  const recordPool = (max: number) => {
    const made = createRecordPool(options.databaseUrl, { max, connectionTimeoutMs: 5_000, statementTimeoutMs, transactionPooled });
    // An idle client whose connection dropped emits here; the pool replaces it on the next checkout.
    made.on('error', (error) => options.onError?.(error));
    return made;
  };
  const pool = recordPool(options.poolSize ?? 10);
  // Webhooks read the log and rows back on two connections of their own: a backlog never makes a request wait.
  const webhookPool = recordPool(2);
  let listener: SchemaListener | undefined;
  let replicas: Replicas | null = null;
  const passwords = new PasswordHasher(options.bcryptCost);
  try {
    if (options.prepare !== false) await prepareDatabase(sessionKnex, options.listenUrl ?? options.databaseUrl);
    // With standbys, each schema load notes the primary's position: a standby must have replayed it to serve reads.
    const cache = new SchemaCache(knex, Boolean(options.replicas));
    const placement = new TriggerPlacement(knex, cache, options.onError);
    const counting = new FirstCount(knex, cache, options.onError);
    // Every load may show a table without its write triggers (made with psql a moment ago): they go on at once. A big
    // table's first count runs in the background: its lists count their rows until it is in.
    const reload = () => {
      cache
        .reload()
        .then(() => placement.ensure())
        .then(() => void counting.ensure())
        .catch((error: unknown) => options.onError?.(error));
    };
    if (options.listen !== false) {
      listener = await listenForSchemaChanges(options.listenUrl ?? options.databaseUrl, reload, options.onError);
      // A LISTEN through a transaction pooler hears nothing: refuse to start rather than miss every schema change.
      await listener.confirm((payload) => knex.raw('SELECT pg_notify(?, ?)', [SCHEMA_CHANNEL, payload]).then(() => undefined));
    }
    await cache.reload();
    await placement.ensure();
    void counting.ensure();
    const ownerIndexes = new OwnerIndexUpgrade(sessionKnex, options.log ?? (() => undefined), options.onError);
    ownerIndexes.start(cache.servedTables());
    const folder = new CountFolder(knex, options.onError);
    folder.start();
    const { tokens, limiter, sweeper, sessions, keys, mfa, accounts, passwordChanges, email, providers } = await createAuth(knex, cache, passwords, options);
    await providers.start();
    const current = listener;
    // Capture stays on a minute past the retention after the last subscriber left: a resume within it misses nothing.
    const capture = new CaptureSwitch(knex, cache, RETENTION_MS + 60_000, options.onError);
    capture.start();
    const primaryRecords = new PreparedPool(pool, MAX_PREPARED_PER_CONNECTION, transactionPooled ? statementTimeoutMs : null);
    const replicaSet = options.replicas
      ? new Replicas(pool, primaryRecords, { ...options.replicas, poolSize: options.poolSize ?? 10, statementTimeoutMs, transactionPooled, onError: options.onError })
      : null;
    replicas = replicaSet;
    await replicaSet?.start();
    const hub = new Hub({
      pool,
      // REALTIME_FROM_REPLICA: the log is read from the first standby in use (trim, counts and captures stay on the primary).
      ...(replicaSet && options.replicas?.realtime ? { changeSource: () => replicaSet.inUse()[0]?.pool ?? null } : {}),
      cache,
      confirmCaller: (caller) => keys.confirm(caller),
      keepCaptured: (tables) => capture.keep(tables),
      capturedSince: (tables) => capture.since(tables),
      onError: options.onError,
    });
    // Requests in flight (streams not counted): background work gives way while there are many (ops/load.ts).
    const load = new RequestLoad(() => hub.size);
    load.start();
    const trimmer = new ChangeTrimmer(pool, options.onError);
    trimmer.start();
    const records: RecordDeps = {
      confirmCaller: (caller) => keys.confirm(caller),
      pool: primaryRecords,
      ...(replicaSet ? { readPool: (needs: Parameters<Replicas['readPool']>[0]) => replicaSet.readPool(needs) } : {}),
      cache,
      isStale: (since) => cache.isStale(since),
      userExists: (userId) => accounts.userExists(userId),
      cursorKey: cursorKeyFrom(options.jwtSecret),
      referencingColumn: (table, constraint) => {
        const column = cache.any(table)?.columnList.find((candidate) => candidate.references?.constraint === constraint);
        return column ? `${table}.${column.name}` : undefined;
      },
    };
    const storage = options.storage ?? { driver: 'file' as const, directory: path.join(PROJECT_ROOT, '.data', 'files') };
    const files = await createFiles({ knex, cache, records, limiter, limits: options.limits ?? DEFAULT_LIMITS, jwtSecret: options.jwtSecret, storage, publicUrl: () => (options.production && email.settings.publicUrlIsDefault ? null : email.settings.publicUrl), onError: options.onError });
    records.deleted = (table, id) => void files.service.deleted(table, id).catch((error: unknown) => options.onError?.(error));
    const webhooks = createWebhooks({
      knex, pool: webhookPool, cache, busy: () => load.busy, jwtSecret: options.jwtSecret, config: options.webhooks ?? { allowPrivateTargets: false }, onError: options.onError,
      captureProblem: (table) => placement.problem(table),
      holdCapture: (tables) => capture.hold(tables),
    });
    return {
      knex,
      pool,
      replicas: replicaSet,
      cache,
      tokens,
      passwords,
      accounts,
      sessions,
      passwordChanges,
      keys,
      limiter,
      email,
      mfa,
      providers,
      sweeper,
      placement,
      capture,
      ownerIndexes,
      hub,
      trimmer,
      counting,
      folder,
      telemetry: new Telemetry({
        knex,
        pool,
        cache,
        passwords,
        hub,
        replicas: replicaSet,
        metricsToken: options.metricsToken,
        mail: { counts: email.counts, backlog: () => email.outbox.backlog() },
        webhooks: { counts: webhooks.counts, backlog: () => webhooks.backlog() },
      }),
      streamsPerCaller: (options.limits || DEFAULT_LIMITS).realtimeStreamsPerCaller,
      maxStreams: options.realtimeMaxStreams ?? 5000,
      records,
      files,
      webhooks,
      load,
      tables: new TableAdmin(knex, cache, (table) => placement.problem(table), (table, column) => webhooks.service.filterReading(table, column)),
      signupEnabled: options.signupEnabled,
      async close() {
        hub.close();
        load.stop();
        await webhooks.close();
        counting.stop();
        placement.stop();
        capture.stop();
        ownerIndexes.stop();
        await folder.stop();
        await trimmer.stop();
        await sweeper.stop();
        await files.close();
        await email.stop();
        providers.stop();
        await Promise.all([counting.settled(), placement.settled()]);
        await current?.close();
        await replicaSet?.close();
        await passwords.close();
        await Promise.all([knex.destroy(), pool.end(), webhookPool.end(), sessionKnex !== knex ? sessionKnex.destroy() : undefined]);
      },
    };
  } catch (error) {
    await listener?.close();
    await replicas?.close();
    await passwords.close();
    await Promise.all([knex.destroy(), pool.end(), webhookPool.end(), sessionKnex !== knex ? sessionKnex.destroy() : undefined]);
    throw error;
  }
}
