import { DEFAULT_LIMIT, MAX_LIMIT, type ColumnType } from './schema.js';

/**
 * The words of the query language (API.md, "Query language"), named once for the server's parser, planner and
 * OpenAPI document, the client library's query builder and the console's filters: none of them keeps a list of its
 * own. (PostgREST names its operators once in `ApiRequest/Types.hs` for the same reason.)
 */

export { DEFAULT_LIMIT, MAX_LIMIT };

/** `<column>[op]=value`. */
export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'is', 'search'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The operators that compare one value with the column (`<column>=v` is `eq`). */
export const COMPARISONS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const satisfies readonly Operator[];
export type Comparison = (typeof COMPARISONS)[number];

/** The operators that take a comma-separated list of values. */
export const LIST_OPERATORS = ['in', 'nin'] as const satisfies readonly Operator[];
export type ListOperator = (typeof LIST_OPERATORS)[number];
export const isListOperator = (op: Operator): op is ListOperator => (LIST_OPERATORS as readonly Operator[]).includes(op);

/** `<column>[is]=...`: `null`, `notnull`; `true`, `false` on boolean columns only. */
export const IS_VALUES = ['null', 'notnull', 'true', 'false'] as const;
export type IsValue = (typeof IS_VALUES)[number];
/** The `is` values a column of any type takes; boolean columns add `true` and `false`. */
export const NULL_TESTS = ['null', 'notnull'] as const satisfies readonly IsValue[];

/** The operators each column type takes (its `is` values are checked apart). */
export const OPERATORS_BY_TYPE: Readonly<Record<ColumnType, readonly Operator[]>> = {
  integer: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  real: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  timestamp: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  text: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'search', 'is'],
  boolean: ['eq', 'neq', 'is'],
  json: ['eq', 'is'],
};

/** `count=`: the exact total (default), the planner's estimate above EXACT_COUNT_LIMIT, or none. */
export const COUNT_MODES = ['exact', 'estimated', 'none'] as const;
export type CountMode = (typeof COUNT_MODES)[number];
export const DEFAULT_COUNT_MODE: CountMode = 'exact';

/**
 * Parameters that are not filters on every record route (`/api`, admin records, `/realtime`); a column with one of
 * these names is filtered as `<column>[eq]=v`. `filter` is the expression filter; `all`, `dryRun` and `onConflict`
 * are kept for changes by filter and upserts (the query language's part 2), refused where a route does not take them.
 */
export const RESERVED_PARAMETERS = ['limit', 'offset', 'order', 'select', 'after', 'count', 'filter', 'all', 'dryRun', 'onConflict'] as const;
export type ReservedParameter = (typeof RESERVED_PARAMETERS)[number];
/** Reserved on the owner's records route besides: `as`, the caller whose view is listed. */
export const ADMIN_RESERVED_PARAMETERS = [...RESERVED_PARAMETERS, 'as'] as const;
/** The expression filter's parameter (API.md, "The `filter` parameter"); it counts as one of MAX_FILTERS. */
export const FILTER_PARAMETER = 'filter';

/** `order=<column>.asc|desc`. */
export const ORDER_DIRECTIONS = ['asc', 'desc'] as const;
export type OrderDirection = (typeof ORDER_DIRECTIONS)[number];

/**
 * Aggregates in `select` (API.md, "Query language, part 2"): `count()` counts rows; the others take a column of the
 * types listed. The plain columns of such a select group the rows; `alias:item` names any of its items.
 */
export const AGGREGATE_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];
export const AGGREGATE_COLUMN_TYPES: Readonly<Record<AggregateFunction, readonly ColumnType[]>> = {
  count: [],
  sum: ['integer', 'real'],
  avg: ['integer', 'real'],
  min: ['integer', 'real', 'timestamp', 'text'],
  max: ['integer', 'real', 'timestamp', 'text'],
};
/** `alias:item`: an alias is a plain name. */
export const SELECT_ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** An embed's own options: `<embed>.order` and `<embed>.limit`. */
export const EMBED_OPTIONS = ['order', 'limit'] as const;

/** At most this many filter parameters per request (`select`, `order` and paging do not count). */
export const MAX_FILTERS = 30;
/** At most this many bytes of query string. */
export const MAX_QUERY_BYTES = 8 * 1024;
/** An `in`/`nin` list holds 1 to this many values. */
export const MAX_LIST_VALUES = 100;
/** A bulk insert holds 1 to this many records. */
export const MAX_BULK_RECORDS = 1_000;
/** A change by filter (PATCH or DELETE on a table) changes at most this many records (`limit`, its default). */
export const MAX_CHANGED_RECORDS = 1_000;
/** Embeds nest at most this deep. */
export const MAX_EMBED_DEPTH = 3;
/** A to-many embed holds at most this many rows per parent (`<embed>.limit` up to it). */
export const MAX_EMBED_ROWS = MAX_LIMIT;
/** Up to this many matching rows (by the planner's estimate) a count is exact; above it `count=estimated` estimates. */
export const EXACT_COUNT_LIMIT = 100_000;
