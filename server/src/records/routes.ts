import express, { type Request, type RequestHandler, type Response } from 'express';
import type { TokenService } from '../auth/tokens.js';
import type { KeyService } from '../auth/keys/service.js';
import { resolveCaller } from '../auth/credentials.js';
import { jsonBodyReader, jsonObjectReader } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import type { Answer } from './respond.js';
import { csvBodies } from './csv/import.js';
import { parseTarget, queryBytesOf, type Body, type RecordTarget } from './parse.js';
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
  const bodyOf = recordBodyReader(deps.bodyLimitBytes);
  return async (req, res, next) => {
    const resolved = resolveCaller(req, deps.tokens, deps.keys);
    const caller = (req.caller = resolved instanceof Promise ? await resolved : resolved);
    const target = parseTarget(req.method, req.path);
    if (!target) {
      next();
      return;
    }
    req.recordTarget = target;
    const call = { surface: 'api' as const, caller, target, query: req.query, queryBytes: queryBytesOf(req.url), readBody: bodyOf(req, res), freshness: freshnessOf(req), csv: prefersCsv(req) };
    sendAnswer(req, res, await answerRecordCall(deps, call));
  };
}

/** The URL of the page after this one: the request's, with `after` the next cursor (and no `offset`). */
function nextUrl(req: Request, next: string): string {
  const url = req.originalUrl;
  const question = url.indexOf('?');
  const query = new URLSearchParams(question < 0 ? '' : url.slice(question + 1));
  query.delete('offset');
  query.set('after', next);
  return `${question < 0 ? url : url.slice(0, question)}?${query.toString()}`;
}

/** Writes an answer: JSON, or CSV with `X-Total-Count` and a `Link` to the next page. */
export function sendAnswer(req: Request, res: Response, answer: Answer): void {
  if (answer.csv === undefined) {
    sendJson(res, answer.status, answer.body);
    return;
  }
  res.statusCode = answer.status;
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  if (answer.body.total !== undefined) res.setHeader('X-Total-Count', String(answer.body.total));
  if (answer.body.next) res.setHeader('Link', `<${nextUrl(req, answer.body.next)}>; rel="next"`);
  res.setHeader('Content-Length', Buffer.byteLength(answer.csv));
  res.end(answer.csv);
}

/**
 * How a record route reads its body: JSON (an object, or where the action takes one an array), or, on a create,
 * `text/csv` (a bulk insert: csv/import.ts). Shared by `/api` and the owner's records routes.
 */
export function recordBodyReader(limitBytes: number): (req: Request, res: Response) => (arrays: boolean) => Promise<Body | unknown[]> {
  const objectOrArray = jsonBodyReader(limitBytes);
  const object = jsonObjectReader(limitBytes);
  const text = express.text({ limit: limitBytes, type: () => true, defaultCharset: 'utf-8' });
  return (req, res) => (arrays) => {
    if (!arrays || !req.is('text/csv')) return (arrays ? objectOrArray : object)(req, res);
    return new Promise((resolve, reject) => {
      text(req, res, (error?: unknown) => {
        if (error) reject(error);
        else {
          try {
            resolve(csvBodies(typeof req.body === 'string' ? req.body : ''));
          } catch (problem) {
            reject(problem);
          }
        }
      });
    });
  };
}

/** Whether the caller prefers CSV to JSON (`text/csv` ranked first in `Accept`). */
export function prefersCsv(req: Request): boolean {
  // Negotiation only for an Accept that names CSV at all: every other request skips its parsing.
  return req.headers.accept?.includes('text/csv') === true && req.accepts(['application/json', 'text/csv']) === 'text/csv';
}
