import type { Request, Response } from 'express';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_METHODS, UPLOADS_SEGMENT } from '@basalt/contract';

const ALLOWED_HEADERS = CORS_ALLOWED_HEADERS.join(', ');
const EXPOSED_HEADERS = CORS_EXPOSED_HEADERS.join(', ');
const ALLOWED_METHODS = CORS_METHODS.join(', ');
/** tus's discovery is an OPTIONS without a preflight's headers: it goes on to the resumable uploads' route. */
const TUS_PATH = new RegExp(`^/files/[^/]+/${UPLOADS_SEGMENT}(?:/|$)`);

/**
 * CORS for browsers. Credentials travel in headers, never cookies, so `*` is safe by default; CORS_ORIGINS narrows it
 * to a list. Preflights answer 204 here and never reach a route: the function says true when it answered.
 */
export function cors(origins: string[] | null): (req: Request, res: Response) => boolean {
  const allowed = origins ? new Set(origins) : null;
  return (req, res) => {
    const origin = req.headers.origin;
    if (allowed) {
      res.vary('Origin');
      if (origin && allowed.has(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
    } else {
      res.setHeader('Access-Control-Allow-Origin', '*');
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    const preflight = req.method === 'OPTIONS' && (req.headers['access-control-request-method'] !== undefined || !TUS_PATH.test(req.path));
    if (preflight) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return true;
    }
    return false;
  };
}
