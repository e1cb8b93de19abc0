import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { tokenExpired } from '../errors.js';
import { openEventStream } from './stream.js';

/** A response that never drains, as a subscriber that stopped reading leaves it: what was written stays buffered. */
function stalledResponse() {
  const res = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const written: string[] = [];
  Object.assign(res, {
    headers: {} as Record<string, string>,
    writableLength: 0,
    destroyed: false,
    ended: false,
    socket: { setNoDelay() {}, destroy() {} },
    status(code: number) {
      res.statusCode = code;
      return res;
    },
    setHeader(name: string, value: string) {
      (res.headers as Record<string, string>)[name.toLowerCase()] = value;
    },
    flushHeaders() {},
    write(text: string) {
      written.push(text);
      (res as unknown as { writableLength: number }).writableLength += Buffer.byteLength(text);
      return false;
    },
    end() {
      res.ended = true;
    },
    destroy() {
      res.destroyed = true;
    },
  });
  return { res, written };
}

describe('an event stream', () => {
  it('is an SSE response that proxies do not buffer and that closes its connection when it ends', () => {
    const { res, written } = stalledResponse();
    openEventStream(res as unknown as Response);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', connection: 'close' });
    expect(written[0]).toBe('retry: 2000\n: basalt realtime\n\n');
  });

  it('cuts off a subscriber whose unsent output passes the limit, and says so to the hub', () => {
    const { res } = stalledResponse();
    const sink = openEventStream(res as unknown as Response, 10_000);
    const event = `data: ${'x'.repeat(1_000)}\n\n`;
    let sent = 0;
    while (sink.send(event)) sent += 1;
    expect(sent).toBe(9);
    expect(res.destroyed).toBe(true);
    expect(sink.send(event)).toBe(false);
  });

  it('ends with the error envelope as an error event', () => {
    const { res, written } = stalledResponse();
    openEventStream(res as unknown as Response).end(tokenExpired());
    expect(written.at(-1)).toBe(`event: error\ndata: ${JSON.stringify(tokenExpired().toBody())}\n\n`);
    expect(res.ended).toBe(true);
  });
});
