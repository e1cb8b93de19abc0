import type { RequestHandler } from 'express';
import type { TokenService } from '../auth/tokens.js';
import type { KeyService } from '../auth/keys/service.js';
import { resolveCaller } from '../auth/credentials.js';
import { jsonBodyReader, jsonObjectReader } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { parseTarget, queryBytesOf, type RecordTarget } from './parse.js';
import { answerRecordCall, type RecordDeps } from './pipeline.js';
import { freshnessOf } from '../replicas/headers.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The record route a `/api` request named, once parsed (the metrics label it by this, without parsing again). */
    recordTarget?: RecordTarget;
  }
}

/**
 * `/api`: one front door for reads and writes. It answers without Express's router: the router's matching, parameter
 * decoding and per-layer promise bookkeeping showed in every read's profile (docs/performance.md). Credentials come
 * first (401), also for paths that name no record route (then 404).
 */
export function recordRoutes(deps: RecordDeps & { tokens: TokenService; keys: KeyService; bodyLimitBytes: number }): RequestHandler {
  const readObjectOrArray = jsonBodyReader(deps.bodyLimitBytes);
  const readObject = jsonObjectReader(deps.bodyLimitBytes);
  return async (req, res, next) => {
    const resolved = resolveCaller(req, deps.tokens, deps.keys);
    const caller = (req.caller = resolved instanceof Promise ? await resolved : resolved);
    const target = parseTarget(req.method, req.path);
    if (!target) {
      next();
      return;
    }
    req.recordTarget = target;
    const call = { surface: 'api' as const, caller, target, query: req.query, queryBytes: queryBytesOf(req.url), readBody: (arrays: boolean) => (arrays ? readObjectOrArray : readObject)(req, res), freshness: freshnessOf(req) };
    const answer = await answerRecordCall(deps, call);
    sendJson(res, answer.status, answer.body);
  };
}
