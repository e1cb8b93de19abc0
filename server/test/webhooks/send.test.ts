import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_LIMIT_BYTES, Sender } from '../../src/webhooks/delivery/send.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';

/** One attempt against real receivers on loopback: what counts as delivered, timeouts, closed connections, limits. */

let receiver: WebhookReceiver;
let sender: Sender;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  sender = new Sender(true, 500);
});
afterAll(async () => {
  sender.close();
  await receiver.close();
});

const send = (url = receiver.url) => sender.send(url, { 'webhook-id': 'msg_t' }, '{"a":1}');

describe('Sender', () => {
  it('delivers on a 2xx only', async () => {
    expect(await send()).toMatchObject({ ok: true, status: 200, error: null });
    receiver.answer(204);
    expect(await send()).toMatchObject({ ok: true, status: 204 });
    for (const status of [301, 400, 410, 500, 503]) {
      receiver.answer(status);
      expect(await send()).toMatchObject({ ok: false, status, error: `status ${status}` });
    }
    receiver.accept();
  });

  it('gives up on a receiver that does not answer in time, or closes the connection', async () => {
    receiver.hang();
    const started = Date.now();
    expect(await send()).toMatchObject({ ok: false, status: null, error: 'timed out' });
    expect(Date.now() - started).toBeLessThan(3_000);
    receiver.drop();
    expect(await send()).toMatchObject({ ok: false, status: null, error: 'connection closed' });
    receiver.accept();
  });

  it('answers a refused connection after the receiver went away', async () => {
    const gone = await startWebhookReceiver();
    await gone.close();
    expect(await send(gone.url)).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('reads at most 64 KiB of a response', async () => {
    let written = 0;
    const big = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 97);
      const pump = () => {
        while (written < 50 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 50 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const result = await send(`http://127.0.0.1:${(big.address() as AddressInfo).port}/`);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(written).toBeLessThan(50 * 1024 * 1024);
    expect(RESPONSE_LIMIT_BYTES).toBe(65_536);
    big.closeAllConnections();
    await new Promise((resolve) => big.close(resolve));
  });

  it('refuses private targets when they are not allowed, by literal address and by name', async () => {
    const strict = new Sender(false, 500);
    expect(await strict.send(receiver.url, {}, '{}')).toMatchObject({ ok: false, error: 'refused target' });
    expect(await strict.send(receiver.url.replace('127.0.0.1', 'localhost'), {}, '{}')).toMatchObject({ ok: false, error: 'refused target' });
    expect(await strict.send(receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'), {}, '{}')).toMatchObject({ ok: false, error: 'refused target' });
    strict.close();
    expect(receiver.attempts.filter((a) => a.id === '')).toHaveLength(0);
  });
});
