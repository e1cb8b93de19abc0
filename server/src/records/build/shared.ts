import { createHash } from 'node:crypto';
import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import { SqlParameters } from '../query/build.js';
import { scopeSql } from '../query/expression.js';

/**
 * How record statements are named and kept: the SQL of each operation is built from the schema cache once per table
 * version and statement shape, then reused as a named prepared statement: a request costs a cache lookup and one round trip, never a query build or a
 * re-plan. Identifiers come from the catalog and are quoted here; every value is a bound parameter.
 */

export interface Statement {
  /** Prepared-statement name: the table's schema version and a digest of the text. */
  name: string;
  text: string;
}

/** A statement and the values of its parameters, ready to run. */
export interface Built {
  statement: Statement;
  values: unknown[];
}

// Bookkeeping columns of results; no created table can have them (column names start with a letter).
export const TOTAL = '__basalt_total';
export const PRESENT = '__basalt_row';
export const INSERTED = '__basalt_inserted';
export const VERSION = '__basalt_version';

/**
 * The database's schema version, read inside the statement. Writes compare with the row, in their own snapshot: a
 * write never happens against a schema other than the one it was planned with. Reads only need to notice that the
 * version moved on, and get it from the sequence the row publishes at commit, which opens no table (see the
 * migration `published_schema_version`): it can be a moment ahead of the row, never behind it.
 */
export const COMMITTED_VERSION = '(SELECT version FROM _basalt_schema)';
// A scalar subquery: read once per statement (an InitPlan), not once per row answered. In the target list of a list
// the bare call ran for each of its rows, each opening the sequence: 21 calls cost a 20-row page under a membership
// rule about half again its Postgres time (measured: 1.99 against 1.31 ms per request).
export const PUBLISHED_VERSION = `(SELECT pg_sequence_last_value('public._basalt_schema_published'::regclass))`;

const MAX_SHAPES_PER_TABLE = 500;


const statements = new WeakMap<TableSchema, Map<string, Statement>>();

export function cached(table: TableSchema, key: string, build: () => string): Statement {
  let shapes = statements.get(table);
  if (!shapes) statements.set(table, (shapes = new Map()));
  let statement = shapes.get(key);
  if (!statement) {
    // The table's version in the text too: a transaction pooler (PgBouncer >= 1.21) shares server-side statements by
    // their text, and one prepared before a column change would answer "cached plan must not change result type".
    const text = `/* b${table.version} */ ${build()}`;
    statement = { text, name: `b${table.version}_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}` };
    // Bodies with unusual key sets make new shapes: bound the memory they can take.
    if (shapes.size >= MAX_SHAPES_PER_TABLE) shapes.clear();
    shapes.set(key, statement);
  }
  return statement;
}

/** The condition on one record by id (`$firstParameter`), with the guards a statement needs (version, scope, writer). */
export function byId(
  table: TableSchema,
  scope: Scope | null | ReadonlyArray<Scope | null>,
  writer: string | null,
  firstParameter: number,
  guardVersion?: number,
): { sql: string; values: unknown[]; key: string } {
  const scopes = (Array.isArray(scope) ? scope : [scope]) as Array<Scope | null>;
  const parameters = new SqlParameters(firstParameter + 1);
  const parts = [`${quote(ID_COLUMN)} = $${firstParameter}`];
  if (guardVersion !== undefined) parts.push(`${COMMITTED_VERSION} = ${parameters.bind(guardVersion)}`);
  for (const each of scopes) if (each) parts.push(scopeSql(each, quote(table.name), parameters));
  if (writer !== null) parts.push(writerExists(Number(parameters.bind(writer).slice(1))));
  const sql = parts.join(' AND ');
  // The text holds every guard and scope, with placeholders for the values: it is the shape.
  return { sql, values: parameters.values, key: sql };
}

/** An access token outlives a deleted account; a write by it must not happen, and this costs no extra round trip. */
export function writerExists(parameter: number): string {
  return `EXISTS (SELECT 1 FROM users WHERE id = $${parameter})`;
}
