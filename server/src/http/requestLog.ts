import type { Request, Response } from 'express';
import type { Logger } from 'pino';

/** The path with query parameter names but never their values (filters can hold personal data). */
export function pathWithoutQueryValues(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const names = url
    .slice(question + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const name = pair.split('=')[0] ?? '';
      try {
        return decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        return name;
      }
    });
  return `${url.slice(0, question)}${names.length ? `?${names.join('&')}` : ''}`;
}

/**
 * One line per request when its response is finished: method, path (no query values), status, duration, request id
 * and the caller's id or `anon`. Never headers, tokens, passwords or bodies. The request frame calls it from the one
 * `finish` listener it adds per request (http/frame.ts).
 */
export function requestLog(logger: Logger, callerOf: (req: Request) => string): (req: Request, res: Response, durationMs: number) => void {
  return (req, res, durationMs) => {
    logger.info({
      method: req.method,
      path: pathWithoutQueryValues(req.originalUrl),
      status: res.statusCode,
      durationMs,
      requestId: res.getHeader('X-Request-Id'),
      caller: callerOf(req),
    });
  };
}
