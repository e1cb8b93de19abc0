import {
  API_KEY_ACCESS,
  API_KEY_NAME_MAX_LENGTH,
  API_KEY_PREFIX,
  COLUMN_NAME_PATTERN,
  COLUMN_TYPES,
  DEFAULT_MAX_FILE_SIZE,
  EMAIL_MAX_LENGTH,
  ERROR_STATUS,
  INDEX_KINDS,
  LOCALE_MAX_LENGTH,
  MAX_FILE_SIZE_LIMIT,
  ON_DELETE_RULES,
  OWNER_COLUMNS,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_BYTES,
  POLICIES,
  RULE_MEMBERS,
  MAX_EXPRESSION_LENGTH,
  ROLES,
  TABLE_KINDS,
  TABLE_NAME_PATTERN,
} from '@basalt/contract';
import { EMAIL, LOCALE, passwordPattern, trimmedUnitsText } from './patterns.js';
import { VALUE_SCHEMAS } from './values.js';

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses it) pieces every document shares: the error envelope, the account and
 * table shapes, and the builders of operations and responses. The per-table parts are in tables.ts.
 */

export type Schema = Record<string, unknown>;
export type Operation = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const bool: Schema = { type: 'boolean' };
export const dateTime: Schema = { type: 'string', format: 'date-time' };

/** An object with exactly these properties: the listed ones required, nothing else allowed. */
export function object(properties: Record<string, Schema>, required: string[] = Object.keys(properties), extra: Schema = {}): Schema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false, ...extra };
}

/** `{ data: <schema> }`, the success envelope; `more` adds list members (`total`, `next`). */
export const envelope = (data: Schema, more: Record<string, Schema> = {}, required = ['data', ...Object.keys(more)]): Schema =>
  object({ data, ...more }, required);

/** The text of the error statuses every document uses, by status. */
const ERROR_TEXTS: Record<number, string> = {
  400: 'The request is not valid: `details` names the parameter or field (on /files: `type` for a type the bucket does not take; `body` for a create of a bucket\'s record other than by upload). `EMAIL_REQUIRED` where an identity provider shared no email address and a new account needs one',
  401: 'Missing, invalid or expired credentials (`details.reason` is `token_expired` for an expired access token)',
  403: 'The caller may not do this: `details` names the table, its policy and the operation where a policy refused; `details.reason` is `read_only_key` where a `read` API key wrote what its user may write. On /auth: `SIGNUP_DISABLED` where sign-ups are off, `EMAIL_NOT_VERIFIED` where a sign-in needs a verified address (`auth.emailVerification` `required`), `MFA_REQUIRED` where the account has a second factor on and this session has not proven it (`aal` 1). On /files, `details.reason` is `link` for a signed link that expired or no longer matches the file',
  404: 'No such route, table, bucket, record, file, account, mail, webhook or delivery (or a record outside the caller\'s scope); on /auth/otp, sign-in by email is not enabled (`auth.emailSignIn`); on the second factor\'s routes, no factor is on; on /auth/oauth and /auth/identities, no identity provider of that name is configured (or linked, for an unlink)',
  409: 'A conflict: a unique value taken, a reference that still points at the row, or (dropping a table or column) a rule or a webhook\'s filter that reads it (`details: { constraint: "rule", column: "<table>.rules.<member>" or "webhooks.<id>.filter" }`). `ACCOUNT_EXISTS` (`details.provider`) where an identity provider\'s first sign-in matched an account it may not link to by itself: sign in another way, then link',
  413: 'The request body is larger than the limit (on /files: the bucket\'s `maxFileSize`, or what is left of the account\'s `limits.storageBytesPerUser`)',
  429: 'Too many attempts (on /files: uploads past `limits.uploadsPerUser`): retry after `Retry-After` seconds',
  502: '`PROVIDER_ERROR`: the identity provider failed Basalt\'s request (its signing keys could not be fetched): retry shortly',
  503: 'The database is unavailable, an identity provider\'s discovery has not succeeded yet, too many image transforms are waiting (with `Retry-After`), or the process is shutting down: retry',
  504: 'The statement ran past STATEMENT_TIMEOUT',
};
export const ERROR_STATUSES = Object.keys(ERROR_TEXTS).map(Number);

/**
 * The responses of one operation: its success and the errors it can answer (always 503 where the database answers). A
 * success's `content` null: no body (a 204, tus's answers); `headers`: those it carries.
 */
export function responses(success: { status: number; description: string; schema?: Schema; content?: Record<string, unknown> | null; headers?: Record<string, unknown> }, errors: number[]): Record<string, unknown> {
  const content = success.content === null ? {} : { content: success.content ?? { 'application/json': { schema: success.schema } } };
  const result: Record<string, unknown> = {
    [success.status]: { description: success.description, ...(success.headers ? { headers: success.headers } : {}), ...content },
  };
  for (const status of errors) result[status] = { $ref: `#/components/responses/E${status}` };
  return result;
}

export const jsonBody = (schema: Schema, description?: string): Schema => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

const errorEnvelope = object({
  error: object(
    {
      code: str({ enum: Object.keys(ERROR_STATUS) }),
      message: str(),
      details: { type: 'object' },
    },
    ['code', 'message'],
  ),
});

const tokenPair = { accessToken: str(), refreshToken: str() };
/** An account's email as answered: lower-case; not `format: email`, which refuses the internationalised ones sign-up takes. */
const storedEmail = str({ description: 'The account\'s email address, lower-cased' });
const authUser = object({ id: str(), email: storedEmail, role: str({ enum: [...ROLES] }) });
const profile = {
  id: str(),
  email: storedEmail,
  role: str({ enum: [...ROLES] }),
  createdAt: dateTime,
  verified: { ...bool, description: 'The address was proven (a mail\'s link or code, an invite), or the account predates required verification' },
  hasPassword: { ...bool, description: 'false for an account made by an emailed sign-in code, or an invite not yet accepted' },
  locale: nullable(str({ description: 'BCP 47, from sign-up or a sending endpoint' })),
  mfa: { ...bool, description: 'A second factor (TOTP) is on' },
  identities: { type: 'array', items: ref('Identity'), description: 'Identity providers linked to the account, oldest first' },
};
/** `providers` of the settings: the identity providers configured (`auth.providers`), in their order there. */
export const providersSchema: Schema = {
  type: 'array',
  items: object({ name: str({ description: 'The provider\'s name in the routes (`/auth/oauth/{provider}`)' }), displayName: str({ description: 'What a sign-in button shows' }) }),
  description: 'The identity providers configured (`auth.providers`): sign in with GET /auth/oauth/{provider}',
};
const keyInfo = { id: str(), name: str(), access: str({ enum: [...API_KEY_ACCESS] }), createdAt: dateTime, expiresAt: nullable(dateTime) };

const columnDefinition = object(
  {
    name: str({ pattern: COLUMN_NAME_PATTERN.source }),
    type: str({ enum: [...COLUMN_TYPES] }),
    nullable: bool,
    unique: bool,
    default: { description: 'A JSON literal of the column\'s type' },
    references: object({ table: str({ pattern: TABLE_NAME_PATTERN.source }), onDelete: str({ enum: [...ON_DELETE_RULES] }) }, ['table']),
    readOnly: { ...bool, description: '`/api` writes may not set it; the owner\'s record routes and SQL can' },
  },
  ['name', 'type'],
);

/** A type pattern of a bucket's `allowedTypes` (server/src/admin/definitions.ts reads the same). */
export const ALLOWED_TYPE = '^(?:[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/(?:\\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})|\\*/\\*)$';

/** `rules`: one expression per operation (API.md, "Access rules"); an absent member refuses it. */
export const rulesSchema = object(Object.fromEntries(RULE_MEMBERS.map((member) => [member, str({ maxLength: MAX_EXPRESSION_LENGTH })])), []);

const table = object({
  name: str(),
  policy: str({ enum: [...POLICIES] }),
  ownerColumn: nullable(str({ enum: [...OWNER_COLUMNS] })),
  effectivePolicy: str({ enum: [...POLICIES] }),
  rules: rulesSchema,
  rulesProblem: str({ description: 'Why a stored rule no longer compiles (its operation is refused until fixed)' }),
  rowCount: object({ value: int({ minimum: 0 }), exact: bool }),
  columns: {
    type: 'array',
    items: object(
      {
        name: str(),
        type: str({ enum: [...COLUMN_TYPES] }),
        nullable: bool,
        unique: bool,
        primaryKey: bool,
        default: {},
        references: object({ table: str(), onDelete: str({ enum: [...ON_DELETE_RULES] }) }),
        readOnly: bool,
      },
      ['name', 'type', 'nullable', 'unique', 'primaryKey', 'default', 'readOnly'],
    ),
  },
  indexes: { type: 'array', items: object({ name: str(), columns: { type: 'array', items: str() }, unique: bool, kind: str({ enum: [...INDEX_KINDS] }) }) },
  realtime: object({ captured: bool, streamed: bool, problem: str() }, ['captured', 'streamed']),
  kind: str({ enum: [...TABLE_KINDS], description: '`files`: a bucket, whose records are files uploaded through /files/<table>' }),
  bucket: object({ maxFileSize: int({ minimum: 1, maximum: MAX_FILE_SIZE_LIMIT }), allowedTypes: nullable({ type: 'array', items: str() }) }, ['maxFileSize', 'allowedTypes'], { description: 'A bucket\'s settings (absent for a table of records): `allowedTypes` null takes every type' }),
}, ['name', 'policy', 'ownerColumn', 'effectivePolicy', 'rules', 'rowCount', 'columns', 'indexes', 'realtime', 'kind']);

const overviewPoint = object({
  at: dateTime,
  requests: int({ minimum: 0 }),
  clientErrors: int({ minimum: 0 }),
  serverErrors: int({ minimum: 0 }),
  p99Ms: nullable({ type: 'number', minimum: 0 }),
  signIns: int({ minimum: 0 }),
  signInFailures: int({ minimum: 0 }),
});

const password = str({
  pattern: passwordPattern(PASSWORD_MIN_BYTES, PASSWORD_MAX_BYTES),
  description: `${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes of UTF-8, no NUL character. A pattern counts characters: it admits every such password of ASCII characters, and others as far as their characters' widths guarantee the bytes`,
});

/** What sign-up and sign-in take: the service trims and lower-cases the address, then checks it. */
const email = str({
  format: 'email',
  pattern: EMAIL,
  maxLength: EMAIL_MAX_LENGTH,
  description: `At most ${EMAIL_MAX_LENGTH} characters, a local part of at most 64, a domain of two labels or more (\`a@x.test\`, not \`a@localhost\`; the top-level domain is not checked). The service trims and lower-cases it first, and also takes internationalised addresses, which the pattern leaves out`,
});

/** A BCP 47 language tag (sign-up and the sending endpoints store it on the account). */
const LOCALE_TEXT = `A BCP 47 language tag such as \`en\` or \`pt-BR\`, at most ${LOCALE_MAX_LENGTH} characters`;
export const localeSchema = (use: string): Schema => str({ pattern: LOCALE, maxLength: LOCALE_MAX_LENGTH, description: `${LOCALE_TEXT}: ${use}` });

/** Schemas shared by every document; a document keeps only those it refers to (see document.ts). */
export const SHARED_SCHEMAS: Record<string, Schema> = {
  Error: errorEnvelope,
  Credentials: object({ email, password, locale: localeSchema('the language of the account\'s mails (sign-up; sign-in ignores it)') }, ['email', 'password']),
  AuthUser: authUser,
  Profile: object(profile),
  AdminUser: object(profile, Object.keys(profile), { description: 'An account as the owner sees it: its profile' }),
  Identity: object({
    provider: str({ description: 'The provider\'s name' }),
    email: nullable(str({ description: 'The address the provider gave when it was linked' })),
    createdAt: { ...dateTime, description: 'When it was linked' },
  }),
  AuthResult: object({ ...tokenPair, user: authUser }),
  SignUpResult: {
    oneOf: [ref('AuthResult'), object({ user: authUser })],
    description: 'Signed in; under `auth.emailVerification` `required` the user alone (no tokens) until the address is verified (the first account, the owner, is signed in)',
  },
  TokenPair: object(tokenPair),
  SignedOut: object({ signedOut: { const: true } }),
  Session: object({ id: str(), createdAt: dateTime, lastUsedAt: dateTime, userAgent: nullable(str()), current: bool }),
  ApiKey: object({ ...keyInfo, lastUsedAt: nullable(dateTime) }),
  CreatedApiKey: object({ ...keyInfo, key: str({ pattern: `^${API_KEY_PREFIX}` }) }),
  CreateApiKey: object(
    {
      name: str({ pattern: trimmedUnitsText(API_KEY_NAME_MAX_LENGTH), description: `1 to ${API_KEY_NAME_MAX_LENGTH} characters (UTF-16 code units), no NUL, once white space at either end is trimmed (the name is stored trimmed)` }),
      access: str({ enum: [...API_KEY_ACCESS] }),
      expiresAt: ref('Expiry'),
    },
    ['name', 'access'],
  ),
  ColumnDefinition: columnDefinition,
  CreateTable: object(
    {
      name: str({ pattern: TABLE_NAME_PATTERN.source }),
      columns: { type: 'array', items: ref('ColumnDefinition'), description: 'A bucket\'s are its metadata columns (not `name`, `type`, `size`, `sha256` or an owner column: it has `user_id`, the uploader)' },
      policy: str({ enum: [...POLICIES] }),
      rules: rulesSchema,
      kind: str({ enum: [...TABLE_KINDS], description: '`files` makes a bucket: the file columns `name`, `type`, `size`, `sha256` and `user_id` (all read-only) come before `columns`' }),
      maxFileSize: int({ minimum: 1, maximum: MAX_FILE_SIZE_LIMIT, description: `A bucket's largest file in bytes (default ${DEFAULT_MAX_FILE_SIZE})` }),
      allowedTypes: { type: 'array', items: str({ pattern: ALLOWED_TYPE }), minItems: 1, maxItems: 64, description: 'A bucket\'s accepted types, as found in the bytes: `image/png`, `image/*` or `*/*` (absent: every type)' },
    },
    ['name'],
    // A bucket's settings go with `kind: "files"` (if/then rather than dependentSchemas: readers of JSON Schema draft 7,
    // Prism's among them, know it too).
    { allOf: ['maxFileSize', 'allowedTypes'].map((name) => ({ if: { required: [name] }, then: { required: ['kind'], properties: { kind: { const: 'files' } } } })) },
  ),
  CreateIndex: object({ columns: { type: 'array', items: str({ minLength: 1 }), minItems: 1 }, kind: str({ enum: ['btree', 'search'] }) }, ['columns']),
  Table: table,
  Overview: object({ bucketSeconds: int({ minimum: 1 }), workers: int({ minimum: 1 }), points: { type: 'array', items: overviewPoint } }),
  Status: object({ status: str() }),
  ...VALUE_SCHEMAS,
};

export const SHARED_PASSWORD = password;
export const SHARED_EMAIL = email;

/** The security schemes: which credential each operation takes is listed on it. */
export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'A user\'s access token (JWT), the anon key, or an API key (`bsk_...`): each where its rules allow',
  },
  apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'The anon key' },
  accessTokenQuery: { type: 'apiKey', in: 'query', name: 'access_token', description: 'On /realtime only: a user\'s access token or an API key' },
  apikeyQuery: { type: 'apiKey', in: 'query', name: 'apikey', description: 'On /realtime only: the anon key' },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
};

export const SECURITY = {
  none: [] as unknown[],
  user: [{ bearer: [] }],
  api: [{ bearer: [] }, { apikey: [] }],
  stream: [{ bearer: [] }, { apikey: [] }, { accessTokenQuery: [] }, { apikeyQuery: [] }],
  metrics: [{ metricsToken: [] }],
};

export function errorResponses(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_TEXTS).map(([status, description]) => [
      `E${status}`,
      {
        description,
        ...(status === '429' || status === '503' ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: int({ minimum: 0 }) } } } : {}),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
}
