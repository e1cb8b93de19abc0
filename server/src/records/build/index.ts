import type { Plan } from '../plan/index.js';
import { getStatement, listStatement } from './reads.js';
import { deleteStatement, insertManyStatement, insertStatement, updateStatement, upsertStatement } from './writes.js';
import type { Built } from './shared.js';
import { aggregateStatement } from './aggregate.js';
import { changeWhereStatement, countWhereStatement, upsertOnStatement } from './many.js';

/**
 * Stage 4 of the record pipeline: plan -> SQL text and parameters (shared.ts says how statements are named and
 * cached, reads.ts and writes.ts hold them; the query language's conditions are in query/build.ts).
 */

export { countsMaintained, estimateStatement, existsStatement, getManyStatement, getStatement, KEY_PREFIX, listStatement, readableStatement } from './reads.js';
export { insertStatement } from './writes.js';
export { INSERTED, PRESENT, TOTAL, VERSION, type Built, type Statement } from './shared.js';

/** The one statement a plan runs first (an update-or-create may go on with `existsStatement` and `insertStatement`). */
export function buildStatement(plan: Plan): Built {
  switch (plan.kind) {
    case 'list':
      return listStatement(plan.table, plan.query, plan.scope, plan.query.count === 'exact');
    case 'get':
      return getStatement(plan.table, plan.id, plan.scope, plan.selection);
    case 'create':
      return insertStatement(plan.table, plan.values, plan.writer);
    case 'create-many':
      return insertManyStatement(plan.table, plan.rows, plan.writer);
    case 'upsert':
      return upsertStatement(plan.table, plan.insertValues, plan.changes, plan.scope, plan.writer);
    case 'update-or-create':
      return updateStatement(plan.table, plan.id, plan.changes, plan.scope, plan.writer);
    case 'delete':
      return deleteStatement(plan.table, plan.id, plan.scope, plan.writer);
    case 'aggregate':
      return aggregateStatement(plan.table, plan.query, plan.scope);
    case 'change-where':
      return plan.dryRun ? countWhereStatement(plan) : changeWhereStatement(plan);
    case 'upsert-on':
      return upsertOnStatement(plan);
  }
}
