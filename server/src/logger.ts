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
  // Asynchronous: while one write is in flight the next lines gather behind it, so a busy server writes in batches
  // and a quiet one still shows every line at once. pino flushes what is left when the process exits.
  const destination = pretty ? undefined : pino.destination({ dest: 1, sync: false });
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  };
  return destination ? pino(settings, destination) : pino(settings);
}
