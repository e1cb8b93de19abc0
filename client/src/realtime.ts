import { ERROR_STATUS, TOKEN_EXPIRED_REASON, parseEvents, type ErrorCode } from '@basalt/contract';
import { ApiError, NetworkError, errorFromResponse } from './errors.js';
import type { Http, QueryValue } from './http.js';

/**
 * Live changes of tables over Server-Sent Events, read with fetch streaming (so the token travels in a header, in
 * browsers and in Node alike). Subscriptions without filters share one connection (`/realtime?tables=a,b`); a
 * filtered one has its own. Every connection reconnects with backoff and resumes after the last event it saw, and
 * refreshes an expired token through the client's one shared refresh: nothing is lost, nothing comes twice.
 */

export type RealtimeEventType = 'insert' | 'update' | 'delete' | 'reset' | 'error';

export interface RealtimeEvent<Row = Record<string, unknown>> {
  type: RealtimeEventType;
  table: string;
  /** insert/update: the row (as `select` asks); delete: `{ id }`. */
  record?: Partial<Row>;
  /** The event id (resume point). */
  id?: string;
  /** `error`: why the subscription ended (403 after a policy change, 401 when signed out). */
  error?: ApiError;
}

export type RealtimeListener<Row> = (event: RealtimeEvent<Row>) => void;

/**
 * Where a subscription's connection is: `open` once the server answered (every change committed from then on is
 * delivered: what a "live" badge should wait for), `reconnecting` while it is down and being retried.
 */
export type RealtimeStatus = 'open' | 'reconnecting';
export type RealtimeStatusListener = (status: RealtimeStatus) => void;

/** Credentials for the next connection, and the refresh to try when the server says the token expired. */
export interface StreamCredentials {
  token(): Promise<string | undefined>;
  /** true when a new token is available (then the connection resumes at once). */
  refresh(expired: string | undefined): Promise<boolean>;
}

interface Listener {
  table: string;
  onEvent: RealtimeListener<Record<string, unknown>>;
  onStatus?: RealtimeStatusListener;
}

const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000];

/** One streaming connection and the listeners it feeds. */
export class Channel {
  readonly listeners = new Set<Listener>();
  private lastEventId: string | undefined;
  private controller: AbortController | undefined;
  private stopped = true;

  constructor(
    private readonly http: Http,
    private readonly credentials: StreamCredentials,
    private readonly path: () => { path: string; query: Record<string, QueryValue | undefined> },
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
  }

  /** Reconnects now (the set of tables changed), resuming after the last event. */
  restart(): void {
    this.controller?.abort();
  }

  private emit(table: string | null, event: RealtimeEvent): void {
    for (const listener of this.listeners) if (table === null || listener.table === table) listener.onEvent(event);
  }

  private status(status: RealtimeStatus): void {
    for (const listener of this.listeners) listener.onStatus?.(status);
  }

  private fail(error: ApiError): void {
    this.stopped = true;
    this.emit(null, { type: 'error', table: '', error });
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      const controller = new AbortController();
      this.controller = controller;
      let token: string | undefined;
      try {
        token = await this.credentials.token();
        const { path, query } = this.path();
        const response = await this.http.open(path, { ...query, lastEventId: this.lastEventId }, token, controller.signal);
        if (!response.ok) {
          const error = errorFromResponse(response.status, await response.json().catch(() => undefined), undefined);
          if (error.status === 401 && error.details?.reason === TOKEN_EXPIRED_REASON && (await this.credentials.refresh(token))) continue;
          if (error.status !== 429 && error.status < 500) return this.fail(error);
          throw error;
        }
        this.status('open');
        for await (const event of parseEvents(response.body!)) {
          attempt = 0;
          const data = JSON.parse(event.data) as { table?: string; record?: Record<string, unknown>; error?: { code: string; message: string; details?: Record<string, unknown> } };
          if (event.event === 'error') {
            const error = errorFromResponse(ERROR_STATUS[data.error?.code as ErrorCode] ?? 500, data);
            if (error.details?.reason === TOKEN_EXPIRED_REASON && (await this.credentials.refresh(token))) break;
            // A process shutting down (503): reconnect, most likely to another one.
            if (error.status >= 500) throw error;
            return this.fail(error);
          }
          if (event.id) this.lastEventId = event.id;
          const type = event.event as RealtimeEventType;
          if (type === 'reset' && !data.table) this.lastEventId = undefined;
          this.emit(data.table ?? null, { type, table: data.table ?? '', ...(data.record ? { record: data.record } : {}), ...(event.id ? { id: event.id } : {}) });
        }
        // The server ended the stream (it shuts down, or the token ran out): resume at once.
        continue;
      } catch (error) {
        if (this.stopped) return;
        if (controller.signal.aborted) continue;
        if (!(error instanceof NetworkError || error instanceof ApiError || error instanceof TypeError)) throw error;
      }
      this.status('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]));
    }
  }
}

/** The client's streams: one shared connection for unfiltered subscriptions, one per filtered one. */
export class Realtime {
  private readonly shared: Channel;

  constructor(
    private readonly http: Http,
    private readonly credentials: StreamCredentials,
  ) {
    this.shared = new Channel(http, credentials, () => ({ path: '/realtime', query: { tables: [...new Set([...this.shared.listeners].map((listener) => listener.table))].join(',') } }));
  }

  subscribe(table: string, query: Record<string, QueryValue | undefined> | null, onEvent: RealtimeListener<Record<string, unknown>>, onStatus?: RealtimeStatusListener): () => void {
    const listener: Listener = { table, onEvent, ...(onStatus ? { onStatus } : {}) };
    if (query === null) {
      const known = [...this.shared.listeners].some((other) => other.table === table);
      this.shared.listeners.add(listener);
      if (this.shared.listeners.size === 1) this.shared.start();
      else if (!known) this.shared.restart();
      return () => {
        this.shared.listeners.delete(listener);
        if (this.shared.listeners.size === 0) this.shared.stop();
        else if (![...this.shared.listeners].some((other) => other.table === table)) this.shared.restart();
      };
    }
    const channel = new Channel(this.http, this.credentials, () => ({ path: `/realtime/${encodeURIComponent(table)}`, query }));
    channel.listeners.add(listener);
    channel.start();
    return () => channel.stop();
  }
}
