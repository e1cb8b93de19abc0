import {
  EMBED_OPTIONS,
  LIST_OPERATORS,
  MAX_LIST_VALUES,
  OPERATORS,
  RESERVED_PARAMETERS,
  type IsValue,
  type Operator,
  type ReservedParameter,
} from '@basalt/contract';
import { formatQueryValue, type QueryValue } from './http.js';
import type { CountMode } from './types.js';

/**
 * A list query as the list endpoint's parameters (API.md, "Query language"). The words come from the contract, so
 * the client refuses exactly the operators and list sizes the server would, before a request is sent.
 */

const operators: ReadonlySet<string> = new Set(OPERATORS);
const reservedParameters: ReadonlySet<string> = new Set(RESERVED_PARAMETERS);
const listOperators: ReadonlySet<string> = new Set(LIST_OPERATORS);
// Literals typed by the contract: renaming either word there fails the build here rather than the request.
const IS_OPERATOR: Operator = 'is';
const EQ_OPERATOR: Operator = 'eq';
const IS_NULL: IsValue = 'null';

/** Every typed list query is one of these; the typing lives in `TableListQuery`. */
export interface LooseListQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  order?: string | readonly string[] | undefined;
  filter?: object | undefined;
  select?: string | readonly unknown[] | undefined;
  embedOptions?: Record<string, { order?: string | undefined; limit?: number | undefined }> | undefined;
  after?: string | null | undefined;
  count?: CountMode | undefined;
  /** An expression (API.md, "The `filter` parameter"), ANDed with `filter` and the policy; sent as `filter=`. */
  where?: string | undefined;
}

/** One value of an `in` list: quoted when it holds a comma or a double quote, a quote inside doubled. */
function listItem(value: QueryValue): string {
  const text = formatQueryValue(value);
  return /[,"]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function isValue(value: unknown): value is QueryValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date;
}

/** The parameters of one column's condition: `col=v`, `col[is]=null`, or `col[op]=v` per operator. */
function conditionParameters(column: string, condition: unknown, params: Record<string, QueryValue | undefined>): void {
  if (condition === undefined) return;
  if (condition === null) {
    params[`${column}[${IS_OPERATOR}]`] = IS_NULL;
    return;
  }
  if (isValue(condition)) {
    params[reservedParameters.has(column) ? `${column}[${EQ_OPERATOR}]` : column] = condition;
    return;
  }
  for (const [op, value] of Object.entries(condition as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (!operators.has(op)) throw new TypeError(`Unknown operator "${op}" on "${column}"`);
    const key = `${column}[${op}]`;
    if (listOperators.has(op)) {
      const values = value as readonly QueryValue[];
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_LIST_VALUES) {
        throw new TypeError(`${key} takes a list of 1 to ${MAX_LIST_VALUES} values`);
      }
      params[key] = values.map(listItem).join(',');
    } else if (op === IS_OPERATOR) {
      params[key] = value === null ? IS_NULL : String(value);
    } else if (isValue(value)) {
      params[key] = value;
    } else {
      throw new TypeError(`${key} takes a string, number, boolean or Date`);
    }
  }
}

/** A select as the server reads it: `['id', { author: ['name'], comments: '*' }]` -> `id,author(name),comments(*)`. */
export function selectText(select: string | readonly unknown[]): string {
  if (typeof select === 'string') return select;
  return select
    .flatMap((entry) =>
      typeof entry === 'string'
        ? [entry]
        : Object.entries(entry as Record<string, string | readonly unknown[] | undefined>).flatMap(([name, inner]) => (inner === undefined ? [] : [`${name}(${selectText(inner)})`])),
    )
    .join(',');
}

/** The parameters only writes take: changes by filter (`all`, `dryRun`) and upserts on a unique column (`onConflict`). */
export interface WriteParameters {
  all?: boolean | undefined;
  dryRun?: boolean | undefined;
  onConflict?: string | undefined;
}

/** Turns a list query into the endpoint's parameters: `limit`, `order=a.asc,b.desc`, `select=a,b`, filters, ... */
export function listParameters(query: LooseListQuery = {}, write: WriteParameters = {}): Record<string, QueryValue | undefined> {
  const join = (value: string | readonly string[] | undefined) => (typeof value === 'string' || value === undefined ? value : value.join(','));
  // Keyed by the contract's reserved parameters: one added there is a compile error here until it is written.
  const reserved: Record<ReservedParameter, QueryValue | undefined> = {
    limit: query.limit,
    offset: query.offset,
    order: join(query.order),
    select: query.select === undefined ? undefined : selectText(query.select),
    after: query.after ?? undefined,
    count: query.count,
    filter: query.where,
    // `false` is the server's default: left out rather than sent.
    all: write.all || undefined,
    dryRun: write.dryRun || undefined,
    onConflict: write.onConflict,
  };
  const params: Record<string, QueryValue | undefined> = { ...reserved };
  for (const [path, options] of Object.entries(query.embedOptions ?? {})) {
    for (const option of EMBED_OPTIONS) params[`${path}.${option}`] = options[option];
  }
  for (const [column, condition] of Object.entries(query.filter ?? {})) conditionParameters(column, condition, params);
  return params;
}

/** The rows a change by filter touches: the list's conditions and expression (nothing that orders or pages). */
export interface LooseChangeQuery {
  filter?: object | undefined;
  where?: string | undefined;
}

/** How a change by filter runs: every row (`all`), at most `limit` matching rows or none, or only counted (`dryRun`). */
export interface LooseChangeOptions {
  all?: boolean | undefined;
  limit?: number | undefined;
  dryRun?: boolean | undefined;
  select?: string | readonly unknown[] | undefined;
}

/** `PATCH`/`DELETE /api/:table?...`: the list's filters and `filter=`, with `all`, `limit`, `dryRun` and `select`. */
export function changeParameters(query: LooseChangeQuery, options: LooseChangeOptions = {}): Record<string, QueryValue | undefined> {
  const { filter, where } = query;
  const { all, limit, dryRun, select } = options;
  return listParameters({ filter, where, limit, select }, { all, dryRun });
}
