import type { Response } from 'express';
import type { ApiError } from '../errors.js';
import type { EventSink } from './hub.js';

/** Past this many bytes waiting to be written, a subscriber is too slow: it is disconnected and resumes by id. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * A Server-Sent Events response: headers that keep proxies from buffering it, a retry hint, and an end that carries
 * the error envelope as `event: error` when there is one.
 */
export function openEventStream(res: Response, maxBuffered = MAX_BUFFERED_BYTES): EventSink {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  // A stream is the connection's last response: when it ends the socket closes, so a graceful stop never waits on it.
  res.setHeader('Connection', 'close');
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  res.write('retry: 2000\n: basalt realtime\n\n');
  let open = true;
  // Held from the start: once the response closes, `res.socket` is already detached.
  const socket = res.socket;
  res.on('close', () => {
    open = false;
    // The stream is over, whichever side ended it: the connection goes too, so a graceful stop never waits on it.
    socket?.destroy();
  });
  return {
    send(text) {
      if (!open) return false;
      res.write(text);
      if (res.writableLength > maxBuffered) {
        open = false;
        res.destroy();
        return false;
      }
      return true;
    },
    end(error?: ApiError) {
      if (!open) return;
      open = false;
      if (error) res.write(`event: error\ndata: ${JSON.stringify(error.toBody())}\n\n`);
      res.end();
    },
  };
}
