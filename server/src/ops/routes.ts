import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { ReadyStatus } from '@basalt/contract';
import { ApiError, unauthorized } from '../errors.js';
import { sendJson } from '../http/respond.js';
import type { Telemetry } from './telemetry.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** `Authorization: Bearer <token>`, compared in constant time (hashes first, so the lengths never differ). */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), expected);
}

/**
 * `GET /metrics`: Prometheus text for the whole process group, only with `Authorization: Bearer <METRICS_TOKEN>` (no
 * user token, key or anon key opens it). Mounted only when METRICS_TOKEN is set.
 */
export function metricsRoute(token: string, telemetry: Telemetry): RequestHandler {
  const expected = digest(token);
  return async (req, res) => {
    if (!bearerMatches(req.headers.authorization, expected)) throw unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    const text = await telemetry.metricsText();
    res.statusCode = 200;
    res.setHeader('Content-Type', telemetry.metricsContentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
}

/** `GET /health`: liveness, 200 while the database answers, else 503. */
export function healthRoute(telemetry: Telemetry): RequestHandler {
  return async (_req, res) => {
    if (!(await telemetry.databaseAnswers())) throw new ApiError('UNAVAILABLE', 'The database is unavailable');
    sendJson(res, 200, { data: { status: 'ok' } });
  };
}

/** `GET /ready`: 200 once the service can serve (schema loaded, database answering, not stopping), else 503. */
export function readyRoute(telemetry: Telemetry): RequestHandler {
  return async (_req, res) => {
    if (!(await telemetry.ready())) throw new ApiError('UNAVAILABLE', 'The service is not ready: the database does not answer, or it is starting or stopping');
    // Standbys are counted, never a reason to be unready: reads go to the primary while none is in use.
    const replicas = telemetry.replicaCounts();
    const status: ReadyStatus = replicas ? { status: 'ready', replicas } : { status: 'ready' };
    sendJson(res, 200, { data: status });
  };
}
