import type { ColumnSchema } from '../../db/schema.js';
import { quote } from '../../db/identifiers.js';
import { comparesAsText } from '../values.js';
import type { Condition, OrderTerm } from './plan.js';

/**
 * The query language's SQL: conditions and keyset positions -> SQL text whose values are all bound parameters. A
 * statement's shape (and so its prepared-statement name) depends on columns and operators, never on values: an `in`
 * list is one array parameter whatever its length.
 */

/** Collects bound values and hands out their placeholders. */
export class SqlParameters {
  readonly values: unknown[] = [];

  constructor(private readonly first = 1) {}

  bind(value: unknown, cast?: string): string {
    this.values.push(value);
    const placeholder = `$${this.first + this.values.length - 1}`;
    return cast ? `${placeholder}::${cast}` : placeholder;
  }

  get next(): number {
    return this.first + this.values.length;
  }
}

const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The column as a condition reads it: the text form for types the API compares as text (uuid, enums, json). */
function operand(column: ColumnSchema): string {
  return comparesAsText(column) ? `${quote(column.name)}::text` : quote(column.name);
}

function arrayCast(column: ColumnSchema): string {
  return comparesAsText(column) ? 'text[]' : `${column.sqlType}[]`;
}

/** One condition's SQL, and the part of the statement's shape it decides. */
export function conditionSql(condition: Condition, parameters: SqlParameters): { sql: string; shape: string } {
  const { column } = condition;
  const name = quote(column.name);
  switch (condition.kind) {
    case 'compare':
      return { sql: `${operand(column)} ${COMPARISONS[condition.op]} ${parameters.bind(condition.value)}`, shape: `${column.name}:${condition.op}` };
    case 'range': {
      const from = parameters.bind(condition.from);
      const to = parameters.bind(condition.to);
      const sql = condition.negate ? `(${name} < ${from} OR ${name} >= ${to})` : `(${name} >= ${from} AND ${name} < ${to})`;
      return { sql, shape: `${column.name}:${condition.negate ? 'outside' : 'within'}` };
    }
    case 'list': {
      const target = column.type === 'timestamp' ? `date_trunc('milliseconds', ${name})` : operand(column);
      const any = `${target} = ANY(${parameters.bind(condition.values, arrayCast(column))})`;
      return { sql: condition.negate ? `NOT (${any})` : any, shape: `${column.name}:${condition.negate ? 'nin' : 'in'}` };
    }
    case 'pattern':
      return {
        sql: `${operand(column)} ${condition.caseInsensitive ? 'ILIKE' : 'LIKE'} ${parameters.bind(condition.pattern)}`,
        shape: `${column.name}:${condition.caseInsensitive ? 'ilike' : 'like'}`,
      };
    case 'search':
      // The same expression as a search index (admin API), so the index serves it.
      return { sql: `to_tsvector('simple', ${name}) @@ websearch_to_tsquery('simple', ${parameters.bind(condition.words)})`, shape: `${column.name}:search` };
    case 'is': {
      const test = { null: 'IS NULL', notnull: 'IS NOT NULL', true: 'IS TRUE', false: 'IS FALSE' }[condition.value];
      return { sql: `${name} ${test}`, shape: `${column.name}:is-${condition.value}` };
    }
  }
}

/** `ORDER BY` of a list; NULLs sort last ascending, first descending (Postgres's default, the contract's rule). */
export function orderSql(order: OrderTerm[]): string {
  return order.map((term) => `${quote(term.column.name)} ${term.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
}

/** The order keys of a row as text (full precision), for the cursor of the page's last row. */
export function keyColumnsSql(order: OrderTerm[], prefix: string): string[] {
  return order.map((term, index) => `${quote(term.column.name)}::text AS ${quote(`${prefix}${index}`)}`);
}

/**
 * Rows strictly after a position in the order. One direction and no NULLs: a row comparison, which an index on the
 * order keys serves. Otherwise the expanded form, key by key: (k1 after v1) OR (k1 = v1 AND k2 after v2) OR ...
 */
export function keysetSql(order: OrderTerm[], position: Array<string | null>, parameters: SqlParameters): { sql: string; shape: string } {
  const nullPattern = position.map((value) => (value === null ? 'n' : 'v')).join('');
  const uniform = order.every((term) => term.direction === order[0]!.direction);
  if (uniform && !position.includes(null) && order.every((term) => !term.column.nullable)) {
    const columns = order.map((term) => quote(term.column.name)).join(', ');
    const values = order.map((term, index) => parameters.bind(position[index], term.column.sqlType)).join(', ');
    return { sql: `(${columns}) ${order[0]!.direction === 'asc' ? '>' : '<'} (${values})`, shape: `row:${nullPattern}` };
  }
  const bound = order.map((term, index) => (position[index] === null ? null : parameters.bind(position[index], term.column.sqlType)));
  const equal = (index: number) => (bound[index] === null ? `${quote(order[index]!.column.name)} IS NULL` : `${quote(order[index]!.column.name)} = ${bound[index]}`);
  const after = (index: number): string | null => {
    const term = order[index]!;
    const name = quote(term.column.name);
    const value = bound[index];
    if (term.direction === 'asc') {
      if (value === null) return null; // nothing sorts after NULL ascending
      return term.column.nullable ? `(${name} > ${value} OR ${name} IS NULL)` : `${name} > ${value}`;
    }
    return value === null ? `${name} IS NOT NULL` : `${name} < ${value}`;
  };
  const alternatives: string[] = [];
  order.forEach((_term, index) => {
    const step = after(index);
    if (step === null) return;
    alternatives.push([...order.slice(0, index).map((_, before) => equal(before)), step].join(' AND '));
  });
  return { sql: alternatives.length ? `(${alternatives.map((part) => `(${part})`).join(' OR ')})` : 'false', shape: `expanded:${nullPattern}` };
}
