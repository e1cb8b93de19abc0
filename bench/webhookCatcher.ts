import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * The webhook receiver of `npm run bench:webhooks` (bench/webhooks.ts), in the benchmark's process on loopback: leaner
 * than test-support/webhookReceiver.ts, which verifies and keeps every request. It keeps, per `webhook-id`, its first
 * receipt answered 2xx (when, the row's id, `changedAt`), counts the 2xx receipts beyond the first (duplicates) and the
 * attempts by the status it answered, and verifies the Standard Webhooks signature of a sample with the
 * `standardwebhooks` package (the first 20, then every 50th): a broken signature is a problem of the run.
 */

export interface Arrival {
  id: string;
  type: string;
  /** `record.id` (or `old.id` of a delete): the row the change is about. */
  rowId: string;
  /** `changedAt` (the writing transaction's start) and the receipt, ms since the epoch. */
  changedAt: number;
  receivedAt: number;
}

export interface WebhookCatcher {
  url: string;
  /** The webhook's secret (`data.secret` of its creation): the sample is verified with it. */
  secret: string;
  /** First 2xx receipt of each webhook-id, in the order they came. */
  arrivals: Arrival[];
  /** 2xx receipts of a webhook-id already received. */
  duplicates: number;
  /** Attempts by the status answered. */
  statuses: Record<number, number>;
  /** Signatures checked and found right, found wrong (the first few described). */
  verified: number;
  badSignatures: number;
  signatureProblems: string[];
  /** Answers `status` to every attempt from now on; null: 204 again. */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

const SAMPLE_FIRST = 20;
const SAMPLE_EVERY = 50;

export async function startWebhookCatcher(): Promise<WebhookCatcher> {
  const seen = new Set<string>();
  let failing: number | null = null;
  let received = 0;
  let verifier: Webhook | null = null;
  const verify = (id: string, headers: http.IncomingHttpHeaders, body: string) => {
    try {
      verifier ??= new Webhook(catcher.secret);
      verifier.verify(body, headers as Record<string, string>);
      catcher.verified++;
    } catch (error) {
      if (catcher.badSignatures++ < 3) catcher.signatureProblems.push(`${id}: ${(error as Error).message}`);
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = Date.now();
      const status = failing ?? 204;
      catcher.statuses[status] = (catcher.statuses[status] ?? 0) + 1;
      res.writeHead(status).end();
      if (failing !== null) return;
      const id = String(req.headers['webhook-id'] ?? '');
      const body = Buffer.concat(chunks).toString('utf8');
      if (received++ < SAMPLE_FIRST || received % SAMPLE_EVERY === 0) verify(id, req.headers, body);
      if (seen.has(id)) {
        catcher.duplicates++;
        return;
      }
      seen.add(id);
      const change = JSON.parse(body) as { type: string; record: { id?: unknown } | null; old: { id?: unknown } | null; changedAt: string };
      catcher.arrivals.push({ id, type: change.type, rowId: String((change.record ?? change.old)?.id), changedAt: Date.parse(change.changedAt), receivedAt });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const catcher: WebhookCatcher = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    secret: '',
    arrivals: [],
    duplicates: 0,
    statuses: {},
    verified: 0,
    badSignatures: 0,
    signatureProblems: [],
    failWith: (status) => void (failing = status),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return catcher;
}
