import type { Request } from 'express';
import type { Origin } from './accounts.js';

/** The address the abuse limits count (Express's `req.ip`, which follows TRUST_PROXY) and the user agent. */
export function originOf(req: Request): Origin {
  const userAgent = req.headers['user-agent'];
  return { address: req.ip ?? req.socket.remoteAddress ?? 'unknown', ...(userAgent ? { userAgent } : {}) };
}
