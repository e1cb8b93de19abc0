import type { ColumnInfo, ColumnType } from '@basalt/contract';
import type { Filter, UntypedRow } from '@basalt/client';

/** The grid's filter row: per column an operator that fits the column's type, and the value as typed. */

export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'like' | 'ilike' | 'search' | 'null' | 'notnull';

export interface FilterDraft {
  op: FilterOp;
  value: string;
}

export const OP_LABELS: Record<FilterOp, string> = {
  eq: '=',
  neq: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'in',
  nin: 'not in',
  like: 'like',
  ilike: 'ilike',
  search: 'search',
  null: 'is null',
  notnull: 'is not null',
};

const RANGE: FilterOp[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'null', 'notnull'];

/** The operators the server takes on each column type (API.md, "Query language"). */
export const OPS_BY_TYPE: Record<ColumnType, FilterOp[]> = {
  text: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'search', 'null', 'notnull'],
  integer: RANGE,
  real: RANGE,
  timestamp: RANGE,
  boolean: ['eq', 'neq', 'null', 'notnull'],
  json: ['eq', 'null', 'notnull'],
};

/** Operators that take no value. */
export const takesValue = (op: FilterOp) => op !== 'null' && op !== 'notnull';

/** A draft that filters something: an `is` test, or an operator with a value. */
export function isActive(draft: FilterDraft | undefined): draft is FilterDraft {
  return draft !== undefined && (!takesValue(draft.op) || draft.value !== '');
}

/** The client's filter for the active drafts of existing columns; `in` lists are typed comma-separated. */
export function toFilter(drafts: Record<string, FilterDraft>, columns: readonly ColumnInfo[]): Filter<UntypedRow> {
  const filter: Filter<UntypedRow> = {};
  for (const column of columns) {
    const draft = drafts[column.name];
    if (!isActive(draft) || !OPS_BY_TYPE[column.type].includes(draft.op)) continue;
    if (!takesValue(draft.op)) filter[column.name] = { is: draft.op as 'null' | 'notnull' };
    else if (draft.op === 'in' || draft.op === 'nin') filter[column.name] = { [draft.op]: draft.value.split(',').map((part) => part.trim()) };
    else filter[column.name] = { [draft.op]: draft.value };
  }
  return filter;
}

/** The column a 400's `details.parameter` names: the key as sent (`score[gte]`) or a plain column name. */
export function columnOfParameter(parameter: string | undefined): string | undefined {
  return parameter?.replace(/\[[A-Za-z]*\]$/, '');
}
