import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { ColumnSchema } from '../../db/schema.js';
import type { SqlParameters } from '../query/build.js';
import type { EmbedPlan } from './plan.js';
import { scopeShape, scopeSql } from '../query/expression.js';

/**
 * The SQL of embeds: each one a correlated subquery in the parent's select list, so the whole answer stays one
 * statement (no N+1). A to-one embed is the referenced row as a JSON object (null when there is none in the
 * caller's scope); a to-many embed is a JSON array of at most `limit` rows in the asked order. Keys are bound
 * parameters; identifiers come from the catalog and are quoted.
 */

/** What the API shows for a timestamp: ISO 8601 in UTC with milliseconds, as the record pool's parsers give it. */
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** jsonb_build_object takes at most 100 arguments: objects are built 50 pairs at a time and concatenated. */
const PAIRS_PER_CALL = 50;

function valueSql(alias: string, column: ColumnSchema): string {
  const ref = `${alias}.${quote(column.name)}`;
  if (column.pgType === 'timestamptz') return `to_char(${ref} AT TIME ZONE 'UTC', ${ISO})`;
  if (column.pgType === 'timestamp') return `to_char(${ref}, ${ISO})`;
  return ref;
}

function objectSql(pairs: string[]): string {
  if (pairs.length === 0) return `'{}'::jsonb`;
  const calls: string[] = [];
  for (let at = 0; at < pairs.length; at += PAIRS_PER_CALL) calls.push(`jsonb_build_object(${pairs.slice(at, at + PAIRS_PER_CALL).join(', ')})`);
  return calls.join(' || ');
}

/** Aliases unique within one statement: e1, e2, ... */
export class Aliases {
  private count = 0;
  next(): string {
    this.count += 1;
    return `e${this.count}`;
  }
}

function rowSql(embed: EmbedPlan, alias: string, parameters: SqlParameters, aliases: Aliases): string {
  const pairs = embed.columns.map((column) => `${parameters.bind(column.name, 'text')}, ${valueSql(alias, column)}`);
  for (const child of embed.embeds) pairs.push(`${parameters.bind(child.key, 'text')}, ${embedSql(child, alias, parameters, aliases)}`);
  return objectSql(pairs);
}

/** The embed's value for the parent row `parent` (a table name or an alias, already quoted). */
export function embedSql(embed: EmbedPlan, parent: string, parameters: SqlParameters, aliases: Aliases): string {
  const alias = aliases.next();
  const table = quote(embed.table.name);
  const scoped = embed.scope ? ` AND ${scopeSql(embed.scope, alias, parameters)}` : '';
  if (embed.kind === 'one') {
    const row = rowSql(embed, alias, parameters, aliases);
    return `(SELECT ${row} FROM ${table} ${alias} WHERE ${alias}.${quote(ID_COLUMN)} = ${parent}.${quote(embed.column.name)}${scoped})`;
  }
  const order = embed.order.map((term) => `${alias}.${quote(term.column.name)} ${term.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
  const limit = parameters.bind(embed.limit);
  const row = rowSql(embed, alias, parameters, aliases);
  return (
    `COALESCE((SELECT jsonb_agg(${row} ORDER BY ${order}) FROM (SELECT * FROM ${table} ${alias} ` +
    `WHERE ${alias}.${quote(embed.column.name)} = ${parent}.${quote(ID_COLUMN)}${scoped} ORDER BY ${order} LIMIT ${limit}) ${alias}), '[]'::jsonb)`
  );
}

/** The shape of a tree of embeds, for the statement cache: tables, columns, kinds, orders and scoping. */
export function embedShape(embeds: EmbedPlan[]): string {
  return embeds
    .map((embed) => {
      const order = embed.order.map((term) => `${term.column.name}.${term.direction}`).join(',');
      return `${embed.kind}:${embed.table.name}.${embed.column.name}[${embed.columns.map((column) => column.name).join(',')}|${order}|${scopeShape(embed.scope)}](${embedShape(embed.embeds)})`;
    })
    .join(';');
}
