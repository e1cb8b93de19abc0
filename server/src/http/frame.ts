import type { Request, RequestHandler, Response } from 'express';
import { REQUEST_ID_HEADER } from '@basalt/contract';
import { randomId } from '../ids.js';
import type { Logger } from '../logger.js';
import { cors } from './cors.js';
import { requestLog } from './requestLog.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request ids: a random prefix per process and a counter, unique without spending random bytes on every request. */
const requestIdPrefix = randomId(6);
let requestCounter = 0;
const nextRequestId = () => `${requestIdPrefix}-${(requestCounter++).toString(36)}`;

/**
 * What every request gets before any route: its request id (the client's when it is a sane one), its log line, its
 * count in the metrics and in the process's load, and the CORS headers; preflights are answered here. One middleware rather than four, because
 * every layer in front of the routes is matched and called on every request.
 */
export function requestFrame(options: {
  logger?: Logger;
  corsOrigins: string[] | null;
  /** Who the log line names: a user id or `anon`, as the credentials established it (after the response). */
  callerOf: (req: Request) => string;
  /** Hears every finished response with its duration in milliseconds (the metrics); it must stay cheap. */
  observe?: (req: Request, res: Response, durationMs: number) => void;
  /** Hears every request as it begins (ops/load.ts counts it until its response closes). */
  begin?: (res: Response) => void;
}): RequestHandler {
  const log = options.logger ? requestLog(options.logger, options.callerOf) : null;
  const applyCors = cors(options.corsOrigins);
  const { observe, begin } = options;
  return (req, res, next) => {
    begin?.(res);
    const given = req.headers[REQUEST_ID_HEADER];
    res.setHeader('X-Request-Id', typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId());
    if (log || observe) {
      // One listener for the log line and the metrics ('finish' comes once per response: `on` spares `once`'s wrapper).
      const started = performance.now();
      res.on('finish', () => {
        const durationMs = performance.now() - started;
        log?.(req, res, durationMs);
        observe?.(req, res, durationMs);
      });
    }
    if (applyCors(req, res)) return;
    next();
  };
}
