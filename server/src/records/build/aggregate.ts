import { quote } from '../../db/identifiers.js';
import type { TableSchema } from '../../db/schema.js';
import type { Scope } from '../../policies/access.js';
import type { AggregateOutput, AggregateQuery } from '../query/aggregate.js';
import { keyColumnsSql, keysetSql, orderSql, SqlParameters } from '../query/build.js';
import { KEY_PREFIX, readConditions, where } from './reads.js';
import { cached, PUBLISHED_VERSION, VERSION, type Built } from './shared.js';

/**
 * An aggregate list in one statement: the rows the scope and filters keep, grouped by the group columns, each output
 * named by its key; then, over the groups, the cursor's position, the order and the page (one more than asked, so
 * the answer knows whether a next page exists), with each group's order keys as text for the next cursor.
 */

function outputSql(each: AggregateOutput): string {
  if (each.group) return `${quote(each.group.name)} AS ${quote(each.key)}`;
  const column = each.column ? quote(each.column.name) : '*';
  // Fixed result types: counts bigint, sums numeric (no overflow), averages double precision; min/max the column's.
  const cast = each.fn === 'count' || each.fn === 'min' || each.fn === 'max' ? '' : `::${each.output.sqlType}`;
  return `${each.fn}(${column})${cast} AS ${quote(each.key)}`;
}

export function aggregateStatement(table: TableSchema, query: AggregateQuery, scope: Scope | null): Built {
  const parameters = new SqlParameters();
  const filtered = readConditions(table, query, scope, parameters);
  let keyset = { sql: '', shape: '' };
  if (query.position) keyset = keysetSql(query.order, query.position, parameters);
  const limit = parameters.bind(query.limit === 0 ? 0 : query.limit + 1);
  const offset = parameters.bind(query.offset);
  const order = orderSql(query.order);
  const outputs = query.outputs.map(outputSql).join(', ');
  const groups = query.outputs.flatMap((each) => (each.group ? [quote(each.group.name)] : []));
  const shape = `aggregate|${filtered.shape}|${outputs}|${groups.join(',')}|${keyset.shape}|${order}`;
  const statement = cached(table, shape, () => {
    const grouped = `SELECT ${outputs} FROM ${quote(table.name)}${where(filtered.sql)}${groups.length ? ` GROUP BY ${groups.join(', ')}` : ''}`;
    const keys = keyColumnsSql(query.order, KEY_PREFIX);
    return (
      `SELECT g.*, ${[...keys, `${PUBLISHED_VERSION} AS ${quote(VERSION)}`].join(', ')} FROM (${grouped}) g` +
      `${keyset.sql ? ` WHERE ${keyset.sql}` : ''}${order ? ` ORDER BY ${order}` : ''} LIMIT ${limit} OFFSET ${offset}`
    );
  });
  return { statement, values: parameters.values };
}
