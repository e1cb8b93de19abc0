import { COLUMN_NAME_PATTERN, MANAGED_COLUMNS, OWNER_COLUMNS, RESERVED_TABLES, TABLE_NAME_PATTERN, type ColumnType, type OwnerColumn, type Policy, type Rules } from './schema.js';

/** Name and definition rules of tables and columns, shared by the server's admin API and the console's forms. */

/** Name prefixes of system tables (the service's `_basalt_...`, Postgres's `pg_...`): never served, never administered. */
export const SYSTEM_TABLE_PREFIXES = ['_', 'pg_'] as const;

/** Tables the auth system or the service itself owns: never served and never administered. */
export function isReservedTable(name: string): boolean {
  return (RESERVED_TABLES as readonly string[]).includes(name) || SYSTEM_TABLE_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Why a name cannot be a new table's, or undefined when it can. */
export function tableNameProblem(name: string): string | undefined {
  if (!TABLE_NAME_PATTERN.test(name)) return `must match ${TABLE_NAME_PATTERN.source}: lower-case letters, digits and _, starting with a letter`;
  if (isReservedTable(name)) return `${name} is a reserved table name`;
  return undefined;
}

/** Why a name cannot be a new column's, or undefined when it can. */
export function columnNameProblem(name: string): string | undefined {
  if (!COLUMN_NAME_PATTERN.test(name) || name.startsWith('pg_')) return `must match ${COLUMN_NAME_PATTERN.source} and not start with pg_`;
  if ((MANAGED_COLUMNS as readonly string[]).includes(name)) return `${name} is created by the server on every table and cannot be declared`;
  return undefined;
}

export function isOwnerColumnName(name: string): name is OwnerColumn {
  return (OWNER_COLUMNS as readonly string[]).includes(name);
}

/** Why a column of this name cannot have this type (an owner column is text), or undefined. */
export function columnTypeProblem(name: string, type: ColumnType): string | undefined {
  return isOwnerColumnName(name) && type !== 'text' ? `${name} is an owner column and must have type text` : undefined;
}

/** The owner column among a table's columns (`user_id` first, then `userId`), or null. */
export function ownerColumnOf(names: readonly string[]): OwnerColumn | null {
  return OWNER_COLUMNS.find((candidate) => names.includes(candidate)) ?? null;
}

/** A new table's policy when none is chosen: owner-scoped with an owner column, else private. */
export function defaultPolicyFor(ownerColumn: OwnerColumn | null): Policy {
  return ownerColumn ? 'owner-scoped' : 'private';
}

/** A table without an owner column cannot be owner-scoped: it falls back to private, never to readable by all. */
export function effectivePolicyOf(policy: Policy, ownerColumn: OwnerColumn | null): Policy {
  return policy === 'owner-scoped' && !ownerColumn ? 'private' : policy;
}

/**
 * A preset as rules (API.md, "Access rules"): the exact expansion a table under the preset answers as. An
 * owner-scoped table without an owner column is private, and describes private's expansion.
 */
export function presetRules(policy: Exclude<Policy, 'rules'>, ownerColumn: OwnerColumn | null): Required<Rules> {
  const every = (rule: string): Required<Rules> => ({ read: rule, create: rule, update: rule, updateCheck: rule, delete: rule });
  switch (effectivePolicyOf(policy, ownerColumn)) {
    case 'owner-scoped':
      return every(`${ownerColumn} = @auth.id`);
    case 'public-read':
      return { ...every(`@auth.role = 'owner'`), read: 'true' };
    default:
      return every(`@auth.role = 'owner'`);
  }
}

/** A relation's embed name (API.md, "Relations"): `author_id` and `authorId` embed as `author`; other columns keep theirs. */
export function embedNameOf(column: string): string {
  const match = /^(.+?)(?:_id|Id)$/.exec(column);
  return match ? match[1]! : column;
}
