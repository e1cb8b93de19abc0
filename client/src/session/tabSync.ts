/** What one tab tells the others after it changed the session. Tokens never travel here: storage holds them. */
export interface SyncMessage {
  type: 'session-changed';
  /** Set on sign-out: the server ended every session of this user, so tabs holding one of them sign out too. */
  signedOutUserId?: string;
}

interface StorageEventLike {
  key: string | null;
  storageArea: unknown;
}

interface EventTargetLike {
  addEventListener(type: 'storage', listener: (event: StorageEventLike) => void): void;
  removeEventListener(type: 'storage', listener: (event: StorageEventLike) => void): void;
}

interface ChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  unref?: () => void;
}

function isSyncMessage(value: unknown): value is SyncMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'session-changed';
}

/**
 * Tells the other tabs of this origin that the session changed, and hears them. Two channels, because each misses
 * cases: `storage` events fire only for localStorage and only in other documents; a BroadcastChannel works with any
 * adapter (an IndexedDB one, say) but not in every browser. Receivers re-read storage, so a duplicate is harmless.
 */
export class TabSync {
  private readonly listeners = new Set<(message: SyncMessage) => void>();
  private readonly channel: ChannelLike | undefined;
  private readonly onStorage: ((event: StorageEventLike) => void) | undefined;

  constructor(
    channelName: string,
    storageKey: string,
    /** The Storage object whose events concern us (our adapter, when it is the browser's localStorage). */
    storageArea: unknown,
    private readonly target: EventTargetLike | undefined = (globalThis as { window?: EventTargetLike }).window,
    createChannel: ((name: string) => ChannelLike) | undefined = typeof BroadcastChannel === 'function'
      ? (name) => new BroadcastChannel(name) as unknown as ChannelLike
      : undefined,
  ) {
    try {
      this.channel = createChannel?.(channelName);
    } catch {
      this.channel = undefined;
    }
    if (this.channel) {
      // Node has BroadcastChannel too; it must not keep a script alive.
      this.channel.unref?.();
      this.channel.onmessage = (event) => {
        if (isSyncMessage(event.data)) this.deliver(event.data);
      };
    }
    if (this.target && storageArea) {
      this.onStorage = (event) => {
        // key null: storage.clear() in another tab, which removed our session too.
        if (event.storageArea === storageArea && (event.key === storageKey || event.key === null)) {
          this.deliver({ type: 'session-changed' });
        }
      };
      this.target.addEventListener('storage', this.onStorage);
    }
  }

  publish(message: SyncMessage): void {
    try {
      this.channel?.postMessage(message);
    } catch {
      // A closed channel (page unloading) has nobody left to tell.
    }
  }

  subscribe(listener: (message: SyncMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves at the next message from another tab, or after `ms`, whichever comes first. */
  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, ms);
      const unsubscribe = this.subscribe(done);
    });
  }

  close(): void {
    this.listeners.clear();
    if (this.channel) {
      this.channel.onmessage = null;
      this.channel.close();
    }
    if (this.target && this.onStorage) this.target.removeEventListener('storage', this.onStorage);
  }

  private deliver(message: SyncMessage): void {
    for (const listener of [...this.listeners]) listener(message);
  }
}
