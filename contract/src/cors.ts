import { APIKEY_HEADER, REQUEST_ID_HEADER } from './api.js';

/**
 * What browsers are told on every answer and preflight (API.md, "Part 2 in detail", General): the request headers a
 * page may send, the answer headers its script may read, and the methods. One list for the server, its tests and the
 * docs; headers of features still to come (files, tus, replicas) are in it already, so a page written for them is
 * never refused by a preflight.
 */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  APIKEY_HEADER,
  'content-type',
  REQUEST_ID_HEADER,
  'last-event-id',
  'basalt-min-lsn',
  'range',
  'if-none-match',
  'if-modified-since',
  'tus-resumable',
  'upload-length',
  'upload-offset',
  'upload-metadata',
  'upload-defer-length',
  'x-http-method-override',
] as const;

export const CORS_EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  'retry-after',
  'basalt-lsn',
  'basalt-record-id',
  'x-total-count',
  'link',
  'etag',
  'last-modified',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'location',
  'tus-resumable',
  'tus-version',
  'tus-extension',
  'tus-max-size',
  'upload-offset',
  'upload-length',
] as const;

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
