import { invalidParameter } from '../../errors.js';
import type { Authorized } from '../authorize.js';
import { planSelection } from '../embed/plan.js';
import type { RecordRequest, Selected } from '../parse.js';
import type { CursorKey } from '../query/cursor.js';
import { planListQuery } from '../query/plan.js';
import { planAggregate } from '../query/aggregate.js';
import { planChangeWhere, planUpsertOn } from './many.js';
import { coerceId, planCreate, planCreateMany, planUpdate, planUpsert } from './single.js';
import type { Plan } from './types.js';

/**
 * Stage 3 of the record pipeline: the request and the caller's access -> a plain value saying exactly what to do.
 * Every value is coerced, the body validated, the owner scope and the writer set; the SQL is built from this alone.
 * single.ts plans one record's writes, many.ts the writes of many (by filter, upserts on a key).
 */

export type { ChangeWherePlan, Plan, ReferenceCheck, Row, RowFilter, UpsertOnPlan } from './types.js';
export { coerceId, missingColumnError } from './single.js';

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
      // A select with aggregates groups the rows (query/aggregate.ts).
      if (request.params.select?.some((item) => item.kind === 'aggregate')) {
        return { kind: 'aggregate', table, query: planAggregate(table, request.params, cursorKey, authorized.relations), scope: access.scope };
      }
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
    case 'change-where':
      return withSelection(planChangeWhere(authorized, request), request.select, authorized);
    case 'upsert-on':
      return withSelection(planUpsertOn(authorized, request), request.select, authorized);
    case 'delete':
      return { kind: 'delete', table, id: coerceId(table, request.id), rawId: request.id, scope: access.scope, writer: access.writer, ...(access.rules ? { rules: access.rules } : {}) };
  }
}
