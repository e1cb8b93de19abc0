import type { ServerResponse } from 'node:http';

/**
 * How busy this process is with requests, for background work that should give way to them (webhooks' delivery):
 * the requests in flight, less the open event streams (a stream is a long response, not work waiting), averaged over
 * about a quarter of a second. The request frame (http/frame.ts) counts each request from its start to its end ('close'
 * comes once per response, answered or aborted); a timer samples the count.
 */

/** Samples this often; each moves the average a fifth of the way (a time constant of about 125 ms). */
const SAMPLE_MS = 25;
const WEIGHT = 0.2;
/** Busy from this many requests in flight on average (500 writes a second paced keep one or two; 32 connections writing flat out about 30). */
export const BUSY_REQUESTS = 12;

export class RequestLoad {
  private open = 0;
  private average = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `streams`: the event streams open in this process (realtime/hub.ts). */
  constructor(private readonly streams: () => number = () => 0) {}

  /** A request began: counted until its response closes. */
  readonly begin = (res: ServerResponse): void => {
    this.open++;
    res.once('close', this.end);
  };

  private readonly end = (): void => {
    this.open--;
  };

  /** Requests in flight on average (streams not counted). */
  get level(): number {
    return this.average;
  }

  get busy(): boolean {
    return this.average >= BUSY_REQUESTS;
  }

  /** One sample (the timer's; tests call it). */
  sample(): void {
    const working = Math.max(0, this.open - this.streams());
    this.average += (working - this.average) * WEIGHT;
  }

  start(): void {
    this.timer ??= setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
