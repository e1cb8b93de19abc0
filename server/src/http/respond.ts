import type { Response } from 'express';

/**
 * Sends a JSON body. Express's `res.json` looks up the content type, computes freshness and more on every call; the
 * API answers only JSON, so this writes the status, two headers and the body directly.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
