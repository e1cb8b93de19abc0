import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { Server, TUS_RESUMABLE } from '@tus/server';
import { RECORD_ID_HEADER, UPLOADS_SEGMENT } from '@basalt/contract';
import { originOf } from '../../auth/origin.js';
import { ApiError, unauthorized } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { FileService } from '../service.js';
import type { ObjectRegistry } from '../storage/objects.js';
import { currentRequest, runInRequest, type TusRequest } from './context.js';
import { protocolError, versionRequired } from './errors.js';
import { uploadHooks } from './hooks.js';
import { UploadLocker } from './locker.js';
import { UploadStore } from './store.js';

/**
 * Resumable uploads (tus 1.0, API.md, Files) at `/files/:table/uploads`: @tus/server speaks the protocol, Basalt's
 * store (store.ts), lock (locker.ts) and hooks (hooks.ts) decide. This is the door between Express and it: the
 * caller is established before (files/routes.ts resolves credentials as every /files route does, 401 in the
 * envelope), the request becomes a web Request for @tus/server, and its answer goes back out, errors in the envelope
 * through the app's error handler. CORS stays the app's (http/cors.ts answers preflights and sets the origin on every
 * answer): @tus/server's own CORS headers are dropped rather than contradict CORS_ORIGINS.
 */

export interface UploadsOptions {
  knex: Knex;
  registry: ObjectRegistry;
  files: FileService;
  /** PUBLIC_URL as it stands: `Location` is absolute under it (it may carry a path prefix a proxy adds). */
  publicUrl(): string;
  onError?: (error: unknown) => void;
}

/** Headers that describe one hop or the body of @tus/server's own answer, never Basalt's. */
const DROPPED_REQUEST_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);
const dropAnswerHeader = (name: string) => name.startsWith('access-control-') || name === 'content-length' || name === 'content-type' || name === 'connection';

/** Methods a client behind a proxy that only passes GET and POST may ask for with `X-HTTP-Method-Override`. */
const OVERRIDABLE = new Set(['PATCH', 'DELETE', 'HEAD']);

function methodOf(req: Request): string {
  const override = req.headers['x-http-method-override'];
  if (req.method === 'POST' && typeof override === 'string' && OVERRIDABLE.has(override.toUpperCase())) return override.toUpperCase();
  return req.method;
}

/** The request as @tus/server reads it. The URL's path is Basalt's; the upload id is taken from the path here. */
function webRequest(req: Request, method: string): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
    for (const one of [value].flat()) headers.append(name, one);
  }
  const body = method === 'POST' || method === 'PATCH' ? { body: Readable.toWeb(req) as unknown as globalThis.ReadableStream, duplex: 'half' } : {};
  return new globalThis.Request(`http://basalt.invalid${req.baseUrl}${req.path}`, { method, headers, ...body } as RequestInit);
}

export const uploadLocation = (publicUrl: string, table: string, id: string) =>
  `${publicUrl.replace(/\/+$/, '')}/files/${encodeURIComponent(table)}/${UPLOADS_SEGMENT}/${id}`;

export function createUploads(options: UploadsOptions): RequestHandler {
  const { knex, registry, files } = options;
  const server = new Server({
    // Only for @tus/server's bookkeeping: the URL (generateUrl) and the id (getFileIdFromRequest) are Basalt's.
    path: `/files/:table/${UPLOADS_SEGMENT}`,
    datastore: new UploadStore(knex, registry, files),
    locker: new UploadLocker(knex, undefined, options.onError),
    // Upload ids are server-generated, 128 random bits, never `uploads` (API.md): an anon upload's only secret.
    namingFunction: () => randomId(),
    generateUrl: (_req, { id }) => uploadLocation(options.publicUrl(), currentRequest().table, id),
    getFileIdFromRequest: () => currentRequest().uploadId,
    ...uploadHooks(knex, files),
  });

  const handle = async (req: Request, res: Response): Promise<void> => {
    const caller = req.caller;
    if (!caller) throw unauthorized();
    const method = methodOf(req);
    const segments = req.path.split('/').filter(Boolean);
    const uploadId = segments[0];
    // Creation is a POST to the collection; everything else names one upload; tus has no GET.
    // OPTIONS (without a preflight's headers, http/cors.ts) is tus's discovery: versions, extensions, the largest size.
    if (segments.length > 1 || method === 'GET' || (method !== 'OPTIONS' && (method === 'POST') === (uploadId !== undefined))) {
      throw new ApiError('NOT_FOUND', `No route for ${req.method} ${req.originalUrl.split('?')[0]}`);
    }
    res.setHeader('Tus-Resumable', TUS_RESUMABLE);
    // Another version is 412 (tus 1.0); @tus/server itself would call it an invalid header (400).
    const version = req.headers['tus-resumable'];
    if (version !== undefined && version !== TUS_RESUMABLE) throw versionRequired();
    const request: TusRequest = { caller, table: String(req.params.table), address: originOf(req).address, method, ...(uploadId ? { uploadId } : {}) };
    const answer = await runInRequest(request, () => server.handleWeb(webRequest(req, method)));
    for (const [name, value] of answer.headers) if (!dropAnswerHeader(name)) res.setHeader(name, value);
    if (answer.status >= 400) throw request.error ?? protocolError(answer.status, await answer.text());
    if (request.completedRecord) res.setHeader(RECORD_ID_HEADER, request.completedRecord);
    res.status(answer.status).end();
  };

  return async (req: Request, res: Response) => {
    try {
      await handle(req, res);
    } catch (error) {
      // A refusal before the body was read: the connection closes after the answer rather than read it all.
      if (!req.complete) res.setHeader('Connection', 'close');
      if ((error as ApiError).status === 412) res.setHeader('Tus-Version', TUS_RESUMABLE);
      throw error;
    }
  };
}
