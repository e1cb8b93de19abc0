import { AsyncLocalStorage } from 'node:async_hooks';
import type { Caller } from '../../policies/caller.js';

/**
 * What one tus request knows about itself besides its headers: who calls, which bucket the path names, the upload
 * the path names. @tus/server hands its hooks a web Request and its DataStore only an upload id, so the request's
 * part of Basalt's state travels beside them in an AsyncLocalStorage, set by the handler (handler.ts) around the
 * whole of one request's handling.
 */
export interface TusRequest {
  caller: Caller;
  /** The bucket named by the path (`/files/:table/uploads`). */
  table: string;
  /** The client's address: anon's uploads count against `uploadsPerUser` per address. */
  address: string;
  method: string;
  /** The upload named by the path; none on a creation. */
  uploadId?: string;
  /** Set once the answer may name the file: a completed upload's row id (`Basalt-Record-Id`). */
  completedRecord?: string;
  /** A failure to answer in the JSON envelope rather than as tus's text (hooks.ts, `onResponseError`). */
  error?: unknown;
}

const requests = new AsyncLocalStorage<TusRequest>();

export function runInRequest<T>(request: TusRequest, run: () => Promise<T>): Promise<T> {
  return requests.run(request, run);
}

/** The request being handled; outside one (a programming error) it throws rather than guess a caller. */
export function currentRequest(): TusRequest {
  const request = requests.getStore();
  if (!request) throw new Error('a tus upload was touched outside a request');
  return request;
}

/** The request being handled, if any (the store's reads also serve the sweep, which has none). */
export function maybeRequest(): TusRequest | undefined {
  return requests.getStore();
}

/** Whether `caller` is the one who created an upload: its account, or (creator null) anon with the upload's id. */
export function isCreator(creator: string | null, caller: Caller): boolean {
  return caller.kind === 'user' ? creator === caller.id : creator === null;
}

export const creatorOf = (caller: Caller): string | null => (caller.kind === 'user' ? caller.id : null);
