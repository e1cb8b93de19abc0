import { AGGREGATE_FUNCTIONS, CONTENT_COLUMNS, COUNT_MODES, DEFAULT_LIMIT, ID_COLUMN, INTEGER_RANGES, IS_VALUES, isListOperator, MAX_LIMIT, MAX_LIST_VALUES, NULL_TESTS, OPERATORS_BY_TYPE, RESERVED_PARAMETERS, TIMESTAMP_COLUMNS } from '@basalt/contract';
import { isOrderable, type ColumnSchema, type TableSchema } from '../db/schema.js';
import { forcedOwnerColumn, type Surface } from '../policies/access.js';
import { embedNameOf } from '../records/index.js';
import { orderPattern, textListItems, wholeNumber } from './patterns.js';
import { int, nullable, object, ref, str, type Schema } from './schema.js';
import { NO_NUL } from './values.js';

/**
 * One table in the document: its record as answered, its bodies as taken (strict: unknown keys are refused), and its
 * query parameters (every column with every operator its type takes). The names come from the schema cache, the
 * operators from the query planner, so the document cannot drift from what the service does.
 */

/** Component names are `[A-Za-z0-9._-]`: a table made with psql may have any name, so others are escaped. */
export const componentName = (table: string, part?: string): string =>
  `table.${table.replace(/[^A-Za-z0-9_-]/g, (character) => `-${character.charCodeAt(0).toString(16)}-`)}${part ? `.${part}` : ''}`;

/** `limit` and `offset`: the service reads them as JavaScript numbers, exact up to 2^53 - 1; more is 400. */
const PAGING = wholeNumber(BigInt(Number.MAX_SAFE_INTEGER));

/** A column's value as the service answers it. */
function valueSchema(column: ColumnSchema): Schema {
  switch (column.type) {
    case 'integer': {
      const [min, max] = INTEGER_RANGES[column.pgType] ?? INTEGER_RANGES.int4!;
      // JSON numbers are exact to 2^53: that is as far as an int8 travels.
      return int({ minimum: Math.max(Number(min), Number.MIN_SAFE_INTEGER), maximum: Math.min(Number(max), Number.MAX_SAFE_INTEGER) });
    }
    case 'real':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      // A date column answers as Postgres prints it (`2026-11-23`); timestamps as ISO 8601 with milliseconds, in UTC.
      return str({ format: column.pgType === 'date' ? 'date' : 'date-time' });
    case 'json':
      return {};
    case 'text':
      return str({ ...(column.pgType === 'uuid' ? { format: 'uuid' } : {}), ...(column.maxLength !== null ? { maxLength: column.maxLength } : {}) });
  }
}

/** A column's value as a body takes it: timestamps also as epoch milliseconds; text and json without NUL characters. */
function inputSchema(column: ColumnSchema): Schema {
  if (column.type === 'timestamp') return ref('Timestamp');
  if (column.type === 'json') return ref('Json');
  // A text id may be left out (the server makes one) but not sent empty.
  if (column.type === 'text') return { ...valueSchema(column), pattern: NO_NUL, ...(column.name === ID_COLUMN ? { minLength: 1 } : {}) };
  return valueSchema(column);
}

/** A nullable column's schema also admits null (`{}`, any JSON, already does). */
const withNull = (column: ColumnSchema, schema: Schema): Schema => (column.nullable && Object.keys(schema).length ? nullable(schema) : schema);

/** Who reads which tables: the relations a record of `table` can embed are those to tables the reader may read. */
export interface Readable {
  readable(table: TableSchema): boolean;
  tables: TableSchema[];
}

/** The embeds a record of `table` may carry for this reader: to-one by column, to-many by table. */
export interface Embed {
  name: string;
  schema: Schema;
  many: boolean;
  table: TableSchema;
}

export function embedsOf(table: TableSchema, readers: Readable): Embed[] {
  const embeds: Embed[] = [];
  for (const column of table.referenceColumns) {
    const target = readers.tables.find((candidate) => candidate.name === column.references!.table);
    if (target && readers.readable(target)) embeds.push({ name: embedNameOf(column.name), schema: nullable(ref(componentName(target.name))), many: false, table: target });
  }
  for (const other of readers.tables) {
    if (!readers.readable(other) || !other.referenceColumns.some((column) => column.references!.table === table.name)) continue;
    embeds.push({ name: other.name, schema: { type: 'array', items: ref(componentName(other.name)), maxItems: MAX_LIMIT }, many: true, table: other });
  }
  return embeds.filter((embed) => !table.columns.has(embed.name));
}

/**
 * The record: every column (`select` may leave any out, so none is required) and the embeds `select` may add (a name
 * used by two relations is written `table.column` in `select` but keyed by the table's name).
 */
export function recordSchema(table: TableSchema, readers: Readable): Schema {
  const properties: Record<string, Schema> = {};
  for (const column of table.columnList) {
    const schema = withNull(column, valueSchema(column));
    // `/api` writes may not set it (a bucket's file columns are all so): a body schema leaves it out.
    properties[column.name] = column.readOnly ? { ...schema, readOnly: true } : schema;
  }
  for (const embed of embedsOf(table, readers)) {
    const earlier = properties[embed.name];
    properties[embed.name] = earlier ? { anyOf: [earlier, embed.schema] } : embed.schema;
  }
  return object(properties, [], {
    description: `A record of ${table.name}. Without \`select\` it carries every column; \`select\` chooses columns and embeds related records.`,
  });
}

/**
 * The columns a body may set: not the server-managed timestamps, not generated ones, not a forced owner column, not a
 * bucket's content columns (`type`, `size`, `sha256`: its bytes' own, on every surface).
 */
function writable(table: TableSchema, surface: Surface, forcedOwner: string | null): ColumnSchema[] {
  return table.columnList.filter(
    (column) =>
      !(TIMESTAMP_COLUMNS as readonly string[]).includes(column.name) &&
      !column.generated &&
      column.name !== forcedOwner &&
      !(surface === 'api' && column.readOnly) &&
      !(table.bucket && (CONTENT_COLUMNS as readonly string[]).includes(column.name)),
  );
}

/** The body of a create (`required`: not null, no default) or of an upsert (every key optional). */
export function bodySchema(table: TableSchema, surface: Surface, kind: 'insert' | 'update'): Schema {
  const forcedOwner = forcedOwnerColumn(table, surface);
  const columns = writable(table, surface, forcedOwner);
  const properties: Record<string, Schema> = Object.fromEntries(columns.map((column) => [column.name, withNull(column, inputSchema(column))]));
  // Under owner-scoped the owner column is set to the caller whatever the body says: any value is accepted and ignored
  // (a bucket's uploader excepted: sending it is 400, as for any read-only column).
  if (forcedOwner && !table.bucket) properties[forcedOwner] = { description: 'Any value, ignored: the column is set to the caller' };
  const required =
    kind === 'update'
      ? []
      : columns
          .filter((column) => !column.nullable && !column.hasDefault && (column.name !== ID_COLUMN || column.type !== 'text'))
          .map((column) => column.name);
  return object(properties, required);
}

/** A query parameter. */
export const parameter = (name: string, schema: Schema, description: string): Schema => ({ name, in: 'query', required: false, description, schema });

/** The Postgres integer type whose range a column has (the service holds other integer types to int8's). */
const integerType = (column: ColumnSchema): string => (column.pgType in INTEGER_RANGES ? column.pgType : 'int8');

/** A filter value of this column as the query string carries it: coerced as a body value is (json compares as text). */
export function filterSchema(column: ColumnSchema): Schema {
  switch (column.type) {
    case 'integer':
      return ref(`IntegerText.${integerType(column)}`);
    case 'real':
      return ref('RealText');
    case 'boolean':
      return str({ enum: ['true', 'false'] });
    case 'timestamp':
      return ref('TimestampText');
    case 'text':
      return str({ pattern: NO_NUL, ...(column.maxLength !== null ? { maxLength: column.maxLength } : {}) });
    case 'json':
      return str({ pattern: NO_NUL });
  }
}

/** An `in`/`nin` list of this column's values (the types that take one). */
function valueList(column: ColumnSchema): Schema {
  switch (column.type) {
    case 'integer':
      return ref(`IntegerList.${integerType(column)}`);
    case 'real':
      return ref('RealList');
    case 'timestamp':
      return ref('TimestampList');
    default:
      return str({ pattern: textListItems(MAX_LIST_VALUES, column.maxLength) });
  }
}

const OPERATOR_TEXTS: Record<string, string> = {
  eq: 'equal to',
  neq: 'not equal to (NULL matches neither)',
  gt: 'greater than',
  gte: 'greater than or equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  in: `one of a comma-separated list of 1 to ${MAX_LIST_VALUES} values (a value holding a comma or a quote in double quotes)`,
  nin: 'none of a comma-separated list (NULL matches neither)',
  like: 'matches the pattern, `*` for any run of characters',
  ilike: 'matches the pattern, case-insensitive',
  search: 'full-text match of the words',
  is: 'is null, not null, true or false',
};

/**
 * Every filter parameter of a table, `<column>=v` (not for reserved names) and `<column>[op]=v`, as components: lists
 * and streams of both surfaces refer to them (`filterParameters`), so the document holds each once.
 */
export function filterParameterComponents(table: TableSchema): Record<string, Schema> {
  const parameters: Record<string, Schema> = {};
  const key = (column: string, op?: string) => componentName(table.name, `${column.replace(/[^A-Za-z0-9_-]/g, '_')}${op ? `.${op}` : ''}`);
  for (const column of table.columnList) {
    const value = filterSchema(column);
    if (!(RESERVED_PARAMETERS as readonly string[]).includes(column.name)) parameters[key(column.name)] = parameter(column.name, value, `${column.name} equal to (coerced to ${column.type})`);
    for (const op of OPERATORS_BY_TYPE[column.type]) {
      const schema =
        op === 'is'
          ? str({ enum: column.type === 'boolean' ? [...IS_VALUES] : [...NULL_TESTS] })
          : isListOperator(op)
            ? valueList(column)
            : value;
      parameters[key(column.name, op)] = parameter(`${column.name}[${op}]`, schema, `${column.name} ${OPERATOR_TEXTS[op]}`);
    }
  }
  return parameters;
}

/** References to a table's filter parameters (`filterParameterComponents`). */
export function filterParameters(table: TableSchema): Schema[] {
  return Object.keys(filterParameterComponents(table)).map((name) => ({ $ref: `#/components/parameters/${name}` }));
}

/**
 * `<column>.asc|desc` of the columns Postgres can sort by (a table made with psql may have json, xml or geometric
 * ones): the service refuses the others by the same rule.
 */
const order = (table: TableSchema): Schema => str({ pattern: orderPattern(table.columnList.filter(isOrderable).map((column) => column.name)) });

/** `select` and the to-many embeds' `<name>.order` / `<name>.limit` (each only with that embed in `select`). */
export function selectParameters(table: TableSchema, readers: Readable): Schema[] {
  const parameters = [parameter('select', str(), 'Columns and embeds, comma-separated: `id,title,author(name),comments(*)`; `*` for every column')];
  for (const embed of embedsOf(table, readers).filter((candidate) => candidate.many)) {
    parameters.push(parameter(`${embed.name}.order`, order(embed.table), `Order of the embedded ${embed.name}, with ${embed.name} in \`select\``));
    parameters.push(parameter(`${embed.name}.limit`, str({ pattern: wholeNumber(BigInt(MAX_LIMIT)) }), `At most this many embedded ${embed.name} per record (0 to ${MAX_LIMIT}), with ${embed.name} in \`select\``));
  }
  return parameters;
}

/** A list's paging, order and count parameters. */
export function listParameters(table: TableSchema): Schema[] {
  return [
    parameter('limit', str({ pattern: PAGING }), `Records per page (default ${DEFAULT_LIMIT}; more than ${MAX_LIMIT} reads as ${MAX_LIMIT}; at most 2^53 - 1)`),
    parameter('offset', str({ pattern: PAGING }), 'Records to skip (not with `after`; at most 2^53 - 1)'),
    parameter(
      'order',
      str({ pattern: orderPattern([...table.columnList.filter(isOrderable).map((column) => column.name), ...AGGREGATE_FUNCTIONS]) }),
      '`<column>.asc|desc` of the table\'s columns Postgres can sort by (not json, xml, geometric types or what is built on them), comma-separated; `id` breaks ties. With aggregates in `select`, the keys of the select (`count.desc`, an alias)',
    ),
    parameter('after', str(), 'The `next` cursor of the page before'),
    parameter('count', str({ enum: [...COUNT_MODES] }), '`exact` (default), `estimated`, or `none` (no `total`)'),
  ];
}

/** A list response: `total` is absent with `count=none`; `totalExact` comes with `count=estimated`. */
export function listSchema(record: Schema): Schema {
  return object({ data: { type: 'array', items: record }, total: int({ minimum: 0 }), totalExact: { type: 'boolean' }, next: nullable(str()) }, ['data', 'next']);
}
