import { AdminClient } from './admin.js';
import { AuthClient } from './auth.js';
import { Bucket, DEFAULT_RESUMABLE_ABOVE, type FilesContext } from './files.js';
import { Http, type FetchLike } from './http.js';
import { Realtime, type StreamCredentials } from './realtime.js';
import { webLocks, type LockManagerLike } from './session/refreshLock.js';
import { SessionManager } from './session/sessionManager.js';
import { ProviderRedirects } from './providers.js';
import { SessionStorage, browserLocalStorage, resolveStorage, type StorageAdapter } from './session/storage.js';
import { TabSync } from './session/tabSync.js';
import { TableClient } from './tableClient.js';
import { authorizedExchange, bearerExchange, bodiesOf, publicSender, type Exchange, type Send } from './transport.js';
import type { InsertOf, Relations, RelationshipsOf, RowOf, TableName, UntypedDatabase, UpdateOf } from './types.js';

export interface ClientOptions {
  /**
   * Where the session is kept: omitted, the browser's localStorage where it works, else memory; an adapter with
   * `getItem`/`setItem`/`removeItem` (sync or async, e.g. React Native's AsyncStorage); `false`, memory only.
   */
  storage?: StorageAdapter | false;
  /** The key the session is stored under. Default: derived from the service URL, `basalt.auth.<host><path>`. */
  storageKey?: string;
  /** A custom fetch (tests, server runtimes, instrumentation). Default: the global fetch. */
  fetch?: FetchLike;
  /** Refresh the access token on a timer shortly before it expires. Default true; requests refresh when due anyway. */
  autoRefresh?: boolean;
  /** How long before expiry the access token is refreshed. Default 60 s (at most half the token's lifetime). */
  refreshMarginSeconds?: number;
  /** How long a tab waits for another tab's refresh before it steals the lock. Default 10 s. */
  lockTimeoutMs?: number;
  /** Cross-tab lock. Default `navigator.locks` where it exists; `false` for none; tests pass a stand-in. */
  locks?: LockManagerLike | false;
  /** Coordinate with other tabs (BroadcastChannel, storage events). Default: true in browsers. */
  multiTab?: boolean;
  /**
   * An API key (`bsk_...`, from `auth.keys.create`): every record call carries it instead of a session, for scripts
   * and servers. It acts as its user under the same policies; /auth and /admin refuse it.
   */
  apiKey?: string;
  /**
   * Uploads larger than this many bytes are resumable (tus) unless the call says `resumable`. Default 6 MiB: below
   * it one request is cheaper than tus's three and a retry costs little. `Infinity`: never; `0`: always.
   */
  resumableAbove?: number;
}

const REFRESH_TIMEOUT_MS = 8_000;
const RACE_GRACE_MS = 3_000;

function defaultStorageKey(url: string): string {
  try {
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    const parsed = new URL(url, base);
    return `basalt.auth.${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return `basalt.auth.${url}`;
  }
}

function defaultFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') throw new TypeError('No global fetch: pass options.fetch');
  // Called through a wrapper: a detached `window.fetch` throws "Illegal invocation" in browsers.
  return (input, init) => globalThis.fetch(input, init);
}

/** The client of one Basalt project. `DB` is the generated `Database` type; without it, tables are untyped. */
export class BasaltClient<DB = UntypedDatabase> {
  readonly auth: AuthClient;
  readonly admin: AdminClient<DB>;
  /** The key the session is stored under. */
  readonly storageKey: string;
  private readonly exchange: Exchange;
  private readonly send: Send;
  private readonly sessions: SessionManager;
  private readonly sync: TabSync | undefined;
  private readonly realtime: Realtime;
  private readonly files: FilesContext;

  constructor(
    readonly url: string,
    anonKey?: string,
    options: ClientOptions = {},
  ) {
    const http = new Http(url, anonKey || undefined, options.fetch ?? defaultFetch());
    this.storageKey = options.storageKey ?? defaultStorageKey(url);
    const localStorageArea = browserLocalStorage();
    const adapter = resolveStorage(options.storage, localStorageArea);
    const isBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
    this.sync =
      (options.multiTab ?? isBrowser)
        ? new TabSync(`basalt.auth:${this.storageKey}`, this.storageKey, adapter === localStorageArea ? adapter : undefined)
        : undefined;
    this.sessions = new SessionManager({
      http,
      storage: new SessionStorage(adapter, this.storageKey),
      locks: options.locks === false ? undefined : (options.locks ?? webLocks()),
      sync: this.sync,
      // One lock per stored session: two projects on one origin never wait for each other.
      lockName: `basalt.auth:${this.storageKey}`,
      lockTimeoutMs: options.lockTimeoutMs ?? 10_000,
      refreshTimeoutMs: REFRESH_TIMEOUT_MS,
      refreshMarginMs: (options.refreshMarginSeconds ?? 60) * 1000,
      raceGraceMs: RACE_GRACE_MS,
      autoRefresh: options.autoRefresh ?? true,
    });
    this.exchange = options.apiKey ? bearerExchange(http, options.apiKey) : authorizedExchange(http, this.sessions);
    this.send = bodiesOf(this.exchange);
    const sendAs = (accessToken: string) => bodiesOf(bearerExchange(http, accessToken));
    this.auth = new AuthClient(this.sessions, this.send, publicSender(http), sendAs, new ProviderRedirects(url, adapter, `${this.storageKey}.pkce`, this.send));
    const apiKey = options.apiKey;
    const credentials: StreamCredentials = apiKey
      ? { token: async () => apiKey, refresh: async () => false }
      : {
          token: async () => (await this.sessions.getSession())?.accessToken,
          refresh: async (expired) => {
            const current = this.sessions.current();
            if (!current) return false;
            const next = await this.sessions.refresh(current).catch(() => null);
            return next !== null && next.accessToken !== expired;
          },
        };
    this.realtime = new Realtime(http, credentials);
    this.admin = new AdminClient<DB>(this.exchange, http, credentials);
    this.files = { http, send: this.send, credentials, resumableAbove: options.resumableAbove ?? DEFAULT_RESUMABLE_ABOVE, publicity: new Map() };
  }

  /**
   * The record API of a table: `list`, `get`, `create`, `upsert`, `delete`, typed by the `Database` type; for a bucket
   * (a table of kind `files`) also `upload`, `replace`, `download`, `url` and `sign`.
   */
  from<T extends TableName<DB>>(table: T): TableClient<RowOf<DB[T]>, InsertOf<DB[T]>, UpdateOf<DB[T]>, Relations<DB, RelationshipsOf<DB[T]>>> {
    return new TableClient(this.exchange, `/api/${encodeURIComponent(table)}`, { realtime: this.realtime, table }, new Bucket<RowOf<DB[T]>>(this.files, table));
  }

  /**
   * The project's OpenAPI 3.1 document as the caller may use it (anon: public-read tables; a member or key: what their
   * policies allow; the owner: everything, /admin included). The bare document, parsed; its shape is OpenAPI's.
   */
  openapi(): Promise<Record<string, unknown>> {
    return this.send<Record<string, unknown>>({ method: 'GET', path: '/openapi.json' });
  }

  /** Stops the refresh timer and the cross-tab listeners; the stored session stays. */
  close(): void {
    this.sessions.close();
    this.sync?.close();
  }
}

/**
 * Creates the client of a project. `anonKey` may be omitted where only auth endpoints and signed-in calls are used
 * (the console signs in as the owner and needs none).
 */
export function createClient<DB = UntypedDatabase>(url: string, anonKey?: string, options?: ClientOptions): BasaltClient<DB> {
  return new BasaltClient<DB>(url, anonKey, options);
}
