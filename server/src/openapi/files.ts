import { ID_COLUMN, MAX_SIGNED_LINK_SECONDS, TIMESTAMP_COLUMNS, UPLOADS_SEGMENT } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../db/schema.js';
import { DEFAULT_NAME } from '../files/content/names.js';
import { MAX_VARIANTS } from '../files/download.js';
import { MAX_WAITING } from '../files/transform/images.js';
import { pathParameter } from './admin.js';
import { BYTES_HEADERS, CACHING_HEADERS, CONTENT_RANGE, EXPIRES_PATTERN, nameSchema, SIG_PATTERN, TRANSFORM_QUERY, TRANSFORM_RULES } from './fileValues.js';
import { noneOf } from './patterns.js';
import { envelope, jsonBody, object, ref, responses, SECURITY, str, type Operation, type Schema } from './schema.js';
import { componentName, filterSchema } from './tables.js';

/**
 * `/files/<bucket>` (issue 28, API.md "Files"): uploads (the body is the file, or multipart/form-data), downloads (GET
 * and HEAD, ranges, conditional requests, image variants, signed links), replacements and signing, per bucket as one
 * caller may use them (the bucket's access decision, as for its records). The bytes and the 206, 304 and 416 answers
 * are outside the JSON envelope; every error is in it.
 */

type Paths = Record<string, Record<string, Operation>>;

/** What one caller may do with a bucket: read its files (download, and sign unless a read-only key), write them. */
export interface FileAccess {
  read: boolean;
  write: boolean;
  sign: boolean;
}

const UPLOAD_ERRORS = [400, 401, 403, 404, 409, 413, 429, 503, 504];
const DOWNLOAD_ERRORS = [400, 401, 403, 404, 503, 504];
const SIGN_ERRORS = [400, 401, 403, 404, 413, 503, 504];

const query = (name: string, schema: Schema, description = schema.description as string): Schema => ({ name, in: 'query', required: false, description, schema });
const headerParameter = (name: string, description: string): Schema => ({ name, in: 'header', required: false, description, schema: str() });

/** A file's id: server-made, never `uploads` (that is the resumable uploads' path). */
export const fileId = pathParameter('id', `The file's id (its record's id; never \`${UPLOADS_SEGMENT}\`)`, str({ pattern: noneOf([UPLOADS_SEGMENT]) }));

/** The columns an upload may set besides `name`: the bucket's metadata columns (not the file columns, id or the timestamps). */
export function metadataColumns(table: TableSchema): ColumnSchema[] {
  return table.columnList.filter((column) => column.name !== ID_COLUMN && !(TIMESTAMP_COLUMNS as readonly string[]).includes(column.name) && !column.generated && !column.readOnly);
}

/**
 * A metadata column as text (a query parameter, a form field, an `Upload-Metadata` value): coerced as a body value is;
 * a json column's is JSON text (`contentMediaType`: no pattern can say which texts parse).
 */
export function metadataSchema(column: ColumnSchema): Schema {
  const schema = filterSchema(column);
  if (column.type === 'json') return { ...schema, contentMediaType: 'application/json', description: `${column.name}: JSON text (else 400 naming it)` };
  return { ...schema, description: `${column.name} as text (coerced to ${column.type})` };
}

/** Download parameters: transforms, a signed link's, and the conditional and range headers. */
export function downloadParameters(link: boolean): Schema[] {
  return [
    ...Object.entries(TRANSFORM_QUERY).map(([name, schema]) => query(name, schema)),
    ...(link
      ? [
          query('expires', str({ pattern: EXPIRES_PATTERN }), 'A signed link\'s expiry (epoch seconds), with `sig`: the link is the proof, credentials are not needed'),
          query('sig', str({ pattern: SIG_PATTERN }), 'A signed link\'s signature, with `expires`. One given without the other is 400 naming the missing one; a link that expired, was made for another variant or an older content of the file is 403 (`details.reason: link`)'),
        ]
      : []),
    headerParameter('Range', '`bytes=<start>-<end>` (or `bytes=-<suffix>`): one range is honoured (206); several are answered whole (200); a start past the end, or bytes that are no range, 416; another unit is ignored'),
    headerParameter('If-None-Match', 'The ETag held: 304 while it matches'),
    headerParameter('If-Modified-Since', 'An HTTP date: 304 while the file has not changed since (If-None-Match wins)'),
    headerParameter('If-Range', 'An ETag or date: the range only while the file is that one, else the whole file'),
  ];
}

/** The answers of a download (GET; HEAD has the same without a body). */
export function downloadResponses(): Record<string, unknown> {
  const bytes = { 'application/octet-stream': { schema: ref('FileBytes') }, '*/*': { schema: ref('FileBytes') } };
  return {
    ...responses({ status: 200, description: 'The whole file (or the variant)', headers: BYTES_HEADERS, content: bytes }, DOWNLOAD_ERRORS),
    206: { description: 'One range of it', headers: { ...BYTES_HEADERS, 'Content-Range': CONTENT_RANGE('^bytes [0-9]+-[0-9]+/[0-9]+$', '`bytes <start>-<end>/<size>`') }, content: bytes },
    304: { description: 'Not modified: the copy held is current (no body)', headers: CACHING_HEADERS },
    416: { description: 'The range starts past the end, or is not a valid byte range (no body)', headers: { ...CACHING_HEADERS, 'Content-Range': CONTENT_RANGE('^bytes \\*/[0-9]+$', '`bytes */<size>`') } },
  };
}

/** The body of an upload or a replacement: the file itself, or a form with the file and its fields. */
function uploadBody(table: TableSchema, replacing: boolean): Schema {
  const fields: Record<string, Schema> = {
    file: { type: 'string', format: 'binary', description: 'The file (one part; its filename is the default `name`)' },
    name: nameSchema(replacing ? 'absent: kept' : `absent: the part's filename, else \`${DEFAULT_NAME}\``),
  };
  for (const column of metadataColumns(table)) fields[column.name] = metadataSchema(column);
  return {
    required: true,
    description: 'The file as the body (its `Content-Type` is a hint: the type is found in the bytes; it may refine text to `text/csv` or `application/json`), or `multipart/form-data` with one file part and text fields (`name`, metadata columns: a field overrides the query parameter of its name). An empty body is a file of 0 bytes',
    content: {
      'multipart/form-data': { schema: object(fields, ['file']) },
      'application/octet-stream': { schema: ref('FileBytes') },
      '*/*': { schema: ref('FileBytes') },
    },
  };
}

function uploadParameters(table: TableSchema, replacing: boolean): Schema[] {
  return [
    query('name', nameSchema(replacing ? 'absent: kept' : `absent: the multipart filename, else \`${DEFAULT_NAME}\``)),
    ...metadataColumns(table).map((column) => query(column.name, metadataSchema(column))),
  ];
}

/** What the bucket takes, for an upload's description. */
function limitsOf(table: TableSchema): string {
  const bucket = table.bucket!;
  const required = metadataColumns(table).filter((column) => !column.nullable && !column.hasDefault).map((column) => `\`${column.name}\``);
  return [
    `At most ${bucket.maxFileSize} bytes (\`maxFileSize\`; less when the account's files are near \`limits.storageBytesPerUser\`): past it 413 \`PAYLOAD_TOO_LARGE\`, and nothing is kept.`,
    bucket.allowedTypes ? `Types ${bucket.allowedTypes.map((type) => `\`${type}\``).join(', ')} only (found in the bytes): another is 400 naming \`type\`.` : 'Any type.',
    required.length ? `Required: ${required.join(', ')} (a query parameter or a form field).` : '',
    'An unknown field, `id` (the server chooses it), a file column (`type`, `size`, `sha256`, `user_id`) or a value that does not fit its column is 400 naming it. Each upload counts against `limits.uploadsPerUser`: past it 429 with `Retry-After`.',
  ].filter(Boolean).join(' ');
}

/** The paths of one bucket under `/files` for a caller. */
export function filePaths(table: TableSchema, access: FileAccess): Paths {
  const base = `/files/${encodeURIComponent(table.name)}`;
  const tags = [`table: ${table.name}`];
  const record = ref(componentName(table.name));
  const security = SECURITY.api;
  const who = `under its ${table.effectivePolicy} policy`;
  const paths: Paths = {};
  if (access.write) {
    paths[base] = {
      post: {
        operationId: `files.${table.name}.upload`,
        summary: `Upload a file to ${table.name}: its record is created (${who}, as a create)`,
        description: `The bytes stream to storage (never held whole); the row follows with the columns found in them (\`type\`, \`size\`, \`sha256\`) and the uploader (\`user_id\`, null for anon). ${limitsOf(table)} Resumable uploads: \`${base}/${UPLOADS_SEGMENT}\` (tus 1.0).`,
        tags,
        security,
        parameters: uploadParameters(table, false),
        requestBody: uploadBody(table, false),
        responses: responses({ status: 201, description: 'The record, or `{ id }` where the caller may not read it', schema: envelope(record) }, UPLOAD_ERRORS),
      },
    };
  }
  const single: Record<string, Operation> = {};
  if (access.read) {
    const download = (method: 'get' | 'head'): Operation => ({
      operationId: `files.${table.name}.${method === 'get' ? 'download' : 'head'}`,
      summary: method === 'get' ? `A file of ${table.name}: its bytes, or an image variant` : `A file's headers, as GET answers them, without the bytes`,
      description: `Answers as GET /api/${table.name}/{id} would (403 when the caller may read no file of the bucket, 404 for a file outside what it may read), or through a signed link (POST ${base}/{id}/sign) without credentials. Without any credentials (a plain URL: \`<img src>\`) the caller is anon where anon reads every file of the bucket, else 401. Any other parameter is 400 naming it; each once. Transforms: ${TRANSFORM_RULES} (at most ${MAX_VARIANTS} per file); with more than ${MAX_WAITING} waiting in a process, 503 with \`Retry-After\`.`,
      tags,
      // A signed link needs no credentials, nor a bucket anon reads whole.
      security: [...SECURITY.api, {}],
      parameters: [fileId, ...downloadParameters(true)],
      responses: downloadResponses(),
    });
    single.get = download('get');
    single.head = download('head');
  }
  if (access.write) {
    single.put = {
      operationId: `files.${table.name}.replace`,
      summary: `Replace a file's content (${who}, as an update)`,
      description: `A missing id is 404 (this only replaces). \`name\` and metadata columns may change with it. The old bytes and their variants go after the commit; links signed for them stop working. ${limitsOf(table)}`,
      tags,
      security,
      parameters: [fileId, ...uploadParameters(table, true)],
      requestBody: uploadBody(table, true),
      responses: responses({ status: 200, description: 'The record as stored, or `{ id }` where the caller may not read it', schema: envelope(record) }, UPLOAD_ERRORS),
    };
  }
  if (Object.keys(single).length) paths[`${base}/{id}`] = single;
  if (access.sign) {
    paths[`${base}/{id}/sign`] = {
      post: {
        operationId: `files.${table.name}.sign`,
        summary: 'A link anyone may open until it expires',
        description: `For a file the caller may read (else 403 or 404 as a download), not with a read-only API key (403). \`expiresIn\`: 1 to ${MAX_SIGNED_LINK_SECONDS} seconds; a \`transform\` makes a link for that variant alone (${TRANSFORM_RULES}). The link is bound to the file's content: replacing it ends the link.`,
        tags,
        security,
        parameters: [fileId],
        requestBody: jsonBody(ref('SignFile')),
        responses: responses({ status: 200, description: 'The link', schema: envelope(ref('SignedLink')) }, SIGN_ERRORS),
      },
    };
  }
  return paths;
}

/** `GET /admin/tables/{name}/files/{id}`: the owner's console reads any file (no policy). */
export function adminFilePath(tableName: Schema): Paths {
  return {
    '/admin/tables/{name}/files/{id}': {
      get: {
        operationId: 'admin.file',
        summary: 'Any file\'s bytes, for the console (no policy applies)',
        description: `A bucket's file as GET /files/<bucket>/{id} answers it (ranges, conditional requests, variants; \`Cache-Control: private\`). A table that is not a bucket, or a missing id, is 404. Transforms: ${TRANSFORM_RULES}.`,
        tags: ['admin: records'],
        security: SECURITY.user,
        parameters: [tableName, fileId, ...downloadParameters(false)],
        responses: downloadResponses(),
      },
    },
  };
}
