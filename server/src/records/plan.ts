import { ID_COLUMN } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { ApiError, invalidField, invalidParameter, notFound, referenceRefused } from '../errors.js';
import { randomId } from '../ids.js';
import type { Access, Authorized, Scope, WriteRules } from './authorize.js';
import { missingOnCreate, validateRecordBody } from './body.js';
import type { RecordRequest, Selected } from './parse.js';
import type { CursorKey } from './query/cursor.js';
import { planListQuery, type ListQuery } from './query/plan.js';
import { planSelection, type Selection } from './embed/plan.js';
import { coerceValue, generateId } from './values.js';

/**
 * Stage 3 of the record pipeline: the request and the caller's access -> a plain value saying exactly what to do.
 * Every value is coerced, the body validated, the owner scope and the writer set; the SQL is built from this alone.
 */

export type Row = Record<string, unknown>;

/** A reference column whose values must name rows the writer owns in the referenced owner-scoped table. */
export interface ReferenceCheck {
  column: string;
  table: TableSchema;
  scope: Scope;
}

export type Plan =
  | { kind: 'list'; table: TableSchema; query: ListQuery; scope: Scope | null }
  | { kind: 'get'; table: TableSchema; id: unknown; rawId: string; scope: Scope | null; selection?: Selection }
  | { kind: 'create'; table: TableSchema; values: Row; writer: string | null; references: ReferenceCheck[]; selection?: Selection; rules?: WriteRules }
  /** A bulk insert: every element validated like a create, all inserted by one statement in the order sent. */
  | { kind: 'create-many'; table: TableSchema; rows: Row[]; writer: string | null; references: ReferenceCheck[]; selection?: Selection; rules?: WriteRules }
  /** Create-or-update in one statement: the body can create the record and the id is unique. */
  | {
      kind: 'upsert';
      table: TableSchema;
      rawId: string;
      insertValues: Row;
      changes: Row;
      scope: Scope | null;
      writer: string | null;
      references: ReferenceCheck[];
      selection?: Selection;
    }
  /**
   * PUT whose body could not create the record (or whose table's id is not unique): update it, and only if there is
   * none create it, or say which required columns the body lacks.
   */
  | {
      kind: 'update-or-create';
      table: TableSchema;
      id: unknown;
      rawId: string;
      insertValues: Row;
      changes: Row;
      missing: string[];
      scope: Scope | null;
      writer: string | null;
      references: ReferenceCheck[];
      selection?: Selection;
      rules?: WriteRules;
      /** An update only (`update`): no row to update is 404, never a create. */
      updateOnly?: boolean;
    }
  | { kind: 'delete'; table: TableSchema; id: unknown; rawId: string; scope: Scope | null; writer: string | null; rules?: WriteRules };

/** The path id coerced to the id column's type; an id that cannot be one names no record (404). */
export function coerceId(table: TableSchema, raw: string): unknown {
  const coerced = coerceValue(table.columns.get(ID_COLUMN)!, raw);
  if (!coerced.ok) throw notFound(`No record ${raw} in ${table.name}`);
  return coerced.value;
}

export function missingColumnError(table: TableSchema, missing: string[]) {
  // A bucket's PUT that would create (planPut's `body`); a missing metadata column of an upload is named as any column.
  if (table.bucket && missing[0] === 'body') return uploadsOnly(table);
  const field = missing[0]!;
  return invalidField(field, `${field} is required to create a record in ${table.name}`);
}

/** A bucket's rows are created by uploads alone (API.md, Part 2 in detail, Files): 400 naming the body. */
function uploadsOnly(table: TableSchema): ApiError {
  return invalidField('body', `${table.name} is a bucket: its records are created by uploading a file (POST /files/${table.name}); PUT changes an existing file's metadata only`);
}

/**
 * References the writer's policies limit: into a table they cannot read at all, refused here; into an owner-scoped
 * one, only their own rows, checked by the execute stage. Unlimited references are the foreign key's to check.
 */
function referenceChecks(access: Access, rows: Row[]): ReferenceCheck[] {
  const checks: ReferenceCheck[] = [];
  for (const limit of access.references ?? []) {
    const index = rows.findIndex((row) => row[limit.column] !== undefined && row[limit.column] !== null);
    if (index < 0) continue;
    if ('denied' in limit) throw referenceRefused(limit.column, rows.length > 1 ? index : undefined);
    checks.push({ column: limit.column, table: limit.table, scope: limit.scope });
  }
  return checks;
}

function planCreate({ table, access }: Authorized, body: Row, file?: Row): Extract<Plan, { kind: 'create' }> {
  if (table.bucket && !file) throw uploadsOnly(table);
  const values = validateRecordBody(table, body, access.surface);
  // An upload's file columns (files/upload.ts): set by the server from the bytes and the caller, after the metadata.
  if (file) Object.assign(values, file);
  // An empty id could never be reached again: no path names it.
  if (values[ID_COLUMN] === '') throw invalidField(ID_COLUMN, `${ID_COLUMN} must not be empty`);
  if (values[ID_COLUMN] === undefined || values[ID_COLUMN] === null) {
    const id = table.columns.get(ID_COLUMN)!;
    if (id.hasDefault) delete values[ID_COLUMN];
    else if (id.type === 'text') values[ID_COLUMN] = generateId(id, randomId);
    else throw invalidField(ID_COLUMN, `${ID_COLUMN} is required: the id column of ${table.name} has no default`);
  }
  const missing = missingOnCreate(table, values, access.surface);
  if (missing.length > 0) throw missingColumnError(table, missing);
  setOwner(table, access, values);
  const rules = access.rules ? { rules: access.rules } : {};
  return { kind: 'create', table, values, writer: access.writer, references: referenceChecks(access, [values]), ...rules };
}

/** Each element planned as a create; an error names the element (`index`) and, where there is one, the field. */
function planCreateMany(authorized: Authorized, bodies: Row[]): Plan {
  if (authorized.table.bucket) throw uploadsOnly(authorized.table);
  const rows = bodies.map((body, index) => {
    try {
      return planCreate(authorized, body).values;
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(error.code, `Record ${index}: ${error.message}`, { index, ...error.details });
      throw error;
    }
  });
  // An identity column's default cannot be written as an expression: it is given by every record or by none.
  for (const column of authorized.table.columnList) {
    if (!column.hasDefault || column.defaultExpression !== null) continue;
    const missing = rows.findIndex((row) => row[column.name] === undefined);
    if (missing >= 0 && rows.some((row) => row[column.name] !== undefined)) {
      throw new ApiError('VALIDATION_ERROR', `Record ${missing}: give ${column.name} in every record or in none`, { index: missing, field: column.name });
    }
  }
  const rules = authorized.access.rules ? { rules: authorized.access.rules } : {};
  return { kind: 'create-many', table: authorized.table, rows, writer: authorized.access.writer, references: referenceChecks(authorized.access, rows), ...rules };
}

/**
 * The owner column of a create: under owner-scoped the caller whatever the body says; under `rules` the caller when
 * the body leaves it out and the create rule has the conjunct `<owner> = @auth.id`.
 */
function setOwner(table: TableSchema, access: Access, values: Row): void {
  if (!access.rules) {
    if (access.scope?.kind === 'owner') values[access.scope.ownerColumn] = access.scope.userId;
    return;
  }
  if (access.rules.defaultsOwner && table.ownerColumn && values[table.ownerColumn] === undefined && access.writer !== null) {
    values[table.ownerColumn] = access.writer;
  }
}

/**
 * PUT creates the record at the path id or updates it (then only the columns sent). Under owner-scoped the owner
 * column is the caller's on create and never changes on update.
 */
function planUpsert({ table, access }: Authorized, rawId: string, body: Row): Plan {
  const id = coerceId(table, rawId);
  const changes = validateRecordBody(table, body, access.surface);
  return planPut({ table, access }, id, rawId, changes);
}

/** An update of an existing record only: its changes, and a replaced file's columns (files/). */
function planUpdate({ table, access }: Authorized, rawId: string, body: Row, file?: Row): Plan {
  const id = coerceId(table, rawId);
  const changes = validateRecordBody(table, body, access.surface);
  if (file) Object.assign(changes, file);
  const plan = planPut({ table, access }, id, rawId, changes);
  return plan.kind === 'update-or-create' ? { ...plan, missing: [], updateOnly: true } : { kind: 'update-or-create', table, id, rawId, insertValues: plan.insertValues, changes: plan.changes, missing: [], scope: plan.scope, writer: plan.writer, references: plan.references, updateOnly: true };
}

function planPut({ table, access }: Authorized, id: unknown, rawId: string, changes: Row): Extract<Plan, { kind: 'upsert' | 'update-or-create' }> {
  if (changes[ID_COLUMN] !== undefined && String(changes[ID_COLUMN]) !== String(id)) {
    throw invalidField(ID_COLUMN, `${ID_COLUMN} in the body must equal the id in the path`);
  }
  delete changes[ID_COLUMN];
  const insertValues: Row = { ...changes, [ID_COLUMN]: id };
  const { scope, writer } = access;
  if (access.rules) {
    // Under `rules` the update runs first, under update/updateCheck, and only a missing row is created.
    setOwner(table, access, insertValues);
    // A bucket's PUT only updates: a missing row is the 400 of uploadsOnly.
    const missing = table.bucket ? ['body'] : missingOnCreate(table, insertValues, access.surface);
    const references = referenceChecks(access, [insertValues]);
    return { kind: 'update-or-create', table, id, rawId, insertValues, changes, missing, scope, writer, references, rules: access.rules };
  }
  if (scope?.kind === 'owner') {
    insertValues[scope.ownerColumn] = scope.userId;
    // The owner column never changes on update under a scope (it already is the caller).
    delete changes[scope.ownerColumn];
  }
  const missing = table.bucket ? ['body'] : missingOnCreate(table, insertValues, access.surface);
  const references = referenceChecks(access, [insertValues]);
  if (missing.length === 0 && table.columns.get(ID_COLUMN)!.unique) return { kind: 'upsert', table, rawId, insertValues, changes, scope, writer, references };
  return { kind: 'update-or-create', table, id, rawId, insertValues, changes, missing, scope, writer, references };
}

/**
 * What a written record is answered with: the selection asked (columns and embeds), read back after the write. Under
 * a read rule that refuses the caller every row, a write answers `{ id }` only, and a `select` is 400 before writing.
 */
function withSelection<P extends Plan>(plan: P, selected: Selected | undefined, authorized: Authorized): P {
  if (!selected) return plan;
  if (authorized.access.rules?.read === 'none') {
    throw invalidParameter('select', `select: the rules of ${authorized.table.name} do not let this caller read what they write`);
  }
  return { ...plan, selection: planSelection(authorized.table, selected.select, selected.embedOptions, authorized.relations) };
}

export function planRequest(request: RecordRequest, authorized: Authorized, cursorKey: CursorKey): Plan {
  const { table, access } = authorized;
  switch (request.action) {
    case 'list':
      return { kind: 'list', table, query: planListQuery(table, request.params, cursorKey, authorized.relations), scope: access.scope };
    case 'get': {
      const id = coerceId(table, request.id);
      if (!request.select && !request.embedOptions) return { kind: 'get', table, id, rawId: request.id, scope: access.scope };
      const selection = planSelection(table, request.select ?? null, request.embedOptions ?? {}, authorized.relations);
      return { kind: 'get', table, id, rawId: request.id, scope: access.scope, selection };
    }
    case 'create':
      return withSelection(planCreate(authorized, request.body, request.file), request.select, authorized);
    case 'create-many':
      return withSelection(planCreateMany(authorized, request.bodies), request.select, authorized);
    case 'upsert':
      return withSelection(planUpsert(authorized, request.id, request.body), request.select, authorized);
    case 'update':
      return withSelection(planUpdate(authorized, request.id, request.body, request.file), request.select, authorized);
    case 'delete':
      return { kind: 'delete', table, id: coerceId(table, request.id), rawId: request.id, scope: access.scope, writer: access.writer, ...(access.rules ? { rules: access.rules } : {}) };
  }
}
