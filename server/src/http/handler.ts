import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, invalidBody, invalidPathEncoding } from '../errors.js';
import { translateDatabaseError } from './translate.js';
import { sendJson } from './respond.js';

/** Failures of Express's own parts: body parsing, by the `type` express 5 gives them, and parameter decoding. */
function fromExpressError(error: unknown): ApiError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') return new ApiError('INVALID_JSON', 'The request body is not valid JSON');
  if (type === 'entity.too.large') return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return invalidBody('The request body must be UTF-8 JSON');
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') return invalidBody('The request body could not be read');
  // The router's decoding of route parameters (`/admin/tables/%zz`) throws a URIError it marks 400.
  if (error instanceof URIError) return invalidPathEncoding();
  return undefined;
}

export type ErrorReporter = (error: unknown) => void;

/** The one place where errors become responses: the documented envelope, never a stack or driver text. */
export function errorHandler(report: ErrorReporter): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let apiError = fromExpressError(error) ?? translateDatabaseError(error);
    if (!apiError) {
      report(error);
      apiError = new ApiError('INTERNAL_ERROR', 'Something went wrong on the server');
    }
    const retryAfter = apiError.code === 'RATE_LIMITED' || apiError.code === 'UNAVAILABLE' ? apiError.details?.retryAfter : undefined;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    sendJson(res, apiError.status, apiError.toBody());
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new ApiError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
};
