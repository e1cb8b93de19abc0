import { RECORD_ID_HEADER, UPLOADS_SEGMENT } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { pathParameter } from './admin.js';
import { ref, responses, SECURITY, str, type Operation, type Schema } from './schema.js';

/**
 * Resumable uploads of a bucket (issue 28, API.md "Files" and Part 2 in detail; server/src/files/tus/): the tus 1.0
 * protocol with its creation, creation-with-upload, termination and expiration extensions at
 * `/files/<bucket>/uploads`, listed where the caller may write the bucket. Its answers (201 with `Location`, 200 and
 * 204 with `Upload-Offset`, the discovery's 204) are tus's, without a body; its errors are in the envelope, 410 and
 * 412 included. Credentials as on every /files route (401 before tus reads anything).
 */

type Paths = Record<string, Record<string, Operation>>;

export const TUS_VERSION = '1.0.0';
const EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration'];

const header = (name: string, required: boolean, description: string, schema: Schema = str()): Schema => ({ name, in: 'header', required, description, schema });
const answerHeader = (description: string, schema: Schema = str(), required = true): Schema => ({ required, description, schema });
/** A byte count as tus reads it: no leading zero, exact as a JavaScript number (15 digits: a part of them, never more). */
export const BYTE_COUNT = '^(?:0|[1-9][0-9]{0,14})$';
const DIGITS = str({ pattern: BYTE_COUNT });
const HTTP_DATE = str({ pattern: '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$' });

const resumable = header('Tus-Resumable', true, `The protocol's version, \`${TUS_VERSION}\`: absent or another is 412`, str({ enum: [TUS_VERSION] }));
const uploadId = pathParameter('upload', 'The upload, as the creation\'s `Location` names it');
/**
 * `key base64,key base64`: tus's Upload-Metadata as @tus/server reads it: a key of visible ASCII but the comma, a value
 * of whole base64 quanta (a key may have none: the empty text), each key once (the lookahead finds a key again).
 */
const PAIR = '[!-+\\--~]+(?: (?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)?';
const REPEATED_KEY = '(?!(?:[^,]*,)*([^ ,]+)(?: [^,]*)?,(?:[^,]*,)*\\1(?:[ ,]|$))';
export const METADATA = `^${REPEATED_KEY}${PAIR}(?:,${PAIR})*$`;

const ANSWER_HEADERS = {
  'Tus-Resumable': answerHeader('The protocol\'s version', str({ enum: [TUS_VERSION] })),
  'Upload-Expires': answerHeader('While the upload is unfinished: when it is deleted (24 hours after its creation)', HTTP_DATE, false),
  [RECORD_ID_HEADER]: answerHeader('Once the last byte arrived: the id of the file\'s record (`/files/<bucket>/{id}`)', str({ minLength: 1 }), false),
};

/** tus's own error statuses, in the envelope: 410 (expired) and 412 (version); the others are the shared ones. */
const TUS_ERRORS: Record<number, Record<string, unknown>> = {
  410: { description: 'The upload expired (unfinished uploads live 24 hours): `NOT_FOUND`', content: { 'application/json': { schema: ref('Error') } } },
  412: {
    description: '`Tus-Resumable` is absent or not 1.0.0: `VALIDATION_ERROR` naming it',
    headers: { 'Tus-Version': answerHeader('The versions spoken', str({ enum: [TUS_VERSION] })) },
    content: { 'application/json': { schema: ref('Error') } },
  },
};

/** A tus answer (no body) and the errors an operation may answer. */
function answers(status: number, description: string, headers: Record<string, Schema>, errors: number[]): Record<string, unknown> {
  const shared = errors.filter((error) => !(error in TUS_ERRORS));
  return {
    ...responses({ status, description, headers: { ...ANSWER_HEADERS, ...headers }, content: null }, shared),
    ...Object.fromEntries(errors.filter((error) => error in TUS_ERRORS).map((error) => [error, TUS_ERRORS[error]])),
  };
}

const BYTES = { 'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } } };

/** The tus paths of one bucket. */
export function tusPaths(table: TableSchema): Paths {
  const base = `/files/${encodeURIComponent(table.name)}/${UPLOADS_SEGMENT}`;
  const tags = [`table: ${table.name}`];
  const id = (what: string) => `files.${table.name}.${what}`;
  const offset = answerHeader('Bytes received', DIGITS);
  const create: Operation = {
    operationId: id('uploadCreate'),
    summary: `Start a resumable upload to ${table.name} (tus 1.0)`,
    description: [
      'The bucket\'s create decision is asked now (403 when it refuses the caller whatever the row), `name` and the metadata are checked (400 naming them), `Upload-Length` past what the caller may store is 413, and the upload counts against `limits.uploadsPerUser` (429). The record is created when the last byte arrives, under the create decision again.',
      'The body may carry the first bytes (creation-with-upload): then the answer has `Upload-Offset`, and `Basalt-Record-Id` when they were all of it.',
      'Every later request must come from the same caller (else 404); unfinished uploads are deleted after 24 hours. A client that can only send GET and POST may send `X-HTTP-Method-Override: PATCH|DELETE|HEAD` on a POST to the upload.',
    ].join(' '),
    tags,
    security: SECURITY.api,
    parameters: [
      resumable,
      header('Upload-Length', true, 'The file\'s size in bytes (`Upload-Defer-Length` is not offered: 400 naming it)', DIGITS),
      header('Upload-Metadata', false, '`key base64(value)` pairs, comma-separated: `name` (or `filename`) and the bucket\'s metadata columns, as text; `filetype` and `type` are ignored (the type is found in the bytes); a file column or any other key is 400 naming it (`details.field`)', str({ pattern: METADATA })),
    ],
    requestBody: { required: false, content: BYTES },
    responses: answers(201, 'Created: send the bytes to `Location` with PATCH', { Location: answerHeader('The upload\'s URL (under PUBLIC_URL)', str({ pattern: `/${UPLOADS_SEGMENT}/[^/]+$` })), 'Upload-Offset': answerHeader('Bytes received with the creation', DIGITS, false) }, [400, 401, 403, 404, 409, 412, 413, 429, 503]),
  };
  const status: Operation = {
    operationId: id('uploadStatus'),
    summary: 'How far an upload got (and, once finished, its record)',
    tags,
    security: SECURITY.api,
    parameters: [uploadId, resumable],
    responses: answers(200, 'Where the upload stands (no body)', {
      'Upload-Offset': offset,
      'Upload-Length': answerHeader('The file\'s size', DIGITS),
      'Upload-Metadata': answerHeader('The metadata it was created with', str({ pattern: METADATA }), false),
      'Cache-Control': answerHeader('`no-store`', str({ enum: ['no-store'] })),
    }, [401, 404, 410, 412, 503]),
  };
  const patch: Operation = {
    operationId: id('uploadPatch'),
    summary: 'Send bytes from `Upload-Offset` on (any chunk size)',
    description: 'An offset other than the bytes received is 409 `CONFLICT` (HEAD the upload for it); another Content-Type is 400 naming it; bytes past `Upload-Length` are 413. The chunk that completes the file creates its record under the bucket\'s create decision (its refusals as POST /files/<bucket> answers them: 400 naming `type` for a type the bucket does not take, 403) and answers its id.',
    tags,
    security: SECURITY.api,
    parameters: [uploadId, resumable, header('Upload-Offset', true, 'Bytes received so far (the status\'s `Upload-Offset`)', DIGITS)],
    requestBody: { required: true, content: BYTES },
    responses: answers(204, 'Received', { 'Upload-Offset': offset }, [400, 401, 403, 404, 409, 410, 412, 413, 503]),
  };
  const discovery: Operation = {
    operationId: id('uploadOptions'),
    summary: 'What the tus server offers (an OPTIONS without a CORS preflight\'s headers)',
    tags,
    security: SECURITY.api,
    responses: answers(204, 'The version and extensions', {
      'Tus-Version': answerHeader('The versions spoken', str({ enum: [TUS_VERSION] })),
      'Tus-Extension': answerHeader('The extensions offered', str({ pattern: `^(?:${EXTENSIONS.join('|')})(?:,(?:${EXTENSIONS.join('|')}))*$` })),
      'Tus-Max-Size': answerHeader('The largest upload, where the server says it', DIGITS, false),
    }, [401, 503]),
  };
  const terminate: Operation = {
    operationId: id('uploadDelete'),
    summary: 'Abandon an upload (its bytes are deleted; a finished upload\'s file stays)',
    tags,
    security: SECURITY.api,
    parameters: [uploadId, resumable],
    responses: answers(204, 'Deleted', {}, [401, 404, 410, 412, 503]),
  };
  return { [base]: { options: discovery, post: create }, [`${base}/{upload}`]: { head: status, patch, delete: terminate } };
}
