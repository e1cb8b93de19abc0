import type { TableSchema } from '../db/schema.js';
import { isReservedTable } from '../db/schema.js';
import { ApiError, invalidParameter, notFound, unauthorized } from '../errors.js';
import { decideAccess, requireAccess, type Scope, type Surface } from '../policies/access.js';
import { authorizeOwnerTools, type Operation } from '../policies/authorize.js';
import type { Caller } from '../policies/caller.js';
import type { RelationContext } from './embed/plan.js';
import type { RecordAction } from './parse.js';
import { defaultsOwner } from '../policies/rules.js';

/**
 * Stage 2 of the record pipeline: which table, and what the caller may do in it (the one access decision,
 * policies/access.ts). `/api` applies the table's policy; the owner's `/admin/tables/:name/records` is the same
 * pipeline with the owner's unscoped access.
 */

export type { Scope, Surface };

/**
 * What a writer may put in one reference column, by the referenced table's policy for them: any existing row (the
 * foreign key checks it), only their own rows (`scope`), or nothing (`denied`: they cannot read that table at all).
 */
export type ReferenceAccess = { column: string; table: TableSchema; scope: Scope } | { column: string; table: TableSchema; denied: true };

/** What a request may touch, and who writes. */
export interface Access {
  /** The owner-scoped caller's rows only, or null for the whole table. */
  scope: Scope | null;
  /** Under `api` an owner-scoped table's owner column is the caller's; under `admin` it is an ordinary column. */
  surface: Surface;
  /** The signed-in user whose writes need an existing account (checked inside the write statement), or null. */
  writer: string | null;
  /** Writes through /api: the reference columns whose values the referenced tables' policies limit. */
  references?: ReferenceAccess[];
  /** Writes through /api to a `rules` table: the write's own rules for this caller. */
  rules?: WriteRules;
}

/**
 * A write under `rules`, folded for the caller: each rule the action needs (null: true for every row), checked in the
 * write's statement; the read rule decides which rows a write may target (404 otherwise) and whether the written row
 * is answered (else `{ id }`).
 */
export interface WriteRules {
  create?: Scope | null;
  update?: Scope | null;
  updateCheck?: Scope | null;
  delete?: Scope | null;
  /** The read rule for the caller; `none` when it refuses them every row. */
  read: Scope | null | 'none';
  /** Whether an owner column left out of a create is set to the caller (the create rule's `<owner> = @auth.id`). */
  defaultsOwner: boolean;
}

/** Rows no caller can see: a write's target when the read rule refuses the caller (every target is then 404). */
export const NO_ROWS: Scope = Object.freeze({ kind: 'rule', condition: { kind: 'constant', value: false, position: 0, end: 0 } }) as Scope;

export interface Authorized {
  table: TableSchema;
  access: Access;
  /** For embeds: the tables to resolve relations in, and who asks (each embedded table's policy is theirs). */
  relations?: RelationContext;
}

/** Where tables are looked up: the schema cache, or a fixed set in tests. */
export interface TableLookup {
  served(name: string): TableSchema | undefined;
  /** Every served table (to-many relations); lookups without it cannot embed. */
  servedTables?(): TableSchema[];
}

/** The lookup itself serves embeds when it can list every table (the schema cache can): no wrapper per request. */
function relationContext(tables: TableLookup, caller: Caller, surface: Surface): RelationContext | undefined {
  return tables.servedTables ? { tables: tables as RelationContext['tables'], caller, surface } : undefined;
}

/** A table the owner may administer: a reserved name is 400 naming it, an unknown one 404. */
export function administeredTable(tables: TableLookup, name: string): TableSchema {
  if (isReservedTable(name)) throw invalidParameter('name', `${name} is a reserved table and cannot be administered`);
  const table = tables.served(name);
  if (!table) throw notFound(`No table ${name}`);
  return table;
}

const OWNER_TOOLS: Access = Object.freeze({ scope: null, surface: 'admin', writer: null }) as Access;

/** Table (404, or 400 for a reserved name on `admin`) and policy (403): the checks before parameters and body. */
export function authorizeRecords(tables: TableLookup, surface: Surface, name: string, caller: Caller, operation: Operation, action?: RecordAction): Authorized {
  if (surface === 'admin') {
    const table = administeredTable(tables, name);
    const decision = authorizeOwnerTools(caller);
    if (!decision.allowed) {
      throw decision.reason === 'not-owner' ? new ApiError('FORBIDDEN', 'Only the project owner may use the administrative area') : unauthorized();
    }
    // The owner's account was checked before routing: writes need no check of their own.
    return { table, access: OWNER_TOOLS, relations: relationContext(tables, caller, surface) };
  }
  const table = tables.served(name);
  if (!table) throw notFound(`No table ${name}`);
  const rules = table.effectivePolicy === 'rules' && operation === 'write' ? writeRules(table, caller, action ?? 'create') : undefined;
  const { scope } = rules ? { scope: rules.read === 'none' ? NO_ROWS : rules.read } : requireAccess(table, caller, operation, surface);
  // An access token outlives a deleted account; its writes must not: the write statement checks the account.
  const writer = operation === 'write' && caller.kind === 'user' ? caller.id : null;
  const relations = relationContext(tables, caller, surface);
  if (operation === 'write' && table.referenceColumns.length > 0) {
    return { table, access: { scope, surface, writer, references: referenceAccess(tables, table, caller), ...(rules ? { rules } : {}) }, relations };
  }
  return { table, access: { scope, surface, writer, ...(rules ? { rules } : {}) }, relations };
}

/** The rules each write needs (a POST with `onConflict` is authorized as `upsert`). */
const RULES_NEEDED: Readonly<Record<RecordAction, ReadonlyArray<'create' | 'update' | 'updateCheck' | 'delete'>>> = {
  list: [],
  get: [],
  create: ['create'],
  upsert: ['create', 'update', 'updateCheck'],
  update: ['update', 'updateCheck'],
  'update-where': ['update', 'updateCheck'],
  delete: ['delete'],
  'delete-where': ['delete'],
};

/**
 * The rules a write needs, each refused up front (403 before parameters) when it is false for the caller whatever the
 * row: create for POST, create and update (with updateCheck) for PUT, delete for DELETE.
 */
function writeRules(table: TableSchema, caller: Caller, action: RecordAction): WriteRules {
  const needs = RULES_NEEDED[action];
  const rules: WriteRules = { read: 'none', defaultsOwner: defaultsOwner(table) };
  for (const operation of needs) rules[operation] = requireAccess(table, caller, operation, 'api').scope;
  const read = decideAccess(table, caller, 'read', 'api');
  rules.read = read.allowed ? read.scope : 'none';
  return rules;
}

/** Each reference column's limit for this writer: a value must name a row they may read (API.md, "Relations"). */
function referenceAccess(tables: TableLookup, table: TableSchema, caller: Caller): ReferenceAccess[] {
  const limits: ReferenceAccess[] = [];
  for (const column of table.referenceColumns) {
    const target = tables.served(column.references!.table);
    if (!target) continue;
    const decision = decideAccess(target, caller, 'read', 'api');
    if (!decision.allowed) limits.push({ column: column.name, table: target, denied: true });
    else if (decision.scope) limits.push({ column: column.name, table: target, scope: decision.scope });
  }
  return limits;
}
