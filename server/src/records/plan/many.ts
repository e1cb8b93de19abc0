import { ID_COLUMN } from '@basalt/contract';
import { ApiError, invalidField, invalidParameter } from '../../errors.js';
import { forcedOwnerColumn } from '../../policies/access.js';
import type { Authorized } from '../authorize.js';
import { validateRecordBody } from '../body.js';
import type { RecordRequest } from '../parse.js';
import { planFilter } from '../query/filter.js';
import { planConditions } from '../query/plan.js';
import { planCreateMany, referenceChecks, uploadsOnly } from './single.js';
import type { ChangeWherePlan, Plan, Row, UpsertOnPlan } from './types.js';

/** The plans of writes to many rows: changes by filter (PATCH and DELETE on a table) and upserts on a unique key. */

type ChangeWhere = Extract<RecordRequest, { action: 'change-where' }>;
type UpsertOn = Extract<RecordRequest, { action: 'upsert-on' }>;

/**
 * A change by filter reaches the rows the caller may read and, under rules, update (or delete); an update sets the
 * body's columns (never the id; under owner-scoped never the owner column) and must leave each row passing
 * `updateCheck`.
 */
export function planChangeWhere({ table, access, relations }: Authorized, request: ChangeWhere): ChangeWherePlan {
  const { params, op } = request;
  const where = { conditions: planConditions(table, params.filters), filter: params.filter === null ? null : planFilter(table, params.filter, relations) };
  let changes: Row = {};
  if (op === 'update') {
    if (request.body[ID_COLUMN] !== undefined) throw invalidField(ID_COLUMN, `${ID_COLUMN} cannot be set by a change by filter`);
    changes = validateRecordBody(table, request.body, access.surface);
    if (!access.rules && access.scope?.kind === 'owner') delete changes[access.scope.ownerColumn];
  } else if (request.select?.select?.some((item) => item.kind === 'embed')) {
    throw invalidParameter('select', 'select: deleted records cannot embed related ones');
  }
  const { rules } = access;
  const rule = rules ? (op === 'update' ? rules.update : rules.delete) : null;
  return {
    kind: 'change-where',
    op,
    table,
    where,
    scopes: [access.scope, rule ?? null],
    changes,
    writer: access.writer,
    references: op === 'update' ? referenceChecks(access, [changes]) : [],
    limit: params.limit,
    dryRun: params.dryRun,
    ...(rules ? { ruled: { check: op === 'update' ? (rules.updateCheck ?? null) : null, read: rules.read } } : {}),
  };
}

/** The first key two elements share: the later element's index (their keys as the database would compare them). */
function duplicateKey(rows: Row[], key: string): number {
  const seen = new Set<string>();
  return rows.findIndex((row) => {
    const value = row[key];
    if (value === undefined || value === null) return false;
    const text = value instanceof Date ? value.toISOString() : String(value);
    if (seen.has(text)) return true;
    seen.add(text);
    return false;
  });
}

/**
 * `onConflict=<column>`: a unique column (400 naming `onConflict` otherwise). Each element is planned as a create
 * (insertable on its own: required columns, the owner, the id); an existing row with its key is updated with the
 * columns the elements send, which must be the same in every element (an absent column would otherwise be reset).
 */
export function planUpsertOn(authorized: Authorized, request: UpsertOn): UpsertOnPlan {
  const { table, access } = authorized;
  const key = table.columns.get(request.onConflict);
  if (!key) throw invalidParameter('onConflict', `onConflict names "${request.onConflict}", which is not a column of ${table.name}`);
  if (!key.unique) throw invalidParameter('onConflict', `onConflict must name a column with a unique constraint or index of its own; ${key.name} has none`);
  if (table.bucket) throw uploadsOnly(table);
  const sent = Object.keys(request.bodies[0]!).sort();
  request.bodies.forEach((body, index) => {
    const keys = Object.keys(body).sort();
    const field = keys.find((name) => !sent.includes(name)) ?? sent.find((name) => !keys.includes(name));
    if (field !== undefined) {
      throw new ApiError('VALIDATION_ERROR', `Record ${index}: every record of an upsert sends the same columns (record 0 and this one differ in ${field})`, { index, field });
    }
  });
  const planned = planCreateMany(authorized, request.bodies) as Extract<Plan, { kind: 'create-many' }>;
  const duplicate = duplicateKey(planned.rows, key.name);
  if (duplicate >= 0) {
    throw new ApiError('VALIDATION_ERROR', `Record ${duplicate}: an earlier record of this request has the same ${key.name}`, { parameter: 'onConflict', index: duplicate });
  }
  const forced = access.rules ? null : forcedOwnerColumn(table, access.surface);
  const changed = sent.filter((name) => name !== ID_COLUMN && name !== key.name && name !== forced && table.columns.has(name));
  const { rules } = access;
  return {
    kind: 'upsert-on',
    table,
    key,
    rows: planned.rows,
    changed,
    single: request.single,
    scopes: rules ? [access.scope, rules.update ?? null] : [access.scope],
    writer: access.writer,
    references: planned.references,
    ...(rules ? { rules } : {}),
  };
}
