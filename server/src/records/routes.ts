import { Router, type Request, type RequestHandler } from 'express';
import type { SchemaCache } from '../db/schemaCache.js';
import type { TableSchema } from '../db/schema.js';
import type { TokenService } from '../auth/tokens.js';
import { authorize, type Operation } from '../policies/authorize.js';
import { authenticate, callerOf, resolveCaller } from '../auth/credentials.js';
import { jsonObjectBody } from '../http/body.js';
import { ApiError, notFound } from '../errors.js';
import { decodePathSegment } from './parse.js';
import { parseListQuery } from './query.js';
import type { Access, RecordService } from './service.js';
import { answerFresh } from './fresh.js';
import { sendJson } from '../http/respond.js';

/**
 * The still-encoded table and id of a read path below `/api`: `/items`, `/items/abc`, each also with a trailing
 * slash, as Express's non-strict routes match them. Null for any other path.
 */
function readTarget(path: string): { table: string; id?: string } | null {
  if (!path.startsWith('/')) return null;
  const inner = path.slice(1, path.length > 1 && path.endsWith('/') ? -1 : undefined);
  const slash = inner.indexOf('/');
  if (slash < 0) return inner ? { table: inner } : null;
  const table = inner.slice(0, slash);
  const id = inner.slice(slash + 1);
  if (!table || !id || id.includes('/')) return null;
  return { table, id };
}

/**
 * `/api/:table`. The order of checks is the contract's: credentials (401) -> table (404) -> policy (403) ->
 * parameters and body (400) -> row (404). Bodies are read only after the policy allowed the write.
 */
export function recordRoutes(deps: {
  cache: SchemaCache;
  records: RecordService;
  tokens: TokenService;
  bodyLimitBytes: number;
}): [RequestHandler, Router] {
  const { cache, records } = deps;
  const router = Router();
  const body = jsonObjectBody(deps.bodyLimitBytes);

  /** The served table and what the caller may do in it, from the schema cache: 404, 403, or the access. */
  const resolve = (name: string, req: Request, operation: Operation): { table: TableSchema; access: Access } => {
    const table = cache.served(name);
    if (!table) throw notFound(`No table ${name}`);
    const caller = callerOf(req);
    const decision = authorize(table.effectivePolicy, caller, operation);
    if (!decision.allowed) {
      throw new ApiError('FORBIDDEN', `The ${table.effectivePolicy} policy of ${table.name} does not allow this caller to ${operation}`, {
        table: table.name,
        policy: table.effectivePolicy,
        operation,
      });
    }
    const scope = decision.ownerScope !== null && table.ownerColumn ? { ownerColumn: table.ownerColumn, userId: decision.ownerScope } : null;
    // An access token outlives a deleted account; its writes must not: the write statement checks the account.
    const writer = operation === 'write' && caller.kind === 'user' ? caller.id : null;
    return { table, access: { scope, mode: 'scoped', writer } };
  };

  /** Table (404) and policy (403) are checked before the body is read. */
  const check = (operation: Operation): RequestHandler => async (req, _res, next) => {
    await answerFresh(cache, async () => resolve(String(req.params.table), req, operation));
    next();
  };

  /**
   * The reads, `GET /:table` and `GET /:table/:id`: the hot path of the API, answered here without the router's
   * layers (their matching, parameter decoding and per-layer promise bookkeeping show in every read's profile: see
   * docs/performance.md). Same order of checks as every route: credentials first. Anything else goes on to the
   * router below.
   */
  const reads: RequestHandler = async (req, res, next) => {
    const target = req.method === 'GET' || req.method === 'HEAD' ? readTarget(req.path) : null;
    if (!target) {
      next();
      return;
    }
    req.caller = resolveCaller(req, deps.tokens);
    const name = decodePathSegment(target.table);
    if (target.id === undefined) {
      const { rows, total } = await answerFresh(cache, () => {
        const { table, access } = resolve(name, req, 'read');
        return records.list(table, parseListQuery(table, req.query), access);
      });
      sendJson(res, 200, { data: rows, total });
      return;
    }
    const id = decodePathSegment(target.id);
    const row = await answerFresh(cache, () => {
      const { table, access } = resolve(name, req, 'read');
      return records.get(table, id, access);
    });
    sendJson(res, 200, { data: row });
  };

  router.use(authenticate(deps.tokens));

  router.post('/:table', check('write'), ...body, async (req, res) => {
    const row = await answerFresh(cache, () => {
      const { table, access } = resolve(String(req.params.table), req, 'write');
      return records.create(table, req.body as Record<string, unknown>, access);
    });
    sendJson(res, 201, { data: row });
  });

  router.put('/:table/:id', check('write'), ...body, async (req, res) => {
    const { row, created } = await answerFresh(cache, () => {
      const { table, access } = resolve(String(req.params.table), req, 'write');
      return records.upsert(table, String(req.params.id), req.body as Record<string, unknown>, access);
    });
    sendJson(res, created ? 201 : 200, { data: row });
  });

  router.delete('/:table/:id', check('write'), async (req, res) => {
    const row = await answerFresh(cache, () => {
      const { table, access } = resolve(String(req.params.table), req, 'write');
      return records.remove(table, String(req.params.id), access);
    });
    sendJson(res, 200, { data: row });
  });

  return [reads, router];
}
