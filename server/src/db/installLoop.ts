/**
 * A job that brings the database in line with the schema cache after each load (the realtime capture triggers, the
 * counting triggers): a call while a run is under way gets one more run after it (that run may have looked before the
 * newest tables existed), and a run that met a lock held too long asks to be tried again shortly. Subclasses say what
 * one run does (`install`).
 */
export abstract class InstallLoop {
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly retryMs = 5_000,
  ) {}

  /** One run: install what the loaded schema lacks. */
  protected abstract install(): Promise<void>;

  /** Installs what is missing (a call during a run gets one more run after it). */
  ensure(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.install().catch(this.onError);
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /** The run under way, if any (tests wait for it; a stop waits for it to end). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  protected retryLater(): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.ensure(), this.retryMs);
    this.retry.unref();
  }

  /** No more runs or retries (a run under way ends as it is: `settled` waits for it). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }
}
