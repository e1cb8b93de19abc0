import { Router, type Request, type RequestHandler } from 'express';
import type { AccountService } from '../auth/accounts.js';
import type { PasswordChanges } from '../auth/passwordChanges.js';
import type { TokenService } from '../auth/tokens.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { authenticate, callerOf, userOf } from '../auth/credentials.js';
import { parsePathId } from '../auth/validation.js';
import { jsonObjectBody } from '../http/body.js';
import { accountGone, ApiError, unauthorized } from '../errors.js';
import { authorizeOwnerTools } from '../policies/authorize.js';
import { administeredTable, answerRecordCall, explainAccess, parseCheckInput, parsePaging, queryBytesOf, type RecordAction, type RecordCall, type RecordDeps } from '../records/index.js';
import { prefersCsv, recordBodyReader, sendAnswer } from '../records/routes.js';
import { viewerOf } from './viewAs.js';
import { freshnessOf } from '../replicas/headers.js';
import { answerFresh } from '../db/fresh.js';
import { parseColumnDefinition, parseColumnSettings, parseCreateTable, parsePolicyChange } from './definitions.js';
import type { TableAdmin } from './tables.js';
import { generateTypes } from './typegen.js';
import { sendJson } from '../http/respond.js';
import { streamHandler, type RealtimeDeps } from '../realtime/routes.js';
import type { KeyService } from '../auth/keys/service.js';
import type { Hub } from '../realtime/hub.js';
import type { Telemetry } from '../ops/telemetry.js';
import type { EmailService } from '../auth/email/service.js';
import { ownerEmailRoutes } from '../auth/email/routes.js';
import type { Mfa } from '../auth/mfa/service.js';
import { webhookRoutes } from '../webhooks/routes.js';
import type { Webhooks } from '../webhooks/wiring.js';

/**
 * /admin: the owner's tools. The role is checked before routing, so a member gets 403 on every path under /admin,
 * known or not, and the owner gets 404 on an unknown one.
 */
export function adminRoutes(deps: {
  cache: SchemaCache;
  tables: TableAdmin;
  records: RecordDeps;
  accounts: AccountService;
  passwordChanges: PasswordChanges;
  tokens: TokenService;
  keys: KeyService;
  realtime: { hub: Hub; capture: RealtimeDeps['capture']; streamsPerCaller: number; maxStreams: number };
  telemetry: Telemetry;
  email: EmailService;
  mfa: Mfa;
  providers: { registry: { list(): Array<{ name: string; displayName: string }> } };
  bodyLimitBytes: number;
  signupEnabled: boolean;
  webhooks: Webhooks;
}): Router {
  const { cache, tables, accounts, tokens } = deps;
  const router = Router();
  const body = jsonObjectBody(deps.bodyLimitBytes);
  const recordBody = recordBodyReader(deps.bodyLimitBytes);

  const ownerOnly: RequestHandler = async (req, _res, next) => {
    const caller = callerOf(req);
    const decision = authorizeOwnerTools(caller);
    if (!decision.allowed) {
      if (decision.reason === 'not-signed-in') throw unauthorized('The administrative area needs the owner signed in, not the anon key');
      throw new ApiError('FORBIDDEN', 'Only the project owner may use the administrative area');
    }
    if (caller.kind === 'user' && !(await accounts.userExists(caller.id))) throw accountGone();
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
  router.post('/tables', body, async (req, res) => {
    const { name, columns, policy, rules, bucket } = parseCreateTable(req.body);
    // "Name taken" is decided from the cache first: a table another process just dropped is looked up afresh.
    sendJson(res, 201, { data: await fresh(() => tables.create(name, columns, policy, rules, bucket)) });
  });
  router.get('/tables/:name', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.describe(String(req.params.name))) });
  });
  router.patch('/tables/:name', tableExists, body, async (req, res) => {
    const change = parsePolicyChange(req.body);
    sendJson(res, 200, { data: await fresh(() => tables.setPolicy(String(req.params.name), change)) });
  });
  router.delete('/tables/:name', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.drop(String(req.params.name))) });
  });
  router.post('/tables/:name/columns', tableExists, body, async (req, res) => {
    const column = parseColumnDefinition(req.body, '');
    sendJson(res, 201, { data: await fresh(() => tables.addColumn(String(req.params.name), column)) });
  });
  router.patch('/tables/:name/columns/:column', tableExists, body, async (req, res) => {
    const { readOnly } = parseColumnSettings(req.body);
    sendJson(res, 200, { data: await fresh(() => tables.setColumnReadOnly(String(req.params.name), String(req.params.column), readOnly)) });
  });
  router.delete('/tables/:name/columns/:column', async (req, res) => {
    sendJson(res, 200, { data: await fresh(() => tables.dropColumn(String(req.params.name), String(req.params.column))) });
  });

  // Index builds are DDL whose own failure paths change the schema version: only the table lookup is retried.
  router.post('/tables/:name/indexes', tableExists, body, async (req, res) => {
    sendJson(res, 201, { data: await tables.createIndex(String(req.params.name), req.body) });
  });
  router.delete('/tables/:name/indexes/:index', tableExists, async (req, res) => {
    sendJson(res, 200, { data: await tables.dropIndex(String(req.params.name), String(req.params.index)) });
  });

  // The owner's record tools: the record pipeline with the owner's unscoped access (every row, the owner column an
  // ordinary column).
  const records =
    (action: RecordAction): RequestHandler =>
    async (req, res) => {
      const table = String(req.params.name);
      const target = action === 'list' || action === 'create' || action === 'update-where' || action === 'delete-where' ? { action, table } : { action, table, id: String(req.params.id) };
      const { as, ...query } = req.query as Record<string, unknown>;
      let call: RecordCall = { surface: 'admin', caller: callerOf(req), target, query, queryBytes: queryBytesOf(req.url), readBody: recordBody(req, res), freshness: freshnessOf(req), csv: prefersCsv(req) };
      if (as !== undefined) {
        if (action !== 'list') throw new ApiError('VALIDATION_ERROR', 'as is taken only by the records list', { parameter: 'as' });
        // What that caller would see through /api: their policy and rules, the cursor bound to them.
        call = { ...call, surface: 'api', caller: await viewerOf(accounts, as, 'parameter'), viewAs: String(as) };
      }
      sendAnswer(req, res, await answerRecordCall(deps.records, call));
    };
  router.get('/tables/:name/records', records('list'));
  router.get('/tables/:name/records/:id', records('get'));
  router.post('/tables/:name/records', records('create'));
  router.put('/tables/:name/records/:id', records('upsert'));
  router.delete('/tables/:name/records/:id', records('delete'));
  router.patch('/tables/:name/records/:id', records('update'));
  router.patch('/tables/:name/records', records('update-where'));
  router.delete('/tables/:name/records', records('delete-where'));

  // Why a caller may or may not do something (API.md, "Access rules", Explain): nothing is written.
  router.post('/tables/:name/rules/check', tableExists, body, async (req, res) => {
    const { as, ...input } = parseCheckInput(req.body as Record<string, unknown>);
    const caller = await viewerOf(accounts, as, 'field');
    sendJson(res, 200, { data: await fresh(() => explainAccess(deps.records, administeredTable(cache, String(req.params.name)), caller, input)) });
  });

  // Every change of a table, every row (the owner's tools see past policies): the console's live grid.
  router.get('/tables/:name/realtime', streamHandler({ ...deps.realtime, cache, tokens, keys: deps.keys }, 'admin', (req) => String(req.params.name)));

  router.get('/types', async (_req, res) => {
    // No refusal here to notice a stale cache by: ask the database directly.
    if (await cache.isStale()) await cache.reload();
    sendJson(res, 200, { data: { typescript: generateTypes(cache.servedTables()) } });
  });
  router.get('/users', async (req, res) => {
    const { users, total } = await accounts.listUsers(parsePaging(req.query));
    sendJson(res, 200, { data: users, total });
  });
  const userId = (req: Request) => parsePathId(String(req.params.id), 'user');
  router.delete('/users/:id', async (req, res) => {
    sendJson(res, 200, { data: await accounts.deleteUserAsOwner(userOf(req).id, userId(req)) });
  });
  router.post('/users/:id/signout', async (req, res) => {
    await accounts.signOutEverywhere(userId(req));
    sendJson(res, 200, { data: { signedOut: true } });
  });
  // A member who lost their authenticator and recovery codes: the owner removes the factor.
  router.delete('/users/:id/mfa', async (req, res) => {
    const id = userId(req);
    // The owner's own factor goes only through DELETE /auth/mfa/totp, which needs it proven in the session.
    if (id === userOf(req).id) throw new ApiError('VALIDATION_ERROR', 'Remove your own factor with DELETE /auth/mfa/totp (it needs the factor)', { parameter: 'id' });
    if (!(await accounts.userExists(id))) throw new ApiError('NOT_FOUND', `No user ${id}`);
    if (!(await deps.mfa.totp.remove(id))) throw new ApiError('NOT_FOUND', `${id} has no second factor`);
    sendJson(res, 200, { data: { removed: true } });
  });
  router.post('/users/:id/reset-link', async (req, res) => {
    sendJson(res, 201, { data: await deps.passwordChanges.createResetLink(userId(req)) });
  });
  // The last hour of the whole process group's traffic, in 10 s points (every worker's counts summed).
  router.get('/overview', async (_req, res) => {
    sendJson(res, 200, { data: await deps.telemetry.overview() });
  });
  router.get('/settings', (_req, res) => {
    sendJson(res, 200, { data: { anonKey: tokens.anonKey, signupEnabled: deps.signupEnabled, smtp: deps.email.smtp, providers: deps.providers.registry.list() } });
  });
  router.use(ownerEmailRoutes(deps.email, body));
  router.use(webhookRoutes(deps.webhooks.service, body));

  return router;
}
