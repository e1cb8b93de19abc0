import { Router, type Request, type RequestHandler } from 'express';
import type { SchemaCache } from '../db/schemaCache.js';
import type { TableSchema } from '../db/schema.js';
import type { TokenService } from '../auth/tokens.js';
import { authorize, type Operation } from '../policies/authorize.js';
import { authenticate, callerOf } from '../http/credentials.js';
import { jsonObjectBody } from '../http/body.js';
import { ApiError, notFound } from '../http/errors.js';
import { parseListQuery } from './query.js';
import type { Access, RecordService } from './service.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by `resolveTable`: the served table and what the caller may touch in it. */
    records?: { table: TableSchema; access: Access };
  }
}

function recordsOf(req: Request): { table: TableSchema; access: Access } {
  if (!req.records) throw new ApiError('INTERNAL_ERROR', 'table was not resolved');
  return req.records;
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
}): Router {
  const { cache, records } = deps;
  const router = Router();
  const body = jsonObjectBody(deps.bodyLimitBytes);

  const resolveTable = (operation: Operation): RequestHandler => async (req, _res, next) => {
    const name = String(req.params.table);
    const reloading = cache.whenFresh();
    if (reloading) await reloading;
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
    req.records = { table, access: { scope, mode: 'scoped', writer } };
    next();
  };

  router.use(authenticate(deps.tokens));

  router.get('/:table', resolveTable('read'), async (req, res) => {
    const { table, access } = recordsOf(req);
    const { rows, total } = await records.list(table, parseListQuery(table, req.query), access);
    res.json({ data: rows, total });
  });

  router.get('/:table/:id', resolveTable('read'), async (req, res) => {
    const { table, access } = recordsOf(req);
    res.json({ data: await records.get(table, String(req.params.id), access) });
  });

  router.post('/:table', resolveTable('write'), ...body, async (req, res) => {
    const { table, access } = recordsOf(req);
    res.status(201).json({ data: await records.create(table, req.body as Record<string, unknown>, access) });
  });

  router.put('/:table/:id', resolveTable('write'), ...body, async (req, res) => {
    const { table, access } = recordsOf(req);
    const { row, created } = await records.upsert(table, String(req.params.id), req.body as Record<string, unknown>, access);
    res.status(created ? 201 : 200).json({ data: row });
  });

  router.delete('/:table/:id', resolveTable('write'), async (req, res) => {
    const { table, access } = recordsOf(req);
    res.json({ data: await records.remove(table, String(req.params.id), access) });
  });

  return router;
}
