import express, { type RequestHandler } from 'express';
import { ApiError } from '../errors.js';

const MAX_DEPTH = 64;

/** Depth of nested objects and arrays, walked without recursion so a hostile body cannot overflow the stack. */
function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * Reads a JSON object body: a body that needs reading must be `application/json`, valid JSON (else INVALID_JSON), an
 * object, at most BODY_LIMIT bytes (413, answered by the error handler) and nested at most 64 levels deep.
 */
export function jsonObjectBody(limitBytes: number): RequestHandler[] {
  const parse = express.json({ limit: limitBytes, strict: false, type: () => true });
  return [
    (req, _res, next) => {
      if (!req.is('application/json')) {
        next(new ApiError('VALIDATION_ERROR', 'The request body must be JSON, sent with Content-Type: application/json'));
        return;
      }
      next();
    },
    parse,
    (req, _res, next) => {
      const body: unknown = req.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        next(new ApiError('VALIDATION_ERROR', 'The request body must be a JSON object'));
        return;
      }
      if (exceedsDepth(body, MAX_DEPTH)) {
        next(new ApiError('VALIDATION_ERROR', `The request body is nested deeper than ${MAX_DEPTH} levels`));
        return;
      }
      next();
    },
  ];
}
