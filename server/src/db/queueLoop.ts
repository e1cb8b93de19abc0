/**
 * The background worker of a queue kept in Postgres (the mail outbox, webhook deliveries): rounds run one at a time, a
 * kick during a round gets one more after it, a round that says more may be due runs again at once, and a poll every
 * `pollMs` catches what no kick announced (another process's work, a retry's time coming). `ready` may hold rounds
 * back (not started yet, nothing enabled, giving way to requests): the poll looks again.
 */
export class QueueLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    /** One round; answers whether another should follow at once. */
    private readonly round: () => Promise<boolean>,
    private readonly options: { pollMs: number; ready?: () => boolean; onError?: (error: unknown) => void },
  ) {}

  start(): void {
    const tick = () => {
      this.kick();
      this.timer = setTimeout(tick, this.options.pollMs);
      this.timer.unref();
    };
    tick();
  }

  /** A round now (or right after the running one). */
  kick(): void {
    if (this.stopped || !this.ready()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rounds().finally(() => (this.running = null));
  }

  private ready(): boolean {
    return this.options.ready?.() ?? true;
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      try {
        if (await this.round()) this.again = true;
      } catch (error) {
        this.options.onError?.(error);
      }
    } while (this.again && !this.stopped && this.ready());
  }

  /** No more rounds; answers when the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
