import type { Knex } from 'knex';
import { CAPTURE_TRIGGER_NAMES, COUNT_TRIGGER, COUNT_TRIGGER_NAMES, OWNER_MOVE_TRIGGER } from './triggerNames.js';
import { POLICIES, type OnDelete, type Policy, type Rules } from '@basalt/contract';
import { compileRules, expressionSchema } from '../policies/rules.js';
import { orderableTypesSql } from './orderable.js';
import { buildTableSchema, columnTypeOf, isReservedTable, type ColumnSchema, type TableSchema } from './schema.js';

interface ColumnRow {
  table_name: string;
  column_name: string;
  type_name: string;
  nullable: boolean;
  default_expression: string | null;
  generated: boolean;
  identity: boolean;
  primary_key: boolean;
  unique: boolean;
  max_length: number | null;
  sql_type: string;
  orderable: boolean;
}

// One catalog query for every column of every table of the public schema, with whether Postgres can sort by its type.
// Only single-column unique indexes without a predicate make a column unique.
const COLUMNS_SQL = `${orderableTypesSql(`
    SELECT a.atttypid FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid AND c.relkind IN ('r', 'p') AND c.relnamespace = 'public'::regnamespace
     WHERE a.attnum > 0 AND NOT a.attisdropped`)}
  SELECT c.relname AS table_name,
         a.attname AS column_name,
         t.typname AS type_name,
         NOT a.attnotnull AS nullable,
         pg_get_expr(d.adbin, d.adrelid) AS default_expression,
         a.attgenerated <> '' AS generated,
         a.attidentity <> '' AS identity,
         EXISTS (SELECT 1 FROM pg_index i
                  WHERE i.indrelid = c.oid AND i.indisprimary AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum) AS primary_key,
         EXISTS (SELECT 1 FROM pg_index i
                  WHERE i.indrelid = c.oid AND i.indisunique AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum
                    AND i.indpred IS NULL) AS unique,
         CASE WHEN t.typname IN ('varchar', 'bpchar') AND a.atttypmod > 4 THEN a.atttypmod - 4 END AS max_length,
         format_type(a.atttypid, a.atttypmod) AS sql_type,
         o.orderable
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    JOIN orderable_types o ON o.type = a.atttypid
   WHERE c.relkind IN ('r', 'p')
   ORDER BY c.relname, a.attnum`;

// Single-column foreign keys from a public table to another public table's `id`: the relations the API knows.
const REFERENCES_SQL = `
  SELECT c.conname AS constraint_name, src.relname AS table_name, a.attname AS column_name,
         dst.relname AS referenced_table, c.confdeltype AS on_delete
    FROM pg_constraint c
    JOIN pg_class src ON src.oid = c.conrelid
    JOIN pg_namespace ns ON ns.oid = src.relnamespace AND ns.nspname = 'public'
    JOIN pg_class dst ON dst.oid = c.confrelid
    JOIN pg_namespace nd ON nd.oid = dst.relnamespace AND nd.nspname = 'public'
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    JOIN pg_attribute da ON da.attrelid = c.confrelid AND da.attnum = c.confkey[1]
   WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1 AND da.attname = 'id'`;

interface ReferenceRow {
  constraint_name: string;
  table_name: string;
  column_name: string;
  referenced_table: string;
  on_delete: string;
}

const ON_DELETE: Record<string, OnDelete> = { c: 'cascade', n: 'set-null' };

const POLICIES_SQL = `SELECT table_name, policy, to_jsonb(p) -> 'rules' AS rules FROM _policies p`;
// Columns `/api` writes may not set (migration `column_settings`); before it ran there is no such table.
const READ_ONLY_SQL = `SELECT table_name, column_name FROM _basalt_columns WHERE read_only`;

// Tables with the whole set of write triggers (tracking/triggers.ts): the count triggers and the owner column they
// count for (with an owner column, its row trigger too), and the four capture triggers, enabled while somebody streams
// the table. Before the migrations ran there are none.
const names = (list: readonly string[]) => list.map((name) => `'${name}'`).join(', ');
const TRACKED_SQL = `
  SELECT table_name, owner, capturing = 4 AS captured FROM (
    SELECT c.relname AS table_name,
           max(split_part(encode(t.tgargs, 'escape'), '\\000', 1)) FILTER (WHERE t.tgname = '${COUNT_TRIGGER}') AS owner,
           count(*) FILTER (WHERE t.tgname IN (${names(COUNT_TRIGGER_NAMES)})) AS counts,
           count(*) FILTER (WHERE t.tgname = '${OWNER_MOVE_TRIGGER}') AS owner_moves,
           count(*) FILTER (WHERE t.tgname IN (${names(CAPTURE_TRIGGER_NAMES)})) AS captures,
           count(*) FILTER (WHERE t.tgname IN (${names(CAPTURE_TRIGGER_NAMES)}) AND t.tgenabled <> 'D') AS capturing
      FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
     WHERE t.tgname IN (${names([...COUNT_TRIGGER_NAMES, OWNER_MOVE_TRIGGER, ...CAPTURE_TRIGGER_NAMES])})
     GROUP BY c.relname) triggers
   WHERE counts = 3 AND owner_moves = CASE WHEN owner = '' THEN 0 ELSE 1 END AND captures = 4`;

// Tables whose exact counts are complete (in `_basalt_counted`), for the owner column they were kept for. Before the
// counts migration ran there is no such table.
const COUNTED_SQL = `SELECT table_name, owner_column FROM _basalt_counted`;

const VERSION_SQL = `SELECT version FROM _basalt_schema`;

// Buckets (migration `files`): before it ran there is no such table.
const BUCKETS_SQL = `SELECT table_name, max_file_size::float8 AS max_file_size, allowed_types FROM _basalt_buckets`;
interface BucketRow {
  table_name: string;
  max_file_size: number;
  allowed_types: string[] | null;
}

export interface Introspection {
  tables: Map<string, TableSchema>;
  /** The schema version the tables were read at (0 before the migrations ran). */
  version: number;
}

/** Local counter of loads: prepared statement names change with every load, so no plan outlives its schema. */
let loads = 0;

/**
 * Reads every table of the public schema with its columns and stored policy, and the schema version, from one
 * snapshot: the version recorded never claims a change the tables do not show.
 */
export async function introspect(knex: Knex): Promise<Introspection> {
  const load = ++loads;
  const { columnResult, referenceRows, policyRows, version, trackedRows, countedRows, readOnlyRows, bucketRows } = await knex.transaction(
    async (trx) => {
      const columns = await trx.raw<{ rows: ColumnRow[] }>(COLUMNS_SQL);
      const references = (await trx.raw<{ rows: ReferenceRow[] }>(REFERENCES_SQL)).rows;
      const tracked = (await trx.raw<{ rows: Array<{ table_name: string; owner: string; captured: boolean }> }>(TRACKED_SQL)).rows;
      // Before the migrations ran there is no policy table and no version: defaults and version 0.
      const hasSystemTables = (await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM pg_class WHERE relname = '_basalt_schema' AND relnamespace = 'public'::regnamespace`)).rows.length > 0;
      const policies = hasSystemTables ? (await trx.raw<{ rows: Array<{ table_name: string; policy: string; rules: Rules | null }> }>(POLICIES_SQL)).rows : [];
      const current = hasSystemTables ? Number((await trx.raw<{ rows: Array<{ version: number }> }>(VERSION_SQL)).rows[0]?.version ?? 0) : 0;
      const hasCounts = (await trx.raw<{ rows: unknown[] }>(`SELECT 1 FROM pg_class WHERE relname = '_basalt_counted' AND relnamespace = 'public'::regnamespace`)).rows.length > 0;
      const counted = hasCounts ? (await trx.raw<{ rows: Array<{ table_name: string; owner_column: string }> }>(COUNTED_SQL)).rows : [];
      const hasSettings = (await trx.raw<{ rows: unknown[] }>(`SELECT to_regclass('public._basalt_columns') IS NOT NULL AS present`)).rows[0] as { present: boolean };
      const readOnly = hasSettings.present ? (await trx.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(READ_ONLY_SQL)).rows : [];
      const hasBuckets = (await trx.raw<{ rows: unknown[] }>(`SELECT to_regclass('public._basalt_buckets') IS NOT NULL AS present`)).rows[0] as { present: boolean };
      const buckets = hasBuckets.present ? (await trx.raw<{ rows: BucketRow[] }>(BUCKETS_SQL)).rows : [];
      return { columnResult: columns, referenceRows: references, policyRows: policies, version: current, trackedRows: tracked, countedRows: counted, readOnlyRows: readOnly, bucketRows: buckets };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  const policies = new Map<string, Policy>();
  const storedRules = new Map<string, Rules>();
  for (const row of policyRows) {
    if ((POLICIES as readonly string[]).includes(row.policy)) policies.set(row.table_name, row.policy as Policy);
    if (row.policy === 'rules' && row.rules) storedRules.set(row.table_name, row.rules);
  }
  const referenceOf = new Map<string, ColumnSchema['references']>();
  for (const row of referenceRows) {
    // The owner column's key to `users` (and any to a system table) is not a relation of the API.
    if (isReservedTable(row.referenced_table)) continue;
    referenceOf.set(`${row.table_name}\u0000${row.column_name}`, {
      table: row.referenced_table,
      onDelete: ON_DELETE[row.on_delete] ?? 'restrict',
      constraint: row.constraint_name,
    });
  }
  const readOnlyColumns = new Set(readOnlyRows.map((row) => `${row.table_name}\u0000${row.column_name}`));
  const columnsByTable = new Map<string, ColumnSchema[]>();
  for (const row of columnResult.rows) {
    const list = columnsByTable.get(row.table_name) ?? [];
    list.push({
      name: row.column_name,
      type: columnTypeOf(row.type_name),
      pgType: row.type_name,
      nullable: row.nullable,
      defaultExpression: row.default_expression,
      hasDefault: row.default_expression !== null || row.identity || row.generated,
      generated: row.generated,
      unique: row.unique || row.primary_key,
      primaryKey: row.primary_key,
      maxLength: row.max_length,
      sqlType: row.sql_type,
      orderable: row.orderable,
      readOnly: readOnlyColumns.has(`${row.table_name}\u0000${row.column_name}`),
      references: referenceOf.get(`${row.table_name}\u0000${row.column_name}`) ?? null,
    });
    columnsByTable.set(row.table_name, list);
  }
  const tables = new Map<string, TableSchema>();
  const trackedFor = new Map(trackedRows.map((row) => [row.table_name, row]));
  const countedFor = new Map(countedRows.map((row) => [row.table_name, row.owner_column]));
  const bucketFor = new Map(bucketRows.map((row) => [row.table_name, row]));
  for (const [name, columns] of columnsByTable) {
    const tracked = trackedFor.get(name);
    const table = buildTableSchema(name, columns, policies.get(name), load, version, tracked?.owner ?? null, tracked?.captured ?? false);
    // Counts kept for another owner column (one added or dropped since), or by triggers that count for another, are
    // not the counts this table needs; nor is a count without its triggers.
    const owner = table.ownerColumn ?? '';
    table.counted = countedFor.get(name) === owner && table.trackedFor === owner;
    const bucket = bucketFor.get(name);
    if (bucket) table.bucket = { maxFileSize: bucket.max_file_size, allowedTypes: bucket.allowed_types };
    tables.set(name, table);
  }
  // Rules name other tables (paths): compiled once every table is known.
  const schema = expressionSchema(tables);
  for (const [name, rules] of storedRules) {
    const table = tables.get(name);
    if (table?.policy === 'rules') table.rules = compileRules(name, rules, schema);
  }
  return { tables, version };
}
