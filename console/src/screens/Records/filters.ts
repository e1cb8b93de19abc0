import { LIST_OPERATORS, NULL_TESTS, OPERATORS_BY_TYPE, type ColumnInfo, type ColumnType, type Operator } from '@basalt/contract';
import type { Filter, UntypedRow } from '@basalt/client';

/**
 * The grid's filter row: per column an operator that fits the column's type, and the value as typed. The operators
 * are the query language's (`@basalt/contract`); the grid only splits its `is` into one choice per null test, so that
 * "is null" and "is not null" sit in the operator list beside "=" and "<".
 */

/** The operator the grid offers as null tests instead. */
const IS = 'is' satisfies Operator;
type NullTest = (typeof NULL_TESTS)[number];

export type FilterOp = Exclude<Operator, typeof IS> | NullTest;

export interface FilterDraft {
  op: FilterOp;
  value: string;
}

/** How the grid shows each operator. */
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

/** The operators the server takes on a column type, in the contract's order, its `is` as the null tests. */
export function operatorsFor(type: ColumnType): FilterOp[] {
  return OPERATORS_BY_TYPE[type].flatMap((op): FilterOp[] => (op === IS ? [...NULL_TESTS] : [op]));
}

export function isNullTest(op: string): op is NullTest {
  return (NULL_TESTS as readonly string[]).includes(op);
}

/** Operators that take a comma-separated list of values (`in`, `nin`). */
export function takesList(op: FilterOp): boolean {
  return (LIST_OPERATORS as readonly string[]).includes(op);
}

/** What a value looks like where it is not one plain value: a list, or a pattern with `*` as the wildcard. */
export function placeholderOf(op: FilterOp): string {
  if (takesList(op)) return 'a, b, c';
  return op === 'like' || op === 'ilike' ? 'a*' : '';
}

/** Operators that take no value. */
export const takesValue = (op: FilterOp) => !isNullTest(op);

/** A draft that filters something: an `is` test, or an operator with a value. */
export function isActive(draft: FilterDraft | undefined): draft is FilterDraft {
  return draft !== undefined && (!takesValue(draft.op) || draft.value !== '');
}

/**
 * The values of an `in` list as typed: comma-separated, each trimmed; a value holding a comma or a double quote is
 * typed as the query language writes it, in double quotes with a quote inside doubled (`"a,b", "say ""hi"""`).
 */
export function splitListText(text: string): string[] {
  const values: string[] = [];
  let at = 0;
  for (;;) {
    while (text[at] === ' ' || text[at] === '\t') at += 1;
    let value = '';
    if (text[at] === '"') {
      at += 1;
      while (at < text.length) {
        if (text[at] === '"' && text[at + 1] === '"') {
          value += '"';
          at += 2;
        } else if (text[at] === '"') {
          at += 1;
          break;
        } else {
          value += text[at];
          at += 1;
        }
      }
      // Anything between the closing quote and the next comma belongs to no value.
      const comma = text.indexOf(',', at);
      at = comma < 0 ? text.length : comma;
    } else {
      const comma = text.indexOf(',', at);
      const end = comma < 0 ? text.length : comma;
      value = text.slice(at, end).trim();
      at = end;
    }
    values.push(value);
    if (at >= text.length) return values;
    at += 1;
  }
}

/** The client's filter for the active drafts of existing columns; `in` lists are typed comma-separated. */
export function toFilter(drafts: Record<string, FilterDraft>, columns: readonly ColumnInfo[]): Filter<UntypedRow> {
  const filter: Filter<UntypedRow> = {};
  for (const column of columns) {
    const draft = drafts[column.name];
    if (!isActive(draft) || !operatorsFor(column.type).includes(draft.op)) continue;
    if (isNullTest(draft.op)) filter[column.name] = { is: draft.op };
    else if (takesList(draft.op)) filter[column.name] = { [draft.op]: splitListText(draft.value) };
    else filter[column.name] = { [draft.op]: draft.value };
  }
  return filter;
}

/** The column a 400's `details.parameter` names: the key as sent (`score[gte]`) or a plain column name. */
export function columnOfParameter(parameter: string | undefined): string | undefined {
  return parameter?.replace(/\[[A-Za-z]*\]$/, '');
}
