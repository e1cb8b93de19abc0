import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkedLookup, hostOf, isGlobalAddress, RefusedTarget } from './targets.js';

/**
 * One attempt of a delivery (API.md, Webhooks): a POST of the body with the signed headers and the webhook's own; a 2xx
 * delivers, anything else fails. node:http directly: it follows no redirect, reads no proxy from the environment, and
 * takes the `lookup` that checks the addresses it connects to (targets.ts). Keep-alive agents reuse a receiver's
 * connections (each was checked when it was made). At most 10 s for the whole exchange; at most 64 KiB of the
 * response is read, then the connection is dropped.
 */

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_LIMIT_BYTES = 64 * 1024;

export interface AttemptResult {
  /** The response's status, or null when none came (refused, timed out, closed). */
  status: number | null;
  ok: boolean;
  /** Why it failed, without anything of the request (no secret, no header). */
  error: string | null;
  latencyMs: number;
}

export class Sender {
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly lookup: net.LookupFunction;

  constructor(private readonly allowPrivate: boolean, timeoutMs = ATTEMPT_TIMEOUT_MS) {
    this.timeoutMs = timeoutMs;
    this.lookup = checkedLookup(allowPrivate);
    // Idle sockets are closed after 4 s, before a receiver's own keep-alive end (Node's server: 5 s) could race a send.
    const options = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4_000 };
    this.agents = { http: new http.Agent(options), https: new https.Agent(options) };
  }

  private readonly timeoutMs: number;

  /** One attempt; a kept-alive connection the receiver closed as it was reused is tried once more on a new one. */
  async send(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const first = await this.attempt(target, headers, body);
    return first.retryable ? this.attempt(target, headers, body) : first;
  }

  private attempt(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult & { retryable?: boolean }> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): AttemptResult => ({
      status,
      ok: status !== null && status >= 200 && status < 300,
      error: error ?? (status !== null && (status < 200 || status >= 300) ? `status ${status}` : null),
      latencyMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve(done(null, 'invalid url'));
    }
    // A literal address never goes through `lookup`: judged here.
    const host = hostOf(url);
    if (net.isIP(host) && !this.allowPrivate && !isGlobalAddress(host)) return Promise.resolve(done(null, 'refused target'));
    const secure = url.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const finish = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(status, error));
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        lookup: this.lookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Basalt-Webhooks' },
      });
      const timer = setTimeout(() => {
        finish(null, 'timed out');
        request.destroy();
      }, this.timeoutMs);
      request.on('response', (response) => {
        let read = 0;
        const status = response.statusCode ?? null;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_LIMIT_BYTES) {
            // Enough of it: the status is what counts, and the socket is not reused.
            finish(status, status !== null && status >= 200 && status < 300 ? null : `status ${status}`);
            response.destroy();
          }
        });
        response.on('end', () => finish(status, null));
        response.on('error', () => finish(status, null));
        response.on('aborted', () => finish(status, null));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (request.reusedSocket && error.code === 'ECONNRESET' && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve({ ...done(null, 'connection closed'), retryable: true });
          return;
        }
        finish(null, describe(error));
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** A connection's failure in a few words (never the request's headers). */
function describe(error: NodeJS.ErrnoException): string {
  if (error instanceof RefusedTarget || error.code === 'EREFUSEDTARGET') return 'refused target';
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 'connection closed';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'does not resolve';
  return (error.code ?? error.message ?? 'failed').slice(0, 200);
}
