import {
  CREATED_AT_COLUMN,
  ID_COLUMN,
  UPDATED_AT_COLUMN,
  defaultPolicyFor,
  effectivePolicyOf,
  isReservedTable,
  ownerColumnOf,
  type ColumnReference,
  type BucketInfo,
  type ColumnType,
  type OwnerColumn,
  type Policy,
} from '@basalt/contract';

// The rules are the contract's (the console applies the same); the server's modules import them from here too.
export { defaultPolicyFor, effectivePolicyOf, isReservedTable };

/** One column as the schema cache knows it. */
import type { TableRules } from '../policies/rules.js';

export interface ColumnSchema {
  name: string;
  type: ColumnType;
  /** The Postgres type name (`int4`, `varchar`, ...), for casts and ranges. */
  pgType: string;
  nullable: boolean;
  /** The default expression as Postgres prints it, or null. */
  defaultExpression: string | null;
  /** Filled by the database: a default, identity or generated column. */
  hasDefault: boolean;
  /** Generated columns cannot be written. */
  generated: boolean;
  unique: boolean;
  primaryKey: boolean;
  /** varchar(n) / char(n) length, checked before the database would refuse the value. */
  maxLength: number | null;
  /** The type as SQL (`format_type`), for casts of bound values: `integer`, `character varying(20)`, ... */
  sqlType: string;
  /** Whether Postgres can sort by it (db/orderable.ts): not json, xml, geometric types, nor what is built on them. */
  orderable: boolean;
  /** Whether `/api` writes may set it (false: `readOnly`, set by the owner; the owner's routes and SQL still can). */
  readOnly: boolean;
  /** A single-column foreign key to another served table's `id`, or null (the owner column's to `users` is not one). */
  references?: ColumnReferenceSchema | null;
}

export interface ColumnReferenceSchema extends ColumnReference {
  /** The foreign key's name: a refused delete names the referencing column through it. */
  constraint: string;
}

export interface TableSchema {
  name: string;
  columns: ReadonlyMap<string, ColumnSchema>;
  /** In table order. */
  columnList: readonly ColumnSchema[];
  ownerColumn: OwnerColumn | null;
  policy: Policy;
  effectivePolicy: Policy;
  hasCreatedAt: boolean;
  hasUpdatedAt: boolean;
  /** The columns that reference another served table. */
  referenceColumns: readonly ColumnSchema[];
  /** Which load of the schema cache made this: prepared statements are named per load, so DDL never hits a stale plan. */
  version: number;
  /** The database's schema version (`_basalt_schema`) this was read at: record statements refuse to run past it. */
  schemaVersion: number;
  /** The owner column ('' for none) the table's write triggers count for (tracking/triggers.ts), or null without them. */
  trackedFor: string | null;
  /** Whether its writes are tracked (trackedFor is set): its changes can be captured for streams. */
  captured: boolean;
  /** Whether its capture is on now (somebody streams it, tracking/capture.ts): its changes reach the change log. */
  capturing: boolean;
  /** Whether its exact counts are kept and complete (tracking/count.ts): unfiltered totals read them. */
  counted: boolean;
  /** Under `rules`: the stored rules, compiled against the schema this was loaded with (policies/rules.ts). */
  rules: TableRules | null;
  /** A bucket's settings (`kind: "files"`, `_basalt_buckets`): its rows are files. Null for a table of records. */
  bucket: BucketInfo | null;
}

const TYPE_NAMES: Record<string, ColumnType> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  float4: 'real',
  float8: 'real',
  numeric: 'real',
  bool: 'boolean',
  timestamptz: 'timestamp',
  timestamp: 'timestamp',
  date: 'timestamp',
  json: 'json',
  jsonb: 'json',
};

export function columnTypeOf(pgType: string): ColumnType {
  return TYPE_NAMES[pgType] ?? 'text';
}

export function buildTableSchema(
  name: string,
  columnList: ColumnSchema[],
  storedPolicy: Policy | undefined,
  version = 0,
  schemaVersion = 0,
  trackedFor: string | null = null,
  capturing = false,
): TableSchema {
  const columns = new Map(columnList.map((column) => [column.name, column]));
  const ownerColumn: OwnerColumn | null = ownerColumnOf([...columns.keys()]);
  const policy = storedPolicy ?? defaultPolicyFor(ownerColumn);
  return {
    name,
    columns,
    columnList,
    ownerColumn,
    policy,
    effectivePolicy: effectivePolicyOf(policy, ownerColumn),
    hasCreatedAt: columns.get(CREATED_AT_COLUMN)?.type === 'timestamp',
    hasUpdatedAt: columns.get(UPDATED_AT_COLUMN)?.type === 'timestamp',
    referenceColumns: columnList.filter((column) => column.references),
    version,
    schemaVersion,
    trackedFor,
    captured: trackedFor !== null,
    capturing,
    counted: false,
    rules: null,
    bucket: null,
  };
}

/**
 * Whether `order` may name the column: the record API refuses the others with a 400 before the database would fail,
 * and the OpenAPI document leaves them out of `order`'s pattern, both by this one rule.
 */
export function isOrderable(column: ColumnSchema): boolean {
  return column.orderable;
}

/** Whether `/api/:table` serves this table: public schema, an `id` column, not reserved. */
export function isServed(table: TableSchema): boolean {
  return table.columns.has(ID_COLUMN) && !isReservedTable(table.name);
}
