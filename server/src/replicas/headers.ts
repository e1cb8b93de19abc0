import type { Request, RequestHandler, Response } from 'express';
import { LSN_HEADER, MIN_LSN_HEADER, parseLsn } from '@basalt/contract';
import { ApiError } from '../errors.js';
import type { Replicas } from './router.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's `Basalt-Min-Lsn`: its reads come from a copy at least this fresh. */
    minLsn?: bigint;
  }
}

/** What a read must see besides the schema: the request's `Basalt-Min-Lsn` and the caller whose writes are remembered. */
export interface Freshness {
  minLsn: bigint | null;
  userId: string | null;
}

export function freshnessOf(req: Request): Freshness {
  return { minLsn: req.minLsn ?? null, userId: req.caller?.kind === 'user' ? req.caller.id : null };
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read-your-writes at the door (API.md, "Past one database machine"): a malformed `Basalt-Min-Lsn` is 400 naming the
 * header, a valid one is kept on the request; with read replicas every successful request that may have written
 * answers `Basalt-Lsn`, the primary's position read after its commit, and the caller's reads through this process
 * see it for 30 s.
 */
export function readYourWrites(replicas: Replicas | null): RequestHandler {
  return (req, res, next) => {
    const given = req.headers[MIN_LSN_HEADER];
    if (given !== undefined) {
      const lsn = typeof given === 'string' ? parseLsn(given.trim()) : null;
      if (lsn === null) {
        next(new ApiError('VALIDATION_ERROR', 'Basalt-Min-Lsn must be a log position as Basalt-Lsn gives it, such as 0/16B3748', { header: MIN_LSN_HEADER }));
        return;
      }
      req.minLsn = lsn;
    }
    if (replicas && !READ_METHODS.has(req.method)) answerPosition(replicas, req, res);
    next();
  };
}

/**
 * The position is read when the answer is complete and before its headers go out: every commit of the request came
 * before it. Only successful answers carry it; one that cannot be read leaves the header out (never the answer).
 */
function answerPosition(replicas: Replicas, req: Request, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (res.headersSent || res.statusCode < 200 || res.statusCode >= 300) return end(...args);
    replicas
      .position()
      .then((lsn) => {
        if (res.headersSent) return;
        res.setHeader(LSN_HEADER, lsn);
        if (req.caller?.kind === 'user') replicas.remember(req.caller.id, lsn);
      })
      .catch(() => undefined)
      .finally(() => end(...args));
    return res;
  }) as Response['end'];
}
