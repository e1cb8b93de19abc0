import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A real HTTP receiver on loopback for webhook tests: it verifies each request's Standard Webhooks signature with the
 * npm `standardwebhooks` package (the one receivers use) and keeps what arrived. Faults: `answer(status)` for every
 * following request, `hang()` (never answer), `drop()` (close the connection without an answer), `stop()` then
 * `start()` (gone for a while, back on the same port), `redirect(url)`.
 */

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  payload: { type: string; table: string; record: Record<string, unknown> | null; old: Record<string, unknown> | null; changedAt: string };
  /** Whether one of the receiver's secrets verified it. */
  verified: boolean;
  receivedAt: number;
}

type Mode = { kind: 'answer'; status: number; body?: string } | { kind: 'hang' } | { kind: 'drop' } | { kind: 'redirect'; to: string };

export interface WebhookReceiver {
  port: number;
  url: string;
  received: Received[];
  /** Every attempt, failed ones included (the status the receiver answered). */
  attempts: Array<{ id: string; status: number | 'hang' | 'drop' | 'redirect' }>;
  /** The secrets to verify with (set after the webhook is made). */
  secrets: string[];
  answer(status: number, body?: string): void;
  hang(): void;
  drop(): void;
  redirect(to: string): void;
  /** Answers 200 from now on. */
  accept(): void;
  /** Waits until `count` distinct webhook-ids were received with a 2xx. */
  waitForDistinct(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let mode: Mode = { kind: 'answer', status: 200 };
  const received: Received[] = [];
  const attempts: WebhookReceiver['attempts'] = [];
  const hanging = new Set<http.ServerResponse>();
  const verify = (secrets: string[], headers: http.IncomingHttpHeaders, body: string): boolean => {
    for (const secret of secrets) {
      try {
        new Webhook(secret).verify(body, headers as Record<string, string>);
        return true;
      } catch {
        // the next secret
      }
    }
    return false;
  };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const current = mode;
      if (current.kind === 'hang') {
        attempts.push({ id, status: 'hang' });
        hanging.add(res);
        return;
      }
      if (current.kind === 'drop') {
        attempts.push({ id, status: 'drop' });
        req.socket.destroy();
        return;
      }
      if (current.kind === 'redirect') {
        attempts.push({ id, status: 'redirect' });
        res.writeHead(307, { location: current.to }).end();
        return;
      }
      attempts.push({ id, status: current.status });
      if (current.status >= 200 && current.status < 300) {
        received.push({
          id,
          timestamp: String(req.headers['webhook-timestamp'] ?? ''),
          signature: String(req.headers['webhook-signature'] ?? ''),
          headers: req.headers,
          body,
          payload: JSON.parse(body) as Received['payload'],
          verified: verify(receiver.secrets, req.headers, body),
          receivedAt: Date.now(),
        });
      }
      res.writeHead(current.status, { 'content-type': 'text/plain' }).end(current.body ?? 'ok');
    });
  };
  let server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const release = () => {
    for (const res of hanging) res.destroy();
    hanging.clear();
  };
  const receiver: WebhookReceiver = {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    attempts,
    secrets: [],
    answer: (status, body) => void (mode = { kind: 'answer', status, ...(body !== undefined ? { body } : {}) }),
    hang: () => void (mode = { kind: 'hang' }),
    drop: () => void (mode = { kind: 'drop' }),
    redirect: (to) => void (mode = { kind: 'redirect', to }),
    accept: () => void (mode = { kind: 'answer', status: 200 }),
    async waitForDistinct(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const distinct = new Map(received.map((r) => [r.id, r]));
        if (distinct.size >= count) return [...distinct.values()];
        if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${count} webhook deliveries, got ${distinct.size}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    async start() {
      server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}
