import { AGGREGATE_FUNCTIONS, MAX_BULK_RECORDS, MAX_CHANGED_RECORDS } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { envelope, int, object, responses, str, type Operation, type Schema } from './schema.js';
import { filterParameters, parameter } from './tables.js';

/**
 * The record routes of the query language's part 2 (API.md): PATCH of one record, changes by filter (PATCH and
 * DELETE on the table), `onConflict` and CSV on create, aggregates and CSV on lists.
 */

const WRITE_ERRORS = [400, 401, 403, 404, 409, 413, 503, 504];
const CSV_TYPE = 'text/csv';

export const SELECT_WITH_AGGREGATES = `Columns and embeds, comma-separated: \`id,title,author(name),comments(*)\`; \`*\` for every column. On a list, aggregates (${AGGREGATE_FUNCTIONS.map((fn) => `\`${fn}(${fn === 'count' ? '' : 'column'})\``).join(', ')}) group the rows by the plain columns, with \`alias:\` naming any item: \`status,n:count(),avg(score)\`; such a page has no \`total\``;

/** A list's success: JSON, or CSV when `text/csv` is the preferred type in `Accept`. */
export function listSuccess(schema: Schema): Parameters<typeof responses>[0] {
  return {
    status: 200,
    description: 'A page of records (or of groups); `total` counts every match. With `Accept: text/csv` the page as CSV, `X-Total-Count` and `Link: <...>; rel="next"`',
    content: { 'application/json': { schema }, [CSV_TYPE]: { schema: str({ description: 'RFC 4180, a header row; cells starting with = + - @ tab or CR are prefixed with \'' }) } },
    headers: {
      'X-Total-Count': { description: 'CSV answers: the total (absent with count=none)', schema: int({ minimum: 0 }) },
      Link: { description: 'CSV answers: `<url>; rel="next"` when a next page exists', schema: str() },
    },
  };
}

/** `onConflict` of a create, naming the table's unique columns. */
export function onConflictParameter(table: TableSchema): Schema {
  const unique = table.columnList.filter((column) => column.unique).map((column) => column.name);
  return parameter('onConflict', str({ enum: unique }), 'Upsert: an element whose value of this unique column exists updates that row (the columns sent) instead of inserting; a single object answers 201 inserted, 200 updated');
}

/** A create's body: JSON (one object or 1 to 1,000), or CSV with a header row of column names. */
export function createBody(insert: Schema): Schema {
  return {
    required: true,
    content: {
      'application/json': { schema: { anyOf: [insert, { type: 'array', items: insert, minItems: 1, maxItems: MAX_BULK_RECORDS }] } },
      [CSV_TYPE]: { schema: str({ description: 'A bulk insert: a header row of column names; an empty unquoted cell leaves the column to its default, "" is the empty string; errors name `index`, `line` and `field`' }) },
    },
  };
}

/** PATCH of one record: an update of the columns sent, never a create. */
export function patchOne(table: TableSchema, surface: 'api' | 'admin', base: Omit<Operation, 'operationId'>, update: Schema, record: Schema): Operation {
  return {
    ...base,
    operationId: `${surface}.${table.name}.update`,
    summary: 'Update the record with this id (only the keys sent); 404 when there is none',
    requestBody: { required: true, description: 'A body `id` must equal the path id; an empty body touches `updatedAt`', content: { 'application/json': { schema: update } } },
    responses: responses({ status: 200, description: 'Updated', schema: envelope(record) }, WRITE_ERRORS),
  };
}

const changeParameters = (table: TableSchema, select: Schema[]): Schema[] => [
  ...filterParameters(table),
  ...select,
  parameter('all', str({ enum: ['true', 'false'] }), 'Change every record the caller may change (without it, at least one filter or `filter` is needed)'),
  parameter('limit', str({ pattern: '^0*[1-9][0-9]{0,15}$' }), `At most this many records (1 to ${MAX_CHANGED_RECORDS}, the default): more matching is 400 with \`details.matched\`, nothing changed`),
  parameter('dryRun', str({ enum: ['true', 'false'] }), 'Change nothing: answer `{ data: { matched } }`'),
];

/** An update body without `id` (a change by filter never sets it). */
function withoutId(update: Schema): Schema {
  const { id: _id, ...properties } = (update.properties ?? {}) as Record<string, Schema>;
  return { ...update, properties };
}

/** PATCH and DELETE on the table: changes by filter. */
export function changesByFilter(table: TableSchema, surface: 'api' | 'admin', base: Omit<Operation, 'operationId'>, select: Schema[], update: Schema, record: Schema): Record<string, Operation> {
  const answered = (what: string) =>
    responses({ status: 200, description: `The records ${what}, or with dryRun \`{ matched }\``, schema: envelope({ anyOf: [{ type: 'array', items: record }, object({ matched: int({ minimum: 0 }) })] }) }, WRITE_ERRORS);
  return {
    patch: {
      ...base,
      operationId: `${surface}.${table.name}.updateWhere`,
      summary: `Update every record of ${table.name} the filters match (and the caller may change), in one statement`,
      parameters: changeParameters(table, select),
      requestBody: { required: true, description: 'The columns to set', content: { 'application/json': { schema: withoutId(update) } } },
      responses: answered('updated'),
    },
    delete: {
      ...base,
      operationId: `${surface}.${table.name}.deleteWhere`,
      summary: `Delete every record of ${table.name} the filters match (and the caller may delete), in one statement`,
      parameters: changeParameters(table, select),
      responses: answered('deleted'),
    },
  };
}
