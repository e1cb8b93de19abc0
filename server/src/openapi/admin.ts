import { DEFAULT_LIMIT, MANAGED_COLUMNS, MAX_LIMIT, POLICIES, RESERVED_TABLES, SYSTEM_TABLE_PREFIXES } from '@basalt/contract';
import { noneOf, wholeNumber } from './patterns.js';
import { bool, envelope, int, jsonBody, nullable, object, providersSchema, ref, responses, rulesSchema, SECURITY, str, type Operation, type Schema } from './schema.js';

/** `/admin` (the owner signed in with an access token) and the operations routes (health, readiness, metrics, this document). */

type Paths = Record<string, Record<string, Operation>>;

export const pathParameter = (name: string, description: string, schema: Schema = str({ minLength: 1 })): Schema => ({ name, in: 'path', required: true, description, schema });
// A table made with psql may have any name; reserved names (the accounts' tables, `_...`, `pg_...`) are 400.
export const tableName = pathParameter('name', `A served table (not ${RESERVED_TABLES.join(', ')} or a name starting with ${SYSTEM_TABLE_PREFIXES.join(' or ')})`, str({ pattern: noneOf(RESERVED_TABLES, SYSTEM_TABLE_PREFIXES) }));
const columnName = pathParameter('column', `A column of the table (not ${MANAGED_COLUMNS.join(', ')}: the server keeps those)`, str({ pattern: noneOf(MANAGED_COLUMNS) }));
const paging = str({ pattern: wholeNumber(BigInt(Number.MAX_SAFE_INTEGER)) });
/** `limit` and `offset` of an owner's list (`what`: "Accounts"). */
export const pagingParameters = (what: string): Schema[] => [
  { name: 'limit', in: 'query', required: false, description: `${what} per page (default ${DEFAULT_LIMIT}; more than ${MAX_LIMIT} reads as ${MAX_LIMIT}; at most 2^53 - 1)`, schema: paging },
  { name: 'offset', in: 'query', required: false, description: `${what} to skip (at most 2^53 - 1)`, schema: paging },
];

export const admin = (operationId: string, summary: string, tag: string, success: { status?: number; data: Schema; description: string; more?: Record<string, Schema> }, errors: number[], extra: Operation = {}): Operation => ({
  operationId,
  summary,
  tags: [`admin: ${tag}`],
  security: SECURITY.user,
  ...extra,
  responses: responses({ status: success.status ?? 200, description: success.description, schema: envelope(success.data, success.more) }, [401, 403, ...errors, 503]),
});

const table = { data: ref('Table'), description: 'The table as it is now' };

export function adminPaths(): Paths {
  return {
    '/admin/tables': {
      get: admin('admin.tables', 'Every served table', 'tables', { data: { type: 'array', items: ref('Table') }, description: 'Tables' }, []),
      post: admin('admin.createTable', 'Create a table (it gets id, createdAt and updatedAt)', 'tables', { ...table, status: 201 }, [400, 409, 413], { requestBody: jsonBody(ref('CreateTable')) }),
    },
    '/admin/tables/{name}': {
      get: admin('admin.table', 'One table', 'tables', table, [400, 404], { parameters: [tableName] }),
      patch: admin('admin.setPolicy', 'Change the table\'s policy, or its rules (policy `rules`)', 'tables', table, [400, 404, 413], {
        parameters: [tableName],
        requestBody: jsonBody(object({ policy: str({ enum: [...POLICIES] }), rules: rulesSchema }, [])),
      }),
      delete: admin('admin.dropTable', 'Drop the table and its rows', 'tables', { data: ref('Table'), description: 'The dropped table' }, [400, 404, 409], { parameters: [tableName] }),
    },
    '/admin/tables/{name}/columns': {
      post: admin('admin.addColumn', 'Add a column', 'tables', { ...table, status: 201 }, [400, 404, 409, 413], { parameters: [tableName], requestBody: jsonBody(ref('ColumnDefinition')) }),
    },
    '/admin/tables/{name}/columns/{column}': {
      patch: admin('admin.setColumn', "Change a column's settings: readOnly (no DDL)", 'tables', table, [400, 404, 413], {
        parameters: [tableName, columnName],
        requestBody: jsonBody(object({ readOnly: bool }, ['readOnly'])),
      }),
      delete: admin('admin.dropColumn', 'Drop a column', 'tables', table, [400, 404, 409], { parameters: [tableName, columnName] }),
    },
    '/admin/tables/{name}/indexes': {
      post: admin('admin.createIndex', 'Build an index (concurrently: reads and writes go on)', 'tables', { ...table, status: 201 }, [400, 404, 409, 413, 504], {
        parameters: [tableName],
        requestBody: jsonBody(ref('CreateIndex')),
      }),
    },
    '/admin/tables/{name}/indexes/{index}': {
      delete: admin('admin.dropIndex', 'Drop an index', 'tables', table, [400, 404], { parameters: [tableName, pathParameter('index', 'An index of the table')] }),
    },
    '/admin/types': {
      get: admin('admin.types', 'TypeScript types of every served table, for the client library', 'tables', { data: object({ typescript: str() }), description: 'The source' }, []),
    },
    '/admin/users': {
      get: admin('admin.users', 'Every account, oldest first', 'users', { data: { type: 'array', items: ref('AdminUser') }, more: { total: int({ minimum: 0 }) }, description: 'A page of accounts' }, [400], {
        parameters: pagingParameters('Accounts'),
      }),
    },
    '/admin/users/{id}': {
      delete: admin('admin.deleteUser', 'Delete an account (not the owner\'s own)', 'users', { data: ref('AuthUser'), description: 'The deleted account' }, [400, 404], {
        parameters: [pathParameter('id', 'An account id')],
      }),
    },
    '/admin/users/{id}/signout': {
      post: admin('admin.signOutUser', 'End every session and API key of an account', 'users', { data: ref('SignedOut'), description: 'Signed out' }, [404], {
        parameters: [pathParameter('id', 'An account id')],
      }),
    },
    '/admin/users/{id}/reset-link': {
      post: admin('admin.resetLink', 'A single-use password reset token, valid one hour', 'users', { status: 201, data: object({ token: str(), expiresAt: str({ format: 'date-time' }) }), description: 'The token' }, [404], {
        parameters: [pathParameter('id', 'An account id')],
      }),
    },
    '/admin/settings': {
      get: admin('admin.settings', 'The anon key, the sign-up setting, the mail server and the identity providers', 'project', {
        data: object({
          anonKey: str(),
          signupEnabled: bool,
          smtp: object({ configured: { ...bool, description: 'SMTP_URL is set (else mails stay in the outbox, `unsent`)' }, from: nullable(str({ description: 'The sender address (`email.from`)' })) }),
          providers: providersSchema,
        }),
        description: 'Settings',
      }, []),
    },
    '/admin/overview': {
      get: admin('admin.overview', 'Requests, errors, p99 latency and sign-ins of the last hour, every worker summed', 'project', { data: ref('Overview'), description: 'The overview' }, []),
    },
  };
}

const plain = (operationId: string, summary: string, status: string, errors: number[]): Operation => ({
  operationId,
  summary,
  tags: ['operations'],
  security: SECURITY.none,
  responses: responses({ status: 200, description: status, schema: envelope(ref('Status')) }, errors),
});

/** Health, readiness, this document, and the metrics (listed for the owner where METRICS_TOKEN is set). */
export function operationPaths(options: { metrics: boolean }): Paths {
  const paths: Paths = {
    '/health': { get: plain('ops.health', 'Liveness: the process answers and the database does', '`ok`', [503]) },
    '/ready': { get: plain('ops.ready', 'Readiness: migrations ran, the schema is loaded, the database answers', '`ready`', [503]) },
    '/openapi.json': {
      get: {
        operationId: 'ops.openapi',
        summary: 'This document, as the caller may use the API',
        tags: ['operations'],
        security: SECURITY.api,
        responses: responses({ status: 200, description: 'An OpenAPI 3.1 document', schema: { type: 'object', required: ['openapi', 'paths'] } }, [401, 503]),
      },
    },
  };
  if (options.metrics) {
    paths['/metrics'] = {
      get: {
        operationId: 'ops.metrics',
        summary: 'Prometheus metrics of every worker process',
        tags: ['operations'],
        security: SECURITY.metrics,
        responses: responses({ status: 200, description: 'Prometheus text exposition', content: { 'text/plain': { schema: str() } } }, [401, 503]),
      },
    };
  }
  return paths;
}
