import { COLUMN_SQL_TYPES, CREATED_AT_COLUMN, ID_COLUMN, UPDATED_AT_COLUMN, type ColumnType, type ExpressionSchema } from '@basalt/contract';
import { buildTableSchema, type ColumnSchema, type TableSchema } from '../db/schema.js';
import { expressionSchema } from '../policies/rules.js';
import type { ColumnPlan } from './definitions.js';

/**
 * A table about to be created, as the expression language sees it: its rules are checked before the table exists,
 * so a table whose rules do not fit is never made (and no other process ever sees it).
 */

const PG_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'int4', real: 'float8', boolean: 'bool', timestamp: 'timestamptz', json: 'jsonb' };

function column(name: string, type: ColumnType, plan?: ColumnPlan): ColumnSchema {
  return {
    name,
    type,
    pgType: PG_TYPES[type],
    nullable: plan?.nullable ?? false,
    defaultExpression: null,
    hasDefault: plan?.default !== undefined,
    generated: false,
    unique: plan?.unique ?? name === ID_COLUMN,
    primaryKey: name === ID_COLUMN,
    maxLength: null,
    sqlType: COLUMN_SQL_TYPES[type],
    orderable: type !== 'json',
    readOnly: plan?.readOnly ?? false,
    references: plan?.references ? { ...plan.references, constraint: '' } : null,
  };
}

/** The served tables with the new one among them, as it will be (id, its columns, createdAt, updatedAt). */
export function provisionalSchema(tables: readonly TableSchema[], name: string, columns: ColumnPlan[]): ExpressionSchema {
  const list = [column(ID_COLUMN, 'text'), ...columns.map((plan) => column(plan.name, plan.type, plan)), column(CREATED_AT_COLUMN, 'timestamp'), column(UPDATED_AT_COLUMN, 'timestamp')];
  const all = new Map(tables.map((table) => [table.name, table]));
  all.set(name, buildTableSchema(name, list, 'rules'));
  return expressionSchema(all);
}
