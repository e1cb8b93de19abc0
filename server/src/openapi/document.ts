import type { TableSchema } from '../db/schema.js';
import { describesAccess } from '../policies/access.js';
import { isOwner, isReadOnly, type Caller } from '../policies/caller.js';
import { adminPaths, operationPaths, tableName } from './admin.js';
import { publicAuthPaths, userAuthPaths } from './auth.js';
import { adminFilePath, filePaths } from './files.js';
import { FILE_SCHEMAS } from './fileValues.js';
import { EMAIL_SCHEMAS, ownerEmailPaths, publicEmailPaths, userEmailPaths } from './email.js';
import { MFA_SCHEMAS, ownerMfaPaths, publicMfaPaths, userMfaPaths } from './mfa.js';
import { PROVIDER_SCHEMAS, publicProviderPaths, userProviderPaths } from './providers.js';
import { tablePaths, tableSchemas, type TableAccess } from './records.js';
import { errorResponses, responses, SECURITY, SECURITY_SCHEMES, SHARED_SCHEMAS as ACCOUNT_SCHEMAS, str, type Operation, type Schema } from './schema.js';
import { filterParameterComponents, type Readable } from './tables.js';
import { tusPaths } from './tus.js';
import { WEBHOOK_SCHEMAS } from './webhookValues.js';
import { ownerWebhookPaths } from './webhooks.js';

/**
 * The OpenAPI 3.1 document of the service as one caller may use it: anon sees the public-read tables, a member (or a
 * key) what the policies allow them, the owner everything, `/admin` included. Built from the schema cache, so it
 * changes when the schema does; callers of one kind get the same document (see `audienceOf`).
 */

/** What decides a caller's document: role, and whether a key (read or read-write) speaks for them. */
export function audienceOf(caller: Caller): string {
  if (caller.kind === 'anon') return 'anon';
  return caller.key ? `${caller.role}:key:${caller.key.access}` : caller.role;
}

export interface DocumentOptions {
  /** Whether GET /metrics answers (METRICS_TOKEN set). */
  metrics: boolean;
  version: string;
}

function accessOf(table: TableSchema, caller: Caller): TableAccess {
  return { read: describesAccess(table, caller, 'read'), write: describesAccess(table, caller, 'write') };
}

/** The schemas a document may refer to: the account, table and value ones, email's, the second factor's, the providers', the files', the webhooks'. */
const SHARED_SCHEMAS: Record<string, Schema> = { ...ACCOUNT_SCHEMAS, ...EMAIL_SCHEMAS, ...MFA_SCHEMAS, ...PROVIDER_SCHEMAS, ...FILE_SCHEMAS, ...WEBHOOK_SCHEMAS };

/** Every `$ref` a value holds, so a document carries only the shared schemas it uses. */
function referencedSchemas(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedSchemas(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) found.add(inner.slice('#/components/schemas/'.length));
      else referencedSchemas(inner, found);
    }
  }
  return found;
}

function severalTablesStream(): Record<string, Operation> {
  return {
    get: {
      operationId: 'api.stream',
      summary: 'Changes of several tables in one stream (no filters)',
      tags: ['realtime'],
      security: SECURITY.stream,
      parameters: [
        { name: 'tables', in: 'query', required: true, description: '1 to 50 table names, comma-separated', schema: str({ minLength: 1 }) },
        { name: 'lastEventId', in: 'query', required: false, description: 'Resume after this event', schema: str() },
        { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this event', schema: str() },
      ],
      responses: responses(
        { status: 200, description: 'An event stream', content: { 'text/event-stream': { schema: str() } } },
        [400, 401, 403, 404, 429, 503],
      ),
    },
  };
}

export function buildDocument(tables: TableSchema[], caller: Caller, options: DocumentOptions): Record<string, unknown> {
  const signedIn = caller.kind === 'user' && !caller.key;
  const owner = signedIn && isOwner(caller);
  const paths: Record<string, Record<string, Operation>> = {
    ...operationPaths({ metrics: owner && options.metrics }),
    ...publicAuthPaths(),
    ...publicEmailPaths(),
    ...publicMfaPaths(),
    ...publicProviderPaths(),
  };
  if (signedIn) Object.assign(paths, userAuthPaths(), userEmailPaths(), userMfaPaths(), userProviderPaths());

  const readers: Readable = { tables, readable: (table) => accessOf(table, caller).read };
  const tableComponents: Record<string, Schema> = {};
  const parameters: Record<string, Schema> = {};
  let anyReadable = false;
  for (const table of tables) {
    const access = accessOf(table, caller);
    if (!access.read && !access.write && !owner) continue;
    anyReadable ||= access.read;
    if (access.read || owner) Object.assign(parameters, filterParameterComponents(table));
    Object.assign(tableComponents, tableSchemas(table, access, owner ? ['api', 'admin'] : ['api'], readers));
    if (access.read || access.write) Object.assign(paths, tablePaths(table, access, 'api', readers));
    // A bucket's files (`/files/<bucket>`, its resumable uploads) under the same decision; a read-only key signs no link.
    if (table.bucket && (access.read || access.write)) Object.assign(paths, filePaths(table, { ...access, sign: access.read && !isReadOnly(caller) }));
    if (table.bucket && access.write) Object.assign(paths, tusPaths(table));
  }
  if (anyReadable) paths['/realtime'] = severalTablesStream();
  if (owner) {
    Object.assign(paths, adminPaths(), ownerEmailPaths(), ownerMfaPaths(), ownerWebhookPaths());
    if (tables.some((table) => table.bucket)) Object.assign(paths, adminFilePath(tableName));
    for (const table of tables) Object.assign(paths, tablePaths(table, { read: true, write: true }, 'admin', readers));
  }

  const errors = errorResponses();
  const used = referencedSchemas([paths, tableComponents, parameters, errors], new Set());
  // Shared schemas refer to each other (CreateTable -> ColumnDefinition): follow until nothing new is found.
  for (let size = 0; size !== used.size; ) {
    size = used.size;
    for (const name of [...used]) if (SHARED_SCHEMAS[name]) referencedSchemas(SHARED_SCHEMAS[name], used);
  }
  const shared = Object.fromEntries(Object.entries(SHARED_SCHEMAS).filter(([name]) => used.has(name)));
  const schemes = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => ((operation.security as object[] | undefined) ?? []).flatMap((entry) => Object.keys(entry)))));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Basalt API',
      version: options.version,
      description: [
        `The API of this project as ${caller.kind === 'anon' ? 'anon (the anon key)' : `${caller.kind === 'user' && caller.role === 'owner' ? 'the owner' : 'a member'}${caller.kind === 'user' && caller.key ? ` through a ${caller.key.access} API key` : ''}`} may use it: routes and tables it may not use are left out.`,
        'Every success body is `{ "data": ... }` (lists add `total` and `next`); every error is `{ "error": { "code", "message", "details"? } }`.',
        'Filters: `<column>=v` or `<column>[op]=v`; see the parameters of each list.',
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { ...shared, ...tableComponents },
      parameters,
      responses: errors,
      securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => schemes.has(name))),
    },
  };
}
