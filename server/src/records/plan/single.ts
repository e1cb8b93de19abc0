import { ID_COLUMN } from '@basalt/contract';
import type { TableSchema } from '../../db/schema.js';
import { ApiError, invalidField, notFound, referenceRefused } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { Access, Authorized } from '../authorize.js';
import { missingOnCreate, validateRecordBody } from '../body.js';
import { coerceValue, generateId } from '../values.js';
import type { Plan, ReferenceCheck, Row } from './types.js';

/** The plans of one record's writes: a create (or a bulk insert of many creates), PUT, PATCH, DELETE. */

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
export function uploadsOnly(table: TableSchema): ApiError {
  return invalidField('body', `${table.name} is a bucket: its records are created by uploading a file (POST /files/${table.name}); PUT changes an existing file's metadata only`);
}

/**
 * References the writer's policies limit: into a table they cannot read at all, refused here; into an owner-scoped
 * one, only their own rows, checked by the execute stage. Unlimited references are the foreign key's to check.
 */
export function referenceChecks(access: Access, rows: Row[]): ReferenceCheck[] {
  const checks: ReferenceCheck[] = [];
  for (const limit of access.references ?? []) {
    const index = rows.findIndex((row) => row[limit.column] !== undefined && row[limit.column] !== null);
    if (index < 0) continue;
    if ('denied' in limit) throw referenceRefused(limit.column, rows.length > 1 ? index : undefined);
    checks.push({ column: limit.column, table: limit.table, scope: limit.scope });
  }
  return checks;
}

export function planCreate({ table, access }: Authorized, body: Row, file?: Row): Extract<Plan, { kind: 'create' }> {
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
export function planCreateMany(authorized: Authorized, bodies: Row[]): Plan {
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
export function setOwner(table: TableSchema, access: Access, values: Row): void {
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
export function planUpsert({ table, access }: Authorized, rawId: string, body: Row): Plan {
  const id = coerceId(table, rawId);
  const changes = validateRecordBody(table, body, access.surface);
  return planPut({ table, access }, id, rawId, changes);
}

/** An update of an existing record only: its changes, and a replaced file's columns (files/). */
export function planUpdate({ table, access }: Authorized, rawId: string, body: Row, file?: Row): Plan {
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

