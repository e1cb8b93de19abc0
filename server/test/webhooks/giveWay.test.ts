import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTable, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { BUSY_REQUESTS } from '../../src/ops/load.js';
import { MAX_YIELD_MS } from '../../src/webhooks/delivery/pace.js';

/**
 * Webhooks give way to requests (delivery/pace.ts): while the process has many requests in flight, changes wait in
 * the log and the queue, and after at most MAX_YIELD_MS they are delivered anyway; when the requests end, at once.
 * The requests are real ones held open (a body announced and not sent), the writes psql's.
 */

let h: Harness;
let owner: Account;
let psql: pg.Client;
let receiver: WebhookReceiver;

beforeAll(async () => {
  h = await startHarness({ limits: false, webhooks: { allowPrivateTargets: true } });
  owner = await signUp(h);
  psql = await h.sql();
  await createTable(h, owner, { name: 'notes', policy: 'public-read', columns: [{ name: 'body', type: 'text' }] });
  receiver = await startWebhookReceiver();
  const made = await h.request().post('/admin/webhooks').set(owner.auth).send({ url: receiver.url, tables: ['notes'] });
  expect(made.status).toBe(201);
  receiver.secrets = [made.body.data.secret];
});
afterAll(async () => {
  await receiver?.close();
  await h.close();
});

/** Requests that stay in flight: each, signed in, announces a body it never sends. */
async function holdRequests(count: number): Promise<net.Socket[]> {
  const { port } = new URL(h.url);
  return Promise.all(
    Array.from({ length: count }, () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(`POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${owner.auth.Authorization}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"body":`);
          resolve(socket);
        });
        socket.on('error', reject);
      }),
    ),
  );
}

let made = 0;
const insert = (body: string) => psql.query(`INSERT INTO notes (id, body) VALUES ($1, $2)`, [`n${++made}`, body]);

describe('webhooks give way to requests', () => {
  it('waits while the process is busy, delivers after at most MAX_YIELD_MS, and at once when the requests end', async () => {
    await insert('before');
    await receiver.waitForDistinct(1);

    const held = await holdRequests(BUSY_REQUESTS + 8);
    await expect.poll(() => h.services.load.busy, { timeout: 5_000 }).toBe(true);
    const busySince = Date.now();
    await insert('while busy');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received.map((r) => r.payload.record?.body)).toEqual(['before']);
    // Still busy: the change goes out once the process has given way for MAX_YIELD_MS.
    const [, late] = await receiver.waitForDistinct(2, MAX_YIELD_MS + 10_000);
    expect(late!.payload.record?.body).toBe('while busy');
    expect(h.services.load.busy).toBe(true);
    expect(Date.now() - busySince).toBeGreaterThanOrEqual(MAX_YIELD_MS - 1_000);

    // Caught up (an enqueue round finds the log read and a lease nothing due, within a second), still busy: the
    // next change waits again; when the requests end it goes out at once.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await insert('after the catch-up');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(2);
    for (const socket of held) socket.destroy();
    await expect.poll(() => h.services.load.busy, { timeout: 5_000 }).toBe(false);
    const released = Date.now();
    const [, , third] = await receiver.waitForDistinct(3, 5_000);
    expect(third!.payload.record?.body).toBe('after the catch-up');
    expect(Date.now() - released).toBeLessThan(3_000);
  }, 40_000);
});
