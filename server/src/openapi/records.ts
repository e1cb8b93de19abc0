import { MAX_BULK_RECORDS } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { envelope, jsonBody, ref, responses, SECURITY, str, type Operation, type Schema } from './schema.js';
import { changesByFilter, createBody, listSuccess, onConflictParameter, patchOne, SELECT_WITH_AGGREGATES } from './changes.js';
import { bodySchema, componentName, filterParameters, listParameters, listSchema, recordSchema, selectParameters, type Readable } from './tables.js';

/**
 * The record routes of one table, as one caller may use them: `/api/<table>` (and its stream) under the table's
 * policy, or the owner's `/admin/tables/<table>/records` without one. Only what the caller may do is listed.
 */

export interface TableAccess {
  read: boolean;
  write: boolean;
}

const READ_ERRORS = [400, 401, 403, 404, 503, 504];
const WRITE_ERRORS = [400, 401, 403, 404, 409, 413, 503, 504];
const STREAM_ERRORS = [400, 401, 403, 404, 429, 503];

const idParameter = (table: TableSchema): Schema => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `The record's id (a value that does not fit ${table.name}.id's type finds nothing: 404)`,
  schema: str({ minLength: 1 }),
});

/** What a bucket's record routes say: its rows are files, made by uploads alone. */
const BUCKET_ROWS = (table: TableSchema, surface: 'api' | 'admin'): string =>
  `${table.name} is a bucket: each record is a file, created only by an upload (POST /files/${table.name}); a POST here in any form, and a PUT on an id with no record, are 400 naming \`body\`. ${surface === 'api' ? 'The file columns (`name`, `type`, `size`, `sha256`, `user_id`) are read-only here: sending one is 400 naming it; replace the content with PUT /files/' + table.name + '/{id}.' : 'The owner may also set `name` and `user_id`; `type`, `size` and `sha256` are the bytes\' own (400 naming them).'} Deleting a record deletes its bytes.`;

const eventStream = (description: string) => ({
  status: 200,
  description,
  content: { 'text/event-stream': { schema: str({ description: 'Server-Sent Events: `id`, `event` (insert, update, delete, reset, error), `data` JSON' }) } },
});

/** The component schemas of a table: its record and its bodies on each surface the caller uses. */
export function tableSchemas(table: TableSchema, access: TableAccess, surfaces: Array<'api' | 'admin'>, readers: Readable): Record<string, Schema> {
  const schemas: Record<string, Schema> = { [componentName(table.name)]: recordSchema(table, readers) };
  for (const surface of surfaces) {
    if (surface === 'api' && !access.write) continue;
    // A bucket's rows are created by uploads alone: no create body invites a POST.
    if (!table.bucket) schemas[componentName(table.name, `${surface}.insert`)] = bodySchema(table, surface, 'insert');
    schemas[componentName(table.name, `${surface}.update`)] = bodySchema(table, surface, 'update');
  }
  return schemas;
}

/** The paths of a table on one surface. */
export function tablePaths(table: TableSchema, access: TableAccess, surface: 'api' | 'admin', readers: Readable): Record<string, Record<string, Operation>> {
  const name = encodeURIComponent(table.name);
  const base = surface === 'api' ? `/api/${name}` : `/admin/tables/${name}/records`;
  const tags = [surface === 'api' ? `table: ${table.name}` : 'admin: records'];
  const security = surface === 'api' ? SECURITY.api : SECURITY.user;
  const record = ref(componentName(table.name));
  const insert = ref(componentName(table.name, `${surface}.insert`));
  const update = ref(componentName(table.name, `${surface}.update`));
  const who = surface === 'api' ? `under its ${table.effectivePolicy} policy` : 'every row, no policy applies';
  const select = selectParameters(table, readers);
  const collection: Record<string, Operation> = {};
  const single: Record<string, Operation> = {};
  if (access.read) {
    collection.get = {
      operationId: `${surface}.${table.name}.list`,
      summary: `List ${table.name} (${who})`,
      ...(table.bucket ? { description: BUCKET_ROWS(table, surface) } : {}),
      tags,
      security,
      parameters: [...listParameters(table), ...select.map((each) => (each.name === 'select' ? { ...each, description: SELECT_WITH_AGGREGATES } : each)), ...filterParameters(table)],
      responses: responses(listSuccess(listSchema({ anyOf: [record, { type: 'object' }] })), READ_ERRORS),
    };
    single.get = {
      operationId: `${surface}.${table.name}.get`,
      summary: `One record of ${table.name}`,
      tags,
      security,
      parameters: [idParameter(table), ...select],
      responses: responses({ status: 200, description: 'The record', schema: envelope(record) }, READ_ERRORS),
    };
  }
  // A bucket (API.md, Files): POST is 400 naming `body` in any form, so it is not listed; PUT only updates.
  if (access.write && !table.bucket) {
    collection.post = {
      operationId: `${surface}.${table.name}.create`,
      summary: `Create a record of ${table.name}, or 1 to ${MAX_BULK_RECORDS} in one transaction`,
      tags,
      security,
      parameters: [...select, onConflictParameter(table)],
      requestBody: createBody(insert),
      responses: {
        ...responses({ status: 201, description: 'The record as stored (an array for an array)', schema: envelope({ anyOf: [record, { type: 'array', items: record }] }) }, WRITE_ERRORS),
        200: { description: 'With onConflict, a single object that updated an existing record', content: { 'application/json': { schema: envelope(record) } } },
      },
    };
  }
  if (access.write) {
    const updated = responses({ status: 200, description: 'Updated', schema: envelope(record) }, WRITE_ERRORS);
    single.put = {
      operationId: `${surface}.${table.name}.upsert`,
      summary: table.bucket ? 'Change a file\'s metadata (only the keys sent): an update only' : 'Create the record with this id, or update it (only the keys sent)',
      ...(table.bucket ? { description: BUCKET_ROWS(table, surface) } : {}),
      tags,
      security,
      parameters: [idParameter(table), ...select],
      requestBody: jsonBody(update, `${table.bucket ? 'A body' : 'Creating takes the required columns; a body'} \`id\` must equal the path id`),
      responses: table.bucket ? updated : { ...updated, 201: { description: 'Created', content: { 'application/json': { schema: envelope(record) } } } },
    };
    single.patch = patchOne(table, surface, { tags, security, parameters: [idParameter(table), ...select] }, update, record);
    Object.assign(collection, changesByFilter(table, surface, { tags, security }, select, bodySchema(table, surface, 'update'), record));
    single.delete = {
      operationId: `${surface}.${table.name}.delete`,
      summary: table.bucket ? `Delete a file of ${table.name}: its record, and its bytes after the commit` : `Delete a record of ${table.name}`,
      tags,
      security,
      parameters: [idParameter(table)],
      responses: responses({ status: 200, description: 'The deleted record', schema: envelope(record) }, WRITE_ERRORS.filter((status) => status !== 413)),
    };
  }
  const paths: Record<string, Record<string, Operation>> = {};
  if (Object.keys(collection).length) paths[base] = collection;
  if (Object.keys(single).length) paths[`${base}/{id}`] = single;
  if (access.read) {
    const stream = surface === 'api' ? `/realtime/${name}` : `/admin/tables/${name}/realtime`;
    paths[stream] = {
      get: {
        operationId: `${surface}.${table.name}.stream`,
        summary: `Changes of ${table.name} as they happen (${who})`,
        tags,
        security: surface === 'api' ? SECURITY.stream : SECURITY.user,
        parameters: [
          ...filterParameters(table),
          { name: 'select', in: 'query', required: false, description: 'Columns each event carries (no embeds)', schema: str() },
          { name: 'lastEventId', in: 'query', required: false, description: 'Resume after this event (or the Last-Event-ID header)', schema: str() },
          { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this event', schema: str() },
        ],
        responses: responses(eventStream('An event stream: one event per change'), STREAM_ERRORS),
      },
    };
  }
  return paths;
}
