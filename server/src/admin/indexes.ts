import { createHash } from 'node:crypto';
import Joi from 'joi';
import type { Knex } from 'knex';
import { INDEX_KINDS, type CreateIndexInput, type IndexInfo, type IndexKind } from '@basalt/contract';
import { quote } from '../db/identifiers.js';
import type { TableSchema } from '../db/schema.js';
import { conflict, invalidField, invalidParameter, notFound } from '../errors.js';

/**
 * Indexes of served tables: listed in each table's description (those made with psql too), created and dropped
 * CONCURRENTLY so a big table keeps serving reads and writes while an index is built. A `search` index is the
 * expression the query language's `search` operator compares with, so the planner can use it.
 */

interface IndexRow {
  table_name: string;
  name: string;
  unique: boolean;
  constraint_backed: boolean;
  method: string;
  definition: string;
  columns: Array<string | null>;
  plain: boolean;
}

const INDEXES_SQL = `
  SELECT c.relname AS table_name, i.relname AS name, ix.indisunique AS unique,
         EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = ix.indexrelid AND k.contype IN ('p', 'u', 'x')) AS constraint_backed,
         am.amname AS method, pg_get_indexdef(ix.indexrelid) AS definition,
         ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                 LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
                ORDER BY k.n) AS columns,
         ix.indexprs IS NULL AND ix.indpred IS NULL AS plain
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_class c ON c.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    JOIN pg_am am ON am.oid = i.relam
   WHERE c.relname = ANY(?) AND ix.indisvalid
   ORDER BY c.relname, i.relname`;

const SEARCH_DEFINITION = /USING gin \(to_tsvector\('simple'::regconfig, \(?("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\)?(?:::text)?\)\)$/;

function unquoted(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1).replace(/""/g, '"') : identifier;
}

function describeIndex(row: IndexRow): IndexInfo & { constraintBacked: boolean } {
  const search = row.method === 'gin' ? SEARCH_DEFINITION.exec(row.definition) : null;
  const kind: IndexKind = search ? 'search' : row.method === 'btree' && row.plain ? 'btree' : 'other';
  const columns = search ? [unquoted(search[1]!)] : row.columns.filter((name): name is string => name !== null);
  return { name: row.name, columns, unique: row.unique, kind, constraintBacked: row.constraint_backed };
}

/** The indexes of these tables, by table. */
export async function listIndexes(knex: Knex, tables: string[]): Promise<Map<string, Array<IndexInfo & { constraintBacked: boolean }>>> {
  const byTable = new Map<string, Array<IndexInfo & { constraintBacked: boolean }>>();
  if (tables.length === 0) return byTable;
  const result = await knex.raw<{ rows: IndexRow[] }>(INDEXES_SQL, [tables]);
  for (const row of result.rows) {
    const list = byTable.get(row.table_name) ?? [];
    list.push(describeIndex(row));
    byTable.set(row.table_name, list);
  }
  return byTable;
}

/**
 * A name Postgres keeps whole: the readable parts when they fit in 63 bytes, else a cut of them and a digest of the
 * whole, so two long names never collide once cut (Postgres truncates silently).
 */
export function safeName(...parts: string[]): string {
  const whole = parts.join('_');
  if (Buffer.byteLength(whole) <= 63) return whole;
  const digest = createHash('sha256').update(whole).digest('hex').slice(0, 10);
  let cut = whole.slice(0, 52);
  while (Buffer.byteLength(cut) > 52) cut = cut.slice(0, -1);
  return `${cut}_${digest}`;
}

const createIndexSchema = Joi.object<CreateIndexInput>({
  columns: Joi.array().items(Joi.string()).min(1).max(32).unique().required(),
  kind: Joi.string().valid(...INDEX_KINDS.filter((kind) => kind !== 'other')),
}).unknown(false);

/** Validates an index definition against the table: existing columns; `search` takes one text column. */
export function parseCreateIndex(table: TableSchema, body: unknown): { columns: string[]; kind: 'btree' | 'search' } {
  const { value, error } = createIndexSchema.validate(body, { abortEarly: true });
  if (error) {
    const detail = error.details[0];
    const field = String(detail?.path[0] ?? 'body');
    throw invalidField(field, field === 'kind' ? 'kind must be btree or search' : `${field} ${detail?.message.replace(/^"[^"]*" /, '') ?? 'is invalid'}`);
  }
  const { columns, kind = 'btree' } = value;
  for (const name of columns) if (!table.columns.has(name)) throw invalidField('columns', `${name} is not a column of ${table.name}`);
  if (kind === 'search' && (columns.length !== 1 || table.columns.get(columns[0]!)!.type !== 'text')) {
    throw invalidField('columns', 'a search index takes exactly one text column');
  }
  return { columns, kind: kind as 'btree' | 'search' };
}

/**
 * Builds the index CONCURRENTLY (outside any transaction, so reads and writes go on); a build that fails leaves an
 * invalid index behind, which is dropped before the error is answered.
 */
export async function createIndex(knex: Knex, table: TableSchema, definition: { columns: string[]; kind: 'btree' | 'search' }): Promise<void> {
  const name = safeName(table.name, ...definition.columns, definition.kind === 'search' ? 'search' : 'idx');
  const existing = await listIndexes(knex, [table.name]);
  if (existing.get(table.name)?.some((index) => index.name === name)) throw conflict('indexes.name', `An index named ${name} already exists`);
  const target =
    definition.kind === 'search'
      ? `USING gin (to_tsvector('simple', ${quote(definition.columns[0]!)}))`
      : `(${definition.columns.map(quote).join(', ')})`;
  try {
    await knex.raw(`CREATE INDEX CONCURRENTLY ${quote(name)} ON ${quote(table.name)} ${target}`);
  } catch (error) {
    await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`).catch(() => undefined);
    const code = (error as { code?: unknown }).code;
    if (code === '42P07') throw conflict('indexes.name', `An index named ${name} already exists`);
    // The data refused the index (a value too large for an index entry, ...): the request's to change, not a 500.
    if (typeof code === 'string' && /^(22|23|54)/.test(code)) {
      throw invalidField('columns', `The index cannot be built on these columns: a stored value cannot be indexed (${code})`);
    }
    throw error;
  }
}

/** Drops an index of the table; the primary key's and a unique constraint's index are the table's, not the API's. */
export async function dropIndex(knex: Knex, table: TableSchema, name: string): Promise<void> {
  const index = (await listIndexes(knex, [table.name])).get(table.name)?.find((candidate) => candidate.name === name);
  if (!index) throw notFound(`No index ${name} on ${table.name}`);
  if (index.constraintBacked) throw invalidParameter('index', `${name} belongs to the primary key or a unique constraint of ${table.name} and cannot be dropped`);
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`);
}
