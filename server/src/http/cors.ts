import type { Request, Response } from 'express';
import { APIKEY_HEADER, REQUEST_ID_HEADER } from '@basalt/contract';

const ALLOWED_HEADERS = ['authorization', APIKEY_HEADER, 'content-type', REQUEST_ID_HEADER].join(', ');
const EXPOSED_HEADERS = [REQUEST_ID_HEADER, 'retry-after'].join(', ');
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

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
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return true;
    }
    return false;
  };
}
