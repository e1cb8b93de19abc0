import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

export type { Logger };

/** pino-pretty is a development dependency: production images log JSON lines only. */
function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * One JSON line per event in production; readable lines in development. Nothing logged carries a token, a password
 * or a body: callers pass only the fields they mean to log (no request or header objects), so no redaction pass is
 * spent on every line.
 */
export function createLogger(options: { level: string; production: boolean; pretty?: boolean }): Logger {
  const pretty = options.pretty ?? (!options.production && process.stdout.isTTY && prettyAvailable());
  // Asynchronous and batched: lines gather until 4 KiB (about 20 request lines) or 200 ms have passed, then go out in
  // one write. Every write is a round trip through libuv's thread pool; one per line cost a busy server about a tenth
  // of its throughput (docs/performance.md). pino flushes what is left when the process exits.
  const destination = pretty ? undefined : pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 200 });
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  };
  return destination ? pino(settings, destination) : pino(settings);
}
