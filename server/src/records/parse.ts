import { MAX_BULK_RECORDS } from '@basalt/contract';
import { ApiError, invalidBody, invalidParameter, invalidPathEncoding } from '../errors.js';
import { parseChangeParams, parseListParams, parseSelection, single, type ChangeParams, type ListParams, type QueryParams } from './query/parse.js';
import { EMBED_OPTION, type SelectItem } from './query/select.js';
import type { EmbedOptions } from './query/parse.js';

export type { QueryParams };

/**
 * Stage 1 of the record pipeline: method, path, query and body -> a typed request. Nothing here knows the schema or
 * touches the database: names stay names until the plan stage looks them up.
 */

/**
 * `update`: an update of an existing record only (PATCH, a file's replacement); `update-where` and `delete-where`:
 * changes by filter (PATCH and DELETE on the table).
 */
export type RecordAction = 'list' | 'get' | 'create' | 'upsert' | 'update' | 'delete' | 'update-where' | 'delete-where';

/** The table and record a request names, decoded, and what it asks to do with them. */
export type RecordTarget =
  | { action: 'list' | 'create' | 'update-where' | 'delete-where'; table: string }
  | { action: 'get' | 'upsert' | 'update' | 'delete'; table: string; id: string };

export type Body = Record<string, unknown>;

export type RecordRequest =
  | { action: 'list'; table: string; params: ListParams }
  | { action: 'get'; table: string; id: string; select?: SelectItem[] | null; embedOptions?: Record<string, EmbedOptions> }
  | { action: 'delete'; table: string; id: string }
  /** `file`: an upload's file columns (files/upload.ts), set by the server; a bucket takes creates with it alone. */
  | { action: 'create'; table: string; body: Body; select?: Selected; file?: Body }
  /** A JSON array on create: 1 to 1,000 records, all or none. */
  | { action: 'create-many'; table: string; bodies: Body[]; select?: Selected }
  | { action: 'upsert'; table: string; id: string; body: Body; select?: Selected }
  | { action: 'update'; table: string; id: string; body: Body; select?: Selected; file?: Body }
  /** Changes by filter: every matching row the caller may change (body: the columns to set, for `update`). */
  | { action: 'change-where'; op: 'update' | 'delete'; table: string; params: ChangeParams; body: Body; select?: Selected }
  /** `POST ?onConflict=<column>`: each element updates the row holding its key, or is inserted. */
  | { action: 'upsert-on'; table: string; onConflict: string; bodies: Body[]; single: boolean; select?: Selected };

/** A `select` on a single record's read or write: columns, embeds and their options. */
export interface Selected {
  select: SelectItem[] | null;
  embedOptions: Record<string, EmbedOptions>;
}

/** The selection asked of a single record, or undefined when the query asks none (the common case, kept cheap). */
function selectedOf(query: QueryParams): Selected | undefined {
  if (query.select === undefined && !Object.keys(query).some((key) => EMBED_OPTION.test(key))) return undefined;
  return parseSelection(query);
}

/** A path segment as Express decodes route parameters; bad percent-encoding is the caller's 400. */
export function decodePathSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidPathEncoding();
  }
}

/**
 * What a method and a path below `/api` name: `/items` and `/items/abc`, each also with a trailing slash as Express's
 * non-strict routes matched them. Null when no record route has that shape (the caller answers 404).
 */
export function parseTarget(method: string, path: string): RecordTarget | null {
  if (!path.startsWith('/')) return null;
  const inner = path.slice(1, path.length > 1 && path.endsWith('/') ? -1 : undefined);
  const slash = inner.indexOf('/');
  const rawTable = slash < 0 ? inner : inner.slice(0, slash);
  const rawId = slash < 0 ? undefined : inner.slice(slash + 1);
  if (!rawTable || rawId === '' || rawId?.includes('/')) return null;
  const action = actionOf(method, rawId !== undefined);
  if (!action) return null;
  const table = decodePathSegment(rawTable);
  if (action === 'list' || action === 'create' || action === 'update-where' || action === 'delete-where') return { action, table };
  return { action, table, id: decodePathSegment(rawId!) };
}

function actionOf(method: string, withId: boolean): RecordAction | null {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return withId ? 'get' : 'list';
    case 'POST':
      return withId ? null : 'create';
    case 'PUT':
      return withId ? 'upsert' : null;
    case 'PATCH':
      return withId ? 'update' : 'update-where';
    case 'DELETE':
      return withId ? 'delete' : 'delete-where';
    default:
      return null;
  }
}

/** The length of a URL's query string: URLs reach Node as one byte per character. */
export function queryBytesOf(url: string): number {
  const question = url.indexOf('?');
  return question < 0 ? 0 : url.length - question - 1;
}

/** Whether the action reads a body (after the policy allowed it). */
export function takesBody(action: RecordAction): boolean {
  return action === 'create' || action === 'upsert' || action === 'update' || action === 'update-where';
}

/** Whether the action's body may be an array (a bulk insert); PUT takes one object. */
export function takesArrayBody(action: RecordAction): boolean {
  return action === 'create';
}

export function operationOf(action: RecordAction): 'read' | 'write' {
  return action === 'list' || action === 'get' ? 'read' : 'write';
}


const bodyError = (message: string, details?: Record<string, unknown>) => new ApiError('VALIDATION_ERROR', message, details);

/**
 * A single record's route takes `select` and its embeds' options (GET, and POST/PUT, whose written record is answered
 * as the select asks); DELETE takes none. Anything else is refused rather than ignored: `?selct=id` answered with the
 * whole record would hide the typo, and a filter (`?user_id=x`) silently ignored on a write would mislead.
 */
function refuseOtherParameters(action: Exclude<RecordAction, 'list' | 'update-where' | 'delete-where'>, query: QueryParams): void {
  for (const key of Object.keys(query)) {
    if (action !== 'delete' && (key === 'select' || (EMBED_OPTION.test(key) && !key.includes('[')))) continue;
    if (action === 'create' && key === 'onConflict') continue;
    const takes = action === 'delete' ? 'a delete takes no query parameters' : 'a single record takes select and <embed>.order, <embed>.limit';
    throw invalidParameter(key, `${key} is not a parameter of this route: ${takes}`);
  }
}

/** A bulk body: an array of 1 to 1,000 objects. */
function bulkBodies(body: unknown[]): Body[] {
  if (body.length === 0 || body.length > MAX_BULK_RECORDS) {
    throw invalidBody(`A bulk insert takes 1 to ${MAX_BULK_RECORDS} records; this one has ${body.length}`);
  }
  body.forEach((element, index) => {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) throw bodyError(`Record ${index} of the array is not a JSON object`, { index });
  });
  return body as Body[];
}

/** A create's body: one object, or an array of 1 to 1,000 objects (a bulk insert); with `onConflict` an upsert. */
function createRequest(table: string, body: Body | unknown[] | undefined, query: QueryParams): RecordRequest {
  const onConflict = single(query, 'onConflict');
  const select = selectedOf(query);
  if (onConflict !== undefined) {
    const bodies = Array.isArray(body) ? bulkBodies(body) : [body ?? {}];
    return { action: 'upsert-on', table, onConflict, bodies, single: !Array.isArray(body), select };
  }
  if (!Array.isArray(body)) return { action: 'create', table, body: body ?? {}, select };
  return { action: 'create-many', table, bodies: bulkBodies(body), select };
}

/** The whole request, once the target is known to be allowed (so a 400 never comes before a 403). */
export function parseRequest(target: RecordTarget, query: QueryParams, body: Body | unknown[] | undefined, queryBytes = 0): RecordRequest {
  if (target.action === 'list') return { action: 'list', table: target.table, params: parseListParams(query, queryBytes) };
  if (target.action === 'update-where' || target.action === 'delete-where') {
    if (Array.isArray(body)) throw invalidBody('The request body must be a JSON object: the columns to set on every matching record');
    const op = target.action === 'update-where' ? 'update' : 'delete';
    return { action: 'change-where', op, table: target.table, params: parseChangeParams(query, queryBytes), body: body ?? {}, select: selectedOf(query) };
  }
  refuseOtherParameters(target.action, query);
  switch (target.action) {
    case 'create':
      return createRequest(target.table, body, query);
    case 'upsert':
    case 'update':
      if (Array.isArray(body)) throw invalidBody('The request body must be a JSON object');
      return { action: target.action, table: target.table, id: target.id, body: body ?? {}, select: selectedOf(query) };
    case 'get': {
      const selected = selectedOf(query);
      return selected ? { action: 'get', table: target.table, id: target.id, ...selected } : { action: 'get', table: target.table, id: target.id };
    }
    case 'delete':
      return { action: 'delete', table: target.table, id: target.id };
  }
}
