import express, { type Request, type RequestHandler, type Response } from 'express';
import { invalidBody, type ApiError } from '../errors.js';

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
 * The checks after parsing: a JSON object (or, where the route takes one, an array), nested at most 64 levels deep.
 * What an array holds is the route's to check.
 */
function bodyProblem(body: unknown, arrays: boolean): ApiError | undefined {
  const shapeOk = body !== null && typeof body === 'object' && (arrays || !Array.isArray(body));
  if (!shapeOk) return invalidBody(arrays ? 'The request body must be a JSON object or an array of objects' : 'The request body must be a JSON object');
  if (exceedsDepth(body, MAX_DEPTH)) return invalidBody(`The request body is nested deeper than ${MAX_DEPTH} levels`);
  return undefined;
}

const notJson = () => invalidBody('The request body must be JSON, sent with Content-Type: application/json');

/**
 * Reads a JSON object body: a body that needs reading must be `application/json`, valid JSON (else INVALID_JSON), an
 * object, at most BODY_LIMIT bytes (413, answered by the error handler) and nested at most 64 levels deep. Called by a
 * handler when it is ready for the body, after its own checks (`jsonObjectBody` is the same as a middleware).
 */
export function jsonObjectReader(limitBytes: number): (req: Request, res: Response) => Promise<Record<string, unknown>> {
  return jsonBodyReader(limitBytes, false) as (req: Request, res: Response) => Promise<Record<string, unknown>>;
}

/** `jsonObjectReader` for routes that also take an array (bulk writes). */
export function jsonBodyReader(limitBytes: number, arrays = true): (req: Request, res: Response) => Promise<Record<string, unknown> | unknown[]> {
  const parse = express.json({ limit: limitBytes, strict: false, type: () => true });
  return (req, res) =>
    new Promise((resolve, reject) => {
      if (!req.is('application/json')) {
        reject(notJson());
        return;
      }
      parse(req, res, (error?: unknown) => {
        const problem = error ?? bodyProblem(req.body, arrays);
        if (problem) reject(problem);
        else resolve(req.body as Record<string, unknown> | unknown[]);
      });
    });
}

/** `jsonObjectReader` as a middleware, for routes whose checks all come after the body. */
export function jsonObjectBody(limitBytes: number): RequestHandler {
  const read = jsonObjectReader(limitBytes);
  return async (req, res, next) => {
    await read(req, res);
    next();
  };
}
