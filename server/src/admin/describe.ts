import type { Knex } from 'knex';
import type { ColumnInfo, IndexInfo, TableInfo } from '@basalt/contract';
import { listIndexes } from './indexes.js';
import { describedRules, rulesProblem } from '../policies/rules.js';
import type { ColumnSchema, TableSchema } from '../db/schema.js';

import { EXACT_COUNT_LIMIT } from '@basalt/contract';

const LITERAL = /^'((?:[^']|'')*)'(?:::[a-z ]+)?$/s;
const NUMBER = /^\(?(-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)\)?(?:::[a-z ]+)?$/i;

/**
 * A column default as the API shows it: the JSON value for a literal (what the admin API accepts), otherwise the
 * expression as Postgres prints it (`now()`, `nextval(...)`), and null when there is none.
 */
export function describeDefault(column: ColumnSchema): unknown {
  const expression = column.defaultExpression;
  if (expression === null) return null;
  if (expression === 'true' || expression === 'false') return expression === 'true';
  const number = NUMBER.exec(expression);
  if (number && (column.type === 'integer' || column.type === 'real')) return Number(number[1]);
  const literal = LITERAL.exec(expression);
  if (!literal) return expression;
  const text = literal[1]!.replace(/''/g, "'");
  switch (column.type) {
    case 'integer':
    case 'real':
      return Number(text);
    case 'boolean':
      return ['t', 'true', '1', 'yes', 'on'].includes(text.toLowerCase());
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    case 'timestamp': {
      const date = new Date(text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
      return Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
    default:
      return text;
  }
}

function describeColumn(column: ColumnSchema): ColumnInfo {
  const info: ColumnInfo = {
    name: column.name,
    type: column.type,
    nullable: column.nullable,
    unique: column.unique,
    primaryKey: column.primaryKey,
    default: describeDefault(column),
    readOnly: column.readOnly,
  };
  if (column.references) info.references = { table: column.references.table, onDelete: column.references.onDelete };
  return info;
}

/**
 * Row counts: the maintained count of a counted table (exact, whatever its size); otherwise exact below
 * EXACT_COUNT_LIMIT estimated rows and the planner's estimate above.
 */
export async function countRows(knex: Knex, tables: TableSchema[]): Promise<Map<string, { value: number; exact: boolean }>> {
  const counts = new Map<string, { value: number; exact: boolean }>();
  const maintained = tables.filter((table) => table.counted).map((table) => table.name);
  if (maintained.length > 0) {
    const rows = await knex.raw<{ rows: Array<{ name: string; total: number }> }>(
      `SELECT table_name AS name, sum(n)::bigint AS total FROM _basalt_counts WHERE scope = '*' AND table_name = ANY(?) GROUP BY table_name`,
      [maintained],
    );
    for (const name of maintained) counts.set(name, { value: 0, exact: true });
    for (const row of rows.rows) counts.set(row.name, { value: Number(row.total), exact: true });
  }
  const names = tables.filter((table) => !table.counted).map((table) => table.name);
  if (names.length === 0) return counts;
  const estimates = await knex.raw<{ rows: Array<{ name: string; estimate: number }> }>(
    `SELECT c.relname AS name, c.reltuples::float8 AS estimate
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relname = ANY(?)`,
    [names],
  );
  const estimateOf = new Map(estimates.rows.map((row) => [row.name, row.estimate]));
  await Promise.all(
    names.map(async (name) => {
      const estimate = estimateOf.get(name) ?? -1;
      // -1: never analysed; small tables are counted exactly.
      if (estimate >= EXACT_COUNT_LIMIT) {
        counts.set(name, { value: Math.round(estimate), exact: false });
        return;
      }
      const row = (await knex(name).count({ count: '*' }).first()) as { count: number } | undefined;
      counts.set(name, { value: Number(row?.count ?? 0), exact: true });
    }),
  );
  return counts;
}

export function describeTable(table: TableSchema, rowCount: { value: number; exact: boolean }, indexes: IndexInfo[], captureProblem?: string): TableInfo {
  return {
    name: table.name,
    policy: table.policy,
    ownerColumn: table.ownerColumn,
    effectivePolicy: table.effectivePolicy,
    rules: describedRules(table),
    ...(rulesProblem(table) ? { rulesProblem: rulesProblem(table) } : {}),
    rowCount,
    columns: table.columnList.map(describeColumn),
    indexes: indexes.map(({ name, columns, unique, kind }) => ({ name, columns, unique, kind })),
    realtime: { captured: table.captured, streamed: table.capturing, ...(captureProblem && !table.captured ? { problem: captureProblem } : {}) },
    kind: table.bucket ? 'files' : 'records',
    ...(table.bucket ? { bucket: { ...table.bucket } } : {}),
  };
}

export async function describeTables(knex: Knex, tables: TableSchema[], captureProblem: (table: string) => string | undefined = () => undefined): Promise<TableInfo[]> {
  const names = tables.map((table) => table.name);
  const [counts, indexes] = await Promise.all([countRows(knex, tables), listIndexes(knex, names)]);
  return tables.map((table) => describeTable(table, counts.get(table.name) ?? { value: 0, exact: true }, indexes.get(table.name) ?? [], captureProblem(table.name)));
}
