import { ERRORS } from '@tus/server';
import { ApiError, invalidParameter, notFound } from '../../errors.js';

/**
 * tus answers are outside the JSON envelope, their errors inside it (API.md, Part 2 in detail, General): each of
 * @tus/server's refusals becomes `{ error: { code, message, details } }`. The statuses the protocol gives meaning to
 * stay (404 and 410, 409 for an offset that does not match, 412 for the version, 413); those that are only
 * @tus/server's choice become the contract's: a missing header is 400 naming it (not 403), an extension Basalt does
 * not offer 400 naming its header (not 501), a lock not acquired in time 503 with `Retry-After` (not 500).
 */

/** An ApiError whose status is the protocol's rather than its code's (410 and 412 have no code of their own). */
class ProtocolError extends ApiError {
  constructor(status: number, base: ApiError) {
    super(base.code, base.message, base.details);
    (this as { status: number }).status = status;
  }
}

export const uploadNotFound = () => notFound('No such upload here (it never existed, was finished long ago, was terminated, or is somebody else\'s)');

export const versionRequired = () =>
  new ProtocolError(412, invalidParameter('Tus-Resumable', 'This server speaks tus 1.0.0: send Tus-Resumable: 1.0.0'));

const BY_BODY = new Map<string, () => ApiError>([
  [ERRORS.MISSING_OFFSET.body, () => invalidParameter('Upload-Offset', 'A PATCH needs Upload-Offset')],
  [ERRORS.INVALID_CONTENT_TYPE.body, () => invalidParameter('Content-Type', 'A PATCH needs Content-Type: application/offset+octet-stream')],
  [ERRORS.INVALID_LENGTH.body, () => invalidParameter('Upload-Length', 'A creation needs Upload-Length (Upload-Defer-Length is not offered)')],
  [ERRORS.INVALID_METADATA.body, () => invalidParameter('Upload-Metadata', 'Upload-Metadata must be comma-separated pairs of a key and a base64 value, each key once')],
  [ERRORS.UNSUPPORTED_CONCATENATION_EXTENSION.body, () => invalidParameter('Upload-Concat', 'Concatenation is not offered: upload in one sequence of PATCHes (no parallel uploads)')],
  [ERRORS.UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION.body, () => invalidParameter('Upload-Defer-Length', 'Deferred lengths are not offered: send Upload-Length at creation')],
  // The request's body failed, or another request asked for the upload (a client resuming): either way it is over.
  [ERRORS.ABORTED.body, () => new ApiError('CONFLICT', 'The request was cut short (its body failed, or another request took the upload over): HEAD the upload for its offset')],
  [ERRORS.ERR_LOCK_TIMEOUT.body, () => new ApiError('UNAVAILABLE', 'Another request holds this upload; try again shortly', { retryAfter: 1 })],
  [ERRORS.INVALID_OFFSET.body, () => new ApiError('CONFLICT', "Upload-Offset is not the upload's offset: HEAD the upload for it")],
]);

/** The envelope's error for one of @tus/server's error answers (its status and its text). */
export function protocolError(status: number, body: string): ApiError {
  const known = BY_BODY.get(body)?.();
  if (known) return known;
  if (status === 410) return new ProtocolError(410, notFound('This upload expired: unfinished uploads live 24 h'));
  if (status === 404) return uploadNotFound();
  if (status === 412) return versionRequired();
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'The upload is larger than its Upload-Length or than this bucket takes');
  // The header check's own answer: `Invalid <header> <header>...`.
  const invalid = /^Invalid ([A-Za-z0-9-]+)/.exec(body);
  if (status === 400 && invalid) return invalidParameter(invalid[1]!, `The ${invalid[1]} header is not valid here`);
  if (status < 500) return new ProtocolError(status, new ApiError('VALIDATION_ERROR', body.trim() || 'The upload request was refused'));
  return new ApiError('INTERNAL_ERROR', 'Something went wrong on the server');
}

/** @tus/server's own errors are plain objects (or errors) carrying `status_code` and `body`. */
export function isProtocolAnswer(error: unknown): error is { status_code: number; body: string } {
  const { status_code, body } = (error ?? {}) as { status_code?: unknown; body?: unknown };
  return typeof status_code === 'number' && typeof body === 'string';
}
