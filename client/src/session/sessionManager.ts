import type { AuthResult, AuthUser, DataResponse, TokenPair } from '@basalt/contract';
import { ApiError } from '../errors.js';
import type { Http } from '../http.js';
import { isMarkedSpent, markSpent, withLock, type LockManagerLike } from './refreshLock.js';
import { sameSession, sessionFromAuthResult, sessionFromRefresh, type AuthChangeEvent, type Session } from './session.js';
import type { SessionStorage } from './storage.js';
import type { SyncMessage, TabSync } from './tabSync.js';
import { decodeJwtPayload } from './accessToken.js';

export interface SessionManagerOptions {
  http: Http;
  storage: SessionStorage;
  /** Web Locks (or a stand-in); undefined runs refreshes unlocked, relying on the in-page single flight. */
  locks: LockManagerLike | undefined;
  /** Other tabs; undefined outside browsers. */
  sync: TabSync | undefined;
  lockName: string;
  lockTimeoutMs: number;
  refreshTimeoutMs: number;
  refreshMarginMs: number;
  /** How long a refresh that lost a race waits for the winning tab's tokens before it signs out. */
  raceGraceMs: number;
  autoRefresh: boolean;
}

export type AuthChangeListener = (event: AuthChangeEvent, session: Session | null) => void;

const RETRY_AFTER_FAILURE_MS = 10_000;
/** How long a spent refresh token stays marked, and how long a tab that finds the mark waits for the new tokens. */
const SPENT_MARK_MS = 30_000;
const SPENT_WAIT_MS = 5_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

function timeoutSignal(ms: number): AbortSignal {
  if (typeof AbortSignal.timeout === 'function') return AbortSignal.timeout(ms);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms);
  return controller.signal;
}

/**
 * The server answered and said no: the refresh token is unknown, used, expired or revoked, and asking again cannot
 * help. Anything else (no answer, 5xx, 429) is transient, and the session is kept for the next attempt: a user is never
 * signed out because the network blinked.
 */
function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

function isTokenPair(value: unknown): value is TokenPair {
  const pair = value as Partial<TokenPair> | null;
  return typeof pair?.accessToken === 'string' && typeof pair.refreshToken === 'string';
}

/**
 * Owns the session: keeps it in memory and storage, refreshes it before it expires, and makes sure that one token is
 * refreshed once, however many calls in however many tabs need it at the same moment.
 *
 * - In one page, concurrent callers share one refresh promise (single flight).
 * - Across tabs, refreshes run under a Web Lock. Inside it the stored session is read again: if another tab rotated
 *   the token while we waited, its tokens are adopted and no request is made (the old refresh token is spent).
 * - A refresh refused by the server signs out, but first, when the lock did not guarantee exclusivity (stolen lock,
 *   no Web Locks), it waits briefly for the tab that won the race to publish its tokens, and adopts them.
 */
export class SessionManager {
  private session: Session | null = null;
  private inflight: Promise<Session | null> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<AuthChangeListener>();
  private readonly unsubscribeSync: (() => void) | undefined;
  private closed = false;
  /** Set once anything has changed the session, so the initial storage read cannot overwrite a newer state. */
  private changedBeforeReady = false;
  readonly ready: Promise<void>;

  constructor(private readonly options: SessionManagerOptions) {
    this.ready = options.storage.load().then((stored) => {
      if (!this.changedBeforeReady) this.session = stored;
      this.schedule();
    });
    this.unsubscribeSync = options.sync?.subscribe((message) => void this.onOtherTab(message));
  }

  /** The session as known right now, without refreshing. */
  current(): Session | null {
    return this.session;
  }

  onChange(listener: AuthChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * A session whose access token is good to send, refreshing first when it is due. If that refresh fails only
   * transiently while the access token is still valid, the current one is returned: it still works.
   */
  async getSession(): Promise<Session | null> {
    await this.ready;
    const session = this.session;
    if (!session || !this.isDue(session)) return session;
    try {
      return await this.refresh(session);
    } catch (error) {
      if (!isRefusal(error) && this.session === session && session.expiresAt > Date.now()) return session;
      throw error;
    }
  }

  /**
   * Refreshes because `stale` is due or was refused as expired. Returns the newer session when the one in use is
   * already not `stale` (another call or tab refreshed it), null when signed out meanwhile. Throws what the refresh
   * threw; a refusal has signed the client out before the error reaches the caller.
   */
  refresh(stale: Session): Promise<Session | null> {
    const current = this.session;
    if (!current) return Promise.resolve(null);
    if (current.accessToken !== stale.accessToken && current.expiresAt > Date.now()) return Promise.resolve(current);
    this.inflight ??= this.rotate(current).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** After sign-up or sign-in. */
  async establish(result: AuthResult): Promise<Session> {
    this.changedBeforeReady = true;
    await this.ready;
    const session = sessionFromAuthResult(result);
    await this.commit(session, 'signed_in');
    return session;
  }

  /** New tokens for the same user and device (a password change): kept and shared like a refresh. */
  async replaceTokens(pair: TokenPair): Promise<Session | null> {
    await this.ready;
    const previous = this.session;
    if (!previous) return null;
    const session = sessionFromRefresh(previous, pair);
    await this.commit(session, 'refreshed');
    return session;
  }

  /** The same session with the user's new address (a confirmed email change), stored and shared like a refresh. */
  async updateUser(user: AuthUser): Promise<void> {
    await this.ready;
    const previous = this.session;
    if (previous?.user.id !== user.id || previous.user.email === user.email) return;
    await this.commit({ ...previous, user: { ...previous.user, email: user.email } }, 'refreshed');
  }

  /** Forgets the session here and in storage, and tells the other tabs. */
  async forget(): Promise<void> {
    this.changedBeforeReady = true;
    await this.ready;
    const previous = this.session;
    if (!previous) return;
    await this.commit(null, 'signed_out', previous.user.id);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.unsubscribeSync?.();
    this.listeners.clear();
  }

  /** How long before expiry a session is refreshed. */
  private marginFor(session: Session): number {
    // Never more than half the token's life early: a server with short-lived tokens must not cause a refresh loop.
    const claims = decodeJwtPayload(session.accessToken);
    const lifetimeMs =
      typeof claims?.exp === 'number' && typeof claims.iat === 'number' ? (claims.exp - claims.iat) * 1000 : Number.POSITIVE_INFINITY;
    return Math.min(this.options.refreshMarginMs, lifetimeMs / 2);
  }

  private isDue(session: Session): boolean {
    return session.expiresAt - Date.now() <= this.marginFor(session);
  }

  private rotate(stale: Session): Promise<Session | null> {
    const { storage, lockName, lockTimeoutMs } = this.options;
    return withLock(this.options.locks, lockName, lockTimeoutMs, async (lock) => {
      // While we waited for the lock, another tab may have rotated this very token: then it is spent, and the
      // winner's tokens are in storage. Adopting them instead of refreshing is what keeps five tabs signed in.
      let target = stale;
      let stored = await storage.load();
      if (sameSession(stored, stale) && (await isMarkedSpent(this.options.locks, lockName, stale.refreshToken))) {
        // Another tab spent this token a moment ago; its tokens have not reached this tab's copy of storage yet.
        stored = await this.awaitStorageChange(stale, SPENT_WAIT_MS);
      }
      if (!sameSession(stored, stale)) {
        this.adopt(stored);
        if (!stored || !this.isDue(stored)) return stored;
        target = stored;
      }
      let pair: unknown;
      try {
        const response = await this.options.http.send<DataResponse<unknown>>({
          method: 'POST',
          path: '/auth/refresh',
          body: { refreshToken: target.refreshToken },
          credentials: false,
          signal: timeoutSignal(this.options.refreshTimeoutMs),
        });
        pair = response.body.data;
      } catch (error) {
        if (!isRefusal(error)) throw error;
        const winner = await this.awaitWinner(target, !lock.exclusive());
        if (winner) return winner;
        if (sameSession(this.session, target)) await this.commit(null, 'signed_out');
        throw error;
      }
      if (!isTokenPair(pair)) throw new ApiError(502, 'INTERNAL_ERROR', 'The refresh response carried no token pair');
      const next = sessionFromRefresh(target, pair);
      await markSpent(this.options.locks, lockName, target.refreshToken, SPENT_MARK_MS);
      // A sign-in or sign-out that happened during the request wins over this refresh of the old session.
      if (!sameSession(this.session, target)) return this.session;
      await this.commit(next, 'refreshed');
      return next;
    });
  }

  /** The stored session once it is no longer `stale` (or still `stale` after `ms`), woken by other tabs' messages. */
  private async awaitStorageChange(stale: Session, ms: number): Promise<Session | null> {
    const deadline = Date.now() + ms;
    let stored = await this.options.storage.load();
    while (sameSession(stored, stale) && Date.now() < deadline) {
      // Polling too, in case the message arrived before we listened: a storage read is cheap.
      const pause = Math.min(50, deadline - Date.now());
      await (this.options.sync ? this.options.sync.waitForChange(pause) : new Promise((resolve) => setTimeout(resolve, pause)));
      stored = await this.options.storage.load();
    }
    return stored;
  }

  /** After a refusal: tokens another tab stored for the same session, waiting for them when a race was possible. */
  private async awaitWinner(lost: Session, raced: boolean): Promise<Session | null> {
    const stored =
      raced && this.options.sync ? await this.awaitStorageChange(lost, this.options.raceGraceMs) : await this.options.storage.load();
    const winner = stored && !sameSession(stored, lost) && stored.user.id === lost.user.id ? stored : null;
    if (winner) this.adopt(winner);
    return winner;
  }

  /** Our own change: memory, then storage, then the other tabs, then listeners. */
  private async commit(next: Session | null, event: AuthChangeEvent, signedOutUserId?: string): Promise<void> {
    this.session = next;
    this.schedule();
    await this.options.storage.save(next);
    this.options.sync?.publish(signedOutUserId ? { type: 'session-changed', signedOutUserId } : { type: 'session-changed' });
    this.emit(event, next);
  }

  /** A change made elsewhere (another tab, or storage read in the lock): take it without writing it back. */
  private adopt(next: Session | null): void {
    const previous = this.session;
    if (sameSession(previous, next)) return;
    this.session = next;
    this.schedule();
    if (!next) this.emit('signed_out', null);
    else this.emit(previous && previous.user.id === next.user.id ? 'refreshed' : 'signed_in', next);
  }

  private async onOtherTab(message: SyncMessage): Promise<void> {
    await this.ready;
    const stored = await this.options.storage.load();
    if (!sameSession(stored, this.session)) {
      this.adopt(stored);
    } else if (message.signedOutUserId && this.session?.user.id === message.signedOutUserId) {
      // Storage not shared with that tab (storage: false), but the server has ended this user's sessions anyway.
      this.session = null;
      this.schedule();
      this.emit('signed_out', null);
    }
  }

  private emit(event: AuthChangeEvent, session: Session | null): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event, session);
      } catch {
        // A listener's bug must not break the sign-in or refresh that informs it.
      }
    }
  }

  /** Refreshes ahead of expiry, so a request rarely has to wait for one. Timers never keep Node alive. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const session = this.session;
    if (!this.options.autoRefresh || this.closed || !session || !Number.isFinite(session.expiresAt)) return;
    const delay = Math.max(0, session.expiresAt - this.marginFor(session) - Date.now());
    this.timer = setTimeout(() => void this.refreshOnTimer(), Math.min(delay, MAX_TIMER_MS));
    (this.timer as { unref?: () => void }).unref?.();
  }

  private async refreshOnTimer(): Promise<void> {
    try {
      await this.getSession();
    } catch (error) {
      if (isRefusal(error) || this.closed || !this.session) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.refreshOnTimer(), RETRY_AFTER_FAILURE_MS);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }
}
