import { Router, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { AccountService } from '../auth/accounts.js';
import type { TokenService } from '../auth/tokens.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { authenticate, callerOf } from '../auth/credentials.js';
import { jsonObjectBody } from '../http/body.js';
import { ApiError, unauthorized } from '../errors.js';
import { parseListQuery, parsePaging } from '../records/query.js';
import type { Access, RecordService } from '../records/service.js';
import { parseColumnDefinition, parseCreateTable, parsePolicyChange } from './definitions.js';
import type { TableAdmin } from './tables.js';
import { generateTypes } from './typegen.js';
import { answerFresh } from '../records/fresh.js';
import { sendJson } from '../http/respond.js';

// The owner's account was checked before routing: writes need no check of their own.
const UNSCOPED: Access = { scope: null, mode: 'unscoped', writer: null };

/**
 * /admin: the owner's tools. The role is checked before routing, so a member gets 403 on every path under /admin,
 * known or not, and the owner gets 404 on an unknown one.
 */
export function adminRoutes(deps: {
  knex: Knex;
  cache: SchemaCache;
  tables: TableAdmin;
  records: RecordService;
  accounts: AccountService;
  tokens: TokenService;
  bodyLimitBytes: number;
  signupEnabled: boolean;
}): Router {
  const { cache, tables, records, accounts, tokens } = deps;
  const router = Router();
  const body = jsonObjectBody(deps.bodyLimitBytes);

  const ownerOnly: RequestHandler = async (req, _res, next) => {
    const caller = callerOf(req);
    if (caller.kind !== 'user') throw unauthorized('The administrative area needs the owner signed in, not the anon key');
    if (caller.role !== 'owner') throw new ApiError('FORBIDDEN', 'Only the project owner may use the administrative area');
    if (!(await accounts.userExists(caller.id))) throw unauthorized('The account of this token no longer exists');
    next();
  };
  router.use(authenticate(tokens), ownerOnly);
  // Table lookups come from the schema cache: a table another process just made or changed is looked up afresh.
  const fresh = <T>(run: () => Promise<T> | T) => answerFresh(cache, async () => run());
  const tableExists: RequestHandler = async (req, _res, next) => {
    await fresh(() => tables.find(String(req.params.name)));
    next();
  };

  router.get('/tables', async (_req, res) => {
    if (await cache.isStale()) await cache.reload();
    sendJson(res, 200, { data: await tables.list() });
  });
  router.post('/tables', ...body, async (req, res) => {
    const { name, columns, policy } = parseCreateTable(req.body);
    // "Name taken" is decided from the cache first: a table another process just dropped is looked up afresh.
    sendJson(res, 201, { data: await fresh(() => tables.create(name, columns, policy)) });
  });
  router.get('/tables/:name', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.describe(String(req.params.name))) });
  });
  router.patch('/tables/:name', tableExists, ...body, async (req, res) => {
    const policy = parsePolicyChange(req.body);
    sendJson(res, 200, { data: await fresh(() => tables.setPolicy(String(req.params.name), policy)) });
  });
  router.delete('/tables/:name', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.drop(String(req.params.name))) });
  });
  router.post('/tables/:name/columns', tableExists, ...body, async (req, res) => {
    const column = parseColumnDefinition(req.body, '');
    sendJson(res, 201, { data: await fresh(() => tables.addColumn(String(req.params.name), column)) });
  });
  router.delete('/tables/:name/columns/:column', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.dropColumn(String(req.params.name), String(req.params.column))) });
  });

  // The owner's record tools: every row of every policy, the owner column an ordinary column.
  router.get('/tables/:name/records', async (req, res) => {
    const { rows, total } = await fresh(() => {
      const table = tables.find(String(req.params.name));
      return records.list(table, parseListQuery(table, req.query), UNSCOPED);
    });
    sendJson(res, 200, { data: rows, total });
  });
  router.get('/tables/:name/records/:id', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => records.get(tables.find(String(req.params.name)), String(req.params.id), UNSCOPED)) });
  });
  router.post('/tables/:name/records', tableExists, ...body, async (req, res) => {
    const row = await fresh(() => records.create(tables.find(String(req.params.name)), req.body as Record<string, unknown>, UNSCOPED));
    sendJson(res, 201, { data: row });
  });
  router.put('/tables/:name/records/:id', tableExists, ...body, async (req, res) => {
    const { row, created } = await fresh(() =>
      records.upsert(tables.find(String(req.params.name)), String(req.params.id), req.body as Record<string, unknown>, UNSCOPED),
    );
    sendJson(res, created ? 201 : 200, { data: row });
  });
  router.delete('/tables/:name/records/:id', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => records.remove(tables.find(String(req.params.name)), String(req.params.id), UNSCOPED)) });
  });

  router.get('/types', async (_req, res) => {
    // No refusal here to notice a stale cache by: ask the database directly.
    if (await cache.isStale()) await cache.reload();
    sendJson(res, 200, { data: { typescript: generateTypes(cache.servedTables()) } });
  });
  router.get('/users', async (req, res) => {
    const { limit, offset } = parsePaging(req.query);
    const [rows, count] = await Promise.all([
      deps.knex('users').select('id', 'email', 'role', 'created_at').orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(limit).offset(offset),
      deps.knex('users').count({ total: '*' }).first(),
    ]);
    sendJson(res, 200, {
      data: (rows as Array<{ id: string; email: string; role: string; created_at: Date }>).map((row) => ({
        id: row.id,
        email: row.email,
        role: row.role,
        createdAt: row.created_at.toISOString(),
      })),
      total: Number((count as { total: number } | undefined)?.total ?? 0),
    });
  });
  router.get('/settings', (_req, res) => {
    sendJson(res, 200, { data: { anonKey: tokens.anonKey, signupEnabled: deps.signupEnabled } });
  });

  return router;
}
