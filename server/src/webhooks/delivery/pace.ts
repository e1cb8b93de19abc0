/**
 * Webhooks give way to requests (issue 29: writes keep their rate with a webhook on; deliveries may lag). While the
 * process is busy (ops/load.ts: many requests in flight), the enqueuer and the deliverer pause: the log holds every
 * change not queued yet (enqueue.ts) and the queue every delivery not made. The lag this makes is bounded: after
 * MAX_YIELD_MS of giving way they catch up at full speed, beside the requests, until an enqueue round finds nothing
 * new in the log and then the deliverer finds nothing due; then they give way again. When the load drops they go on at once.
 */

export const MAX_YIELD_MS = 10_000;

export class Pace {
  /** Giving way since (while busy), null when not. */
  private yieldingSince: number | null = null;
  private catchingUp = false;
  /** The last enqueue round of this catch-up found nothing new in the log. */
  private logRead = false;

  constructor(
    private readonly busy: () => boolean = () => false,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long the background work should wait before its next round (0: now). */
  wait(): number {
    const now = this.now();
    if (!this.busy()) {
      this.yieldingSince = null;
      this.catchingUp = false;
      return 0;
    }
    if (this.catchingUp) return 0;
    this.yieldingSince ??= now;
    const left = this.yieldingSince + MAX_YIELD_MS - now;
    if (left > 0) return left;
    this.catchingUp = true;
    this.logRead = false;
    return 0;
  }

  /** An enqueue round queued this many deliveries (`more`: it left changes in the log for the next one). */
  enqueued(queued: number, more: boolean): void {
    this.logRead = queued === 0 && !more;
  }

  /** The deliverer found nothing due: after the log was read to its end, a catch-up is over (the next yield starts). */
  drained(): void {
    if (!this.catchingUp || !this.logRead) return;
    this.catchingUp = false;
    this.yieldingSince = null;
  }
}
