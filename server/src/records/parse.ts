import { DEFAULT_LIMIT, MAX_LIMIT } from '@basalt/contract';
import { invalidParameter, invalidPathEncoding } from '../errors.js';

/**
 * Stage 1 of the record pipeline: method, path, query and body -> a typed request. Nothing here knows the schema or
 * touches the database: names stay names until the plan stage looks them up.
 */

export type RecordAction = 'list' | 'get' | 'create' | 'upsert' | 'delete';

/** The table and record a request names, decoded, and what it asks to do with them. */
export type RecordTarget = { action: 'list' | 'create'; table: string } | { action: 'get' | 'upsert' | 'delete'; table: string; id: string };

export type QueryParams = Record<string, unknown>;
export type Body = Record<string, unknown>;

export interface OrderParam {
  column: string;
  direction: 'asc' | 'desc';
}

export interface FilterParam {
  column: string;
  /** The value as sent: the plan coerces it to the column's type. */
  value: string;
}

export interface ListParams {
  limit: number;
  offset: number;
  /** As written, without the `id` tie-breaker the plan adds. */
  order: OrderParam[];
  filters: FilterParam[];
}

export type RecordRequest =
  | { action: 'list'; table: string; params: ListParams }
  | { action: 'get' | 'delete'; table: string; id: string }
  | { action: 'create'; table: string; body: Body }
  | { action: 'upsert'; table: string; id: string; body: Body };

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
  if (action === 'list' || action === 'create') return { action, table };
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
    case 'DELETE':
      return withId ? 'delete' : null;
    default:
      return null;
  }
}

/** Whether the action reads a body (after the policy allowed it). */
export function takesBody(action: RecordAction): boolean {
  return action === 'create' || action === 'upsert';
}

export function operationOf(action: RecordAction): 'read' | 'write' {
  return action === 'list' || action === 'get' ? 'read' : 'write';
}

const WHOLE_NUMBER = /^[0-9]+$/;
const RESERVED_PARAMETERS = new Set(['limit', 'offset', 'order']);

function single(params: QueryParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} is given more than once`);
  return value;
}

function wholeNumber(params: QueryParams, name: string, fallback: number): number {
  const value = single(params, name);
  if (value === undefined) return fallback;
  if (!WHOLE_NUMBER.test(value)) throw invalidParameter(name, `${name} must be a whole number >= 0`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw invalidParameter(name, `${name} is too large`);
  return parsed;
}

/** `limit` (default 20, clamped to 100) and `offset` of a listing: whole numbers, each given at most once. */
export function parsePaging(params: QueryParams): { limit: number; offset: number } {
  return { limit: Math.min(wholeNumber(params, 'limit', DEFAULT_LIMIT), MAX_LIMIT), offset: wholeNumber(params, 'offset', 0) };
}

function parseOrder(value: string | undefined): OrderParam[] {
  if (value === undefined) return [];
  return value.split(',').map((part) => {
    const dot = part.lastIndexOf('.');
    const direction = part.slice(dot + 1);
    if (dot <= 0 || (direction !== 'asc' && direction !== 'desc')) {
      throw invalidParameter('order', `order must be <column>.asc or <column>.desc, comma-separated; got "${part}"`);
    }
    return { column: part.slice(0, dot), direction };
  });
}

/** The list query: paging, order and equality filters, as sent. Any parameter given twice is 400 naming it. */
export function parseListParams(params: QueryParams): ListParams {
  const { limit, offset } = parsePaging(params);
  const order = parseOrder(single(params, 'order'));
  const filters: FilterParam[] = [];
  for (const name of Object.keys(params)) {
    if (RESERVED_PARAMETERS.has(name)) continue;
    filters.push({ column: name, value: single(params, name)! });
  }
  return { limit, offset, order, filters };
}

/** The whole request, once the target is known to be allowed (so a 400 never comes before a 403). */
export function parseRequest(target: RecordTarget, query: QueryParams, body: Body | undefined): RecordRequest {
  switch (target.action) {
    case 'list':
      return { action: 'list', table: target.table, params: parseListParams(query) };
    case 'create':
      return { action: 'create', table: target.table, body: body ?? {} };
    case 'upsert':
      return { action: 'upsert', table: target.table, id: target.id, body: body ?? {} };
    case 'get':
      return { action: 'get', table: target.table, id: target.id };
    case 'delete':
      return { action: 'delete', table: target.table, id: target.id };
  }
}
