import { Router, type Request, type RequestHandler } from 'express';
import { APIKEY_HEADER } from '@basalt/contract';
import { resolveCaller } from '../auth/credentials.js';
import type { KeyService } from '../auth/keys/service.js';
import type { TokenService } from '../auth/tokens.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { ApiError, invalidParameter, notFound } from '../errors.js';
import { requireAccess, type Surface } from '../policies/access.js';
import type { Caller } from '../policies/caller.js';
import { answerFresh } from '../db/fresh.js';
import { parseListParams, planConditions, planFilter, planSelection, queryBytesOf, single, type QueryParams } from '../records/index.js';
import { filterKeyOf } from './changeRows.js';
import type { Hub, Subscription } from './hub.js';
import { placeOf, type Place } from './log.js';
import { openEventStream } from './stream.js';

export interface RealtimeDeps {
  hub: Hub;
  /** Switches capture on for a stream's tables before it opens (tracking/capture.ts). */
  capture: { want(tables: readonly string[]): Promise<void> };
  cache: SchemaCache;
  tokens: TokenService;
  keys: KeyService;
  /** Open streams per caller and per process (429 past either). */
  streamsPerCaller: number;
  maxStreams: number;
}

/** Query keys of the stream routes that are not filters. */
const RESERVED = new Set(['apikey', 'access_token', 'lastEventId', 'tables']);
/** What a list takes but a stream cannot: 400 naming it. */
const NOT_ON_STREAMS = ['order', 'limit', 'offset', 'after', 'count'];

/** Credentials as /api takes them, or (for EventSource, which cannot set headers) `?access_token=` / `?apikey=`. */
async function callerOf(req: Request, deps: RealtimeDeps): Promise<Caller> {
  const token = single(req.query as QueryParams, 'access_token');
  const apikey = single(req.query as QueryParams, 'apikey');
  const headers = req.headers.authorization !== undefined || req.headers[APIKEY_HEADER] !== undefined ? req.headers : token !== undefined ? { authorization: `Bearer ${token}` } : apikey !== undefined ? { [APIKEY_HEADER]: apikey } : {};
  return resolveCaller({ headers } as Request, deps.tokens, deps.keys);
}

function resumePlace(req: Request): Place | null {
  const given = req.headers['last-event-id'] ?? single(req.query as QueryParams, 'lastEventId');
  if (given === undefined || given === '') return null;
  const place = typeof given === 'string' ? placeOf(given) : null;
  if (!place) throw invalidParameter('lastEventId', 'Last-Event-ID is not an event id of this service');
  return place;
}

function readable(deps: RealtimeDeps, caller: Caller, name: string, surface: Surface) {
  const table = deps.cache.served(name);
  if (!table) throw notFound(`No table ${name}`);
  requireAccess(table, caller, 'read', surface, { it: true });
  return table;
}

/** One table's stream: the list filters and `select` (columns only). */
function oneTable(deps: RealtimeDeps, caller: Caller, name: string, query: QueryParams, queryBytes: number, surface: 'api' | 'admin') {
  const table = readable(deps, caller, name, surface);
  for (const key of NOT_ON_STREAMS) if (query[key] !== undefined) throw invalidParameter(key, `${key} does not apply to a stream: it delivers every change that matches`);
  const rest = Object.fromEntries(Object.entries(query).filter(([key]) => !RESERVED.has(key)));
  const params = parseListParams(rest, queryBytes);
  if (params.select?.some((item) => item.kind === 'embed')) throw invalidParameter('select', 'select: a stream carries the table\'s own columns, not embeds');
  // select before the filters, as a list plans them (which parameter a 400 names when both are wrong).
  const columns = planSelection(table, params.select, {}, undefined).columns;
  const conditions = planConditions(table, params.filters);
  // `filter=`: folded for the caller as the stream opens (so `@now` is that moment), paths under the reached tables' read.
  const expression = params.filter === null ? undefined : planFilter(table, params.filter, { tables: deps.cache, caller, surface });
  return {
    tables: [table.name],
    filter: conditions.length > 0 || expression ? { conditions, ...(expression ? { expression } : {}), key: filterKeyOf(conditions, expression) } : null,
    columns: columns?.map((column) => column.name) ?? null,
  };
}

/** Several tables in one stream (a browser tab needs one connection): no filters. */
function severalTables(deps: RealtimeDeps, caller: Caller, query: QueryParams) {
  const list = single(query, 'tables');
  if (!list) throw invalidParameter('tables', 'tables must name one or more tables, comma-separated');
  const names = [...new Set(list.split(',').map((name) => name.trim()))];
  if (names.length > 50 || names.some((name) => name === '')) throw invalidParameter('tables', 'tables must name 1 to 50 tables, comma-separated');
  const other = Object.keys(query).find((key) => !RESERVED.has(key));
  if (other) throw invalidParameter(other, `${other}: a stream of several tables takes no filters or select; open one stream per table for those`);
  return { tables: names.map((name) => readable(deps, caller, name, 'api').name), filter: null, columns: null };
}

const identityOf = (caller: Caller, req: Request) => (caller.kind === 'user' ? `user:${caller.id}` : `anon:${req.ip ?? ''}`);

/** Opens a stream: credentials (401), table (404), policy (403), parameters (400), limits (429), in that order. */
export function streamHandler(deps: RealtimeDeps, surface: 'api' | 'admin', tableOf: (req: Request) => string | null): RequestHandler {
  return async (req, res) => {
    const caller = surface === 'admin' ? req.caller! : (req.caller = await callerOf(req, deps));
    const query = req.query as QueryParams;
    const name = tableOf(req);
    const shape = await answerFresh(deps.cache, async () => (name === null ? severalTables(deps, caller, query) : oneTable(deps, caller, name, query, queryBytesOf(req.url), surface)));
    const after = resumePlace(req);
    const identity = identityOf(caller, req);
    if (deps.hub.isClosed) throw new ApiError('UNAVAILABLE', 'This server process is shutting down; reconnect');
    if (deps.hub.size >= deps.maxStreams) throw new ApiError('RATE_LIMITED', 'This server process has as many open streams as it takes; try again shortly', { limit: 'realtimeStreams', retryAfter: 5 });
    const mine = [...deps.hub.subscribers()].filter((subscriber) => subscriber.identity === identity).length;
    if (mine >= deps.streamsPerCaller) {
      throw new ApiError('RATE_LIMITED', `At most ${deps.streamsPerCaller} open streams per caller: close one first`, { limit: 'realtimeStreamsPerCaller', retryAfter: 5 });
    }
    // Only a captured table has its changes logged: from here on every write to them is; and the stream begins with
    // the oldest transaction still running, so a write its client makes after the 200 is never taken for history.
    await deps.capture.want(shape.tables);
    const start = await deps.hub.position();
    const subscription: Subscription = { caller, identity, surface, ...shape, after, start, sink: openEventStream(res) };
    if (caller.kind === 'user' && caller.expiresAt !== undefined) subscription.expiresAt = caller.expiresAt;
    res.on('close', () => deps.hub.drop(subscription));
    deps.hub.add(subscription);
  };
}

/** `/realtime/:table` and `/realtime?tables=a,b`. */
export function realtimeRoutes(deps: RealtimeDeps): Router {
  const router = Router();
  router.get('/', streamHandler(deps, 'api', () => null));
  router.get('/:table', streamHandler(deps, 'api', (req) => String(req.params.table)));
  return router;
}
