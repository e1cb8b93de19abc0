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
 * or a body: callers pass only the fields they mean to log.
 */
export function createLogger(options: { level: string; production: boolean; pretty?: boolean }): Logger {
  const pretty = options.pretty ?? (!options.production && process.stdout.isTTY && prettyAvailable());
  const destination = pretty ? undefined : pino.destination({ dest: 1, sync: false });
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    // Belt and braces: should anyone log a request or headers, these never reach the output.
    redact: { paths: ['authorization', 'apikey', 'password', 'refreshToken', 'accessToken', '*.authorization', '*.apikey', '*.password', 'req.headers'], remove: true },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  };
  // Asynchronous writes keep logging off the request path; pino flushes them when the process exits.
  return destination ? pino(settings, destination) : pino(settings);
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = pino({ level: 'silent' });
