import {
  CREATED_AT_COLUMN,
  ID_COLUMN,
  OWNER_COLUMNS,
  RESERVED_TABLES,
  UPDATED_AT_COLUMN,
  type ColumnType,
  type OwnerColumn,
  type Policy,
} from '@basalt/contract';

/** One column as the schema cache knows it. */
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
  /** Which load of the schema cache made this: prepared statements are named per load, so DDL never hits a stale plan. */
  version: number;
  /** The database's schema version (`_basalt_schema`) this was read at: record statements refuse to run past it. */
  schemaVersion: number;
}

export const SYSTEM_TABLE_PREFIXES = ['_', 'pg_'];

/** Tables the auth system or the service itself owns: never served and never administered. */
export function isReservedTable(name: string): boolean {
  return (RESERVED_TABLES as readonly string[]).includes(name) || SYSTEM_TABLE_PREFIXES.some((prefix) => name.startsWith(prefix));
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

export function defaultPolicyFor(ownerColumn: OwnerColumn | null): Policy {
  return ownerColumn ? 'owner-scoped' : 'private';
}

/** A table without an owner column cannot be owner-scoped: it falls back to private, never to readable by all. */
export function effectivePolicyOf(policy: Policy, ownerColumn: OwnerColumn | null): Policy {
  return policy === 'owner-scoped' && !ownerColumn ? 'private' : policy;
}

export function buildTableSchema(
  name: string,
  columnList: ColumnSchema[],
  storedPolicy: Policy | undefined,
  version = 0,
  schemaVersion = 0,
): TableSchema {
  const columns = new Map(columnList.map((column) => [column.name, column]));
  const ownerColumn = OWNER_COLUMNS.find((candidate) => columns.has(candidate)) ?? null;
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
    version,
    schemaVersion,
  };
}

/** Whether `/api/:table` serves this table: public schema, an `id` column, not reserved. */
export function isServed(table: TableSchema): boolean {
  return table.columns.has(ID_COLUMN) && !isReservedTable(table.name);
}
