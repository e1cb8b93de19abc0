import { AGGREGATE_FUNCTIONS, type AggregateFunction, type OrderDirection } from '@basalt/contract';
import type { Filter, UntypedRow } from './types.js';

/**
 * Aggregates as a list's `select` (API.md, "Query language, part 2"): `groupBy` columns, then `count()` and
 * `alias:fn(column)` items, each aggregate under the key its alias names, so two of one function never collide.
 */

type Column<Row> = keyof Row & string;

/** The columns `sum` and `avg` take: integer and real (every column of an untyped table; the server checks). */
export type NumericColumn<Row> = { [K in Column<Row>]-?: unknown extends Row[K] ? K : NonNullable<Row[K]> extends number ? K : never }[Column<Row>];

/** The columns `min` and `max` take: integer, real, timestamp and text. */
export type ComparableColumn<Row> = {
  [K in Column<Row>]-?: unknown extends Row[K] ? K : NonNullable<Row[K]> extends number | string ? K : never;
}[Column<Row>];

/** What to compute per group: `{ groupBy: ['status'], count: true, sum: { total: 'score' }, max: { last: 'createdAt' } }`. */
export interface Aggregates<Row = UntypedRow> {
  /** The columns that group (they are the plain columns of the select); none: one group of every matching row. */
  groupBy?: readonly Column<Row>[];
  /** `count()`, the rows of each group: under the key `count`, or under the alias given. */
  count?: true | string;
  /** `alias: column`: the sum of a numeric column, a number (null when every value is null). */
  sum?: Readonly<Record<string, NumericColumn<Row>>>;
  /** `alias: column`: the average of a numeric column, a number (null when every value is null). */
  avg?: Readonly<Record<string, NumericColumn<Row>>>;
  /** `alias: column`: the least value of a numeric, timestamp (ISO string) or text column. */
  min?: Readonly<Record<string, ComparableColumn<Row>>>;
  /** `alias: column`: the greatest value of a numeric, timestamp (ISO string) or text column. */
  max?: Readonly<Record<string, ComparableColumn<Row>>>;
}

const COUNT = 'count' satisfies AggregateFunction;
type ColumnAggregate = Exclude<AggregateFunction, typeof COUNT>;

/** The aggregate functions that take a column (all the contract's but `count`), in the order their items are written. */
export const COLUMN_AGGREGATES = AGGREGATE_FUNCTIONS.filter((fn): fn is ColumnAggregate => fn !== COUNT);

// `Aggregates` names each function of the contract once: one added or renamed there fails the build here.
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type _AggregateNamesAreTheContracts = Holds<SameNames<Exclude<keyof Aggregates, 'groupBy'>, AggregateFunction>>;

type Part<A, F extends string> = A extends { [P in F]?: infer M } ? (M extends object ? M : object) : object;
type CountKey<A> = A extends { count?: infer C } ? (C extends string ? C : C extends true ? 'count' : never) : never;
type GroupKey<A> = A extends { groupBy?: readonly (infer G)[] } ? Extract<G, string> : never;
type Flat<T> = { [K in keyof T]: T[K] } & unknown;

/** The key of every item of the select: group columns, the count's, and the aliases. */
export type AggregateKey<A> = GroupKey<A> | CountKey<A> | Extract<keyof Part<A, 'sum'> | keyof Part<A, 'avg'> | keyof Part<A, 'min'> | keyof Part<A, 'max'>, string>;

/** One group as the server answers it: its group columns, the count, and each aggregate under its alias. */
export type AggregateRow<Row, A> = Flat<
  Pick<Row, GroupKey<A> & keyof Row> & { [K in CountKey<A>]: number } & {
    [K in keyof Part<A, 'sum'> | keyof Part<A, 'avg'>]: number | null;
  } & {
    [K in keyof Part<A, 'min'>]: Part<A, 'min'>[K] extends keyof Row ? Row[Part<A, 'min'>[K]] | null : unknown;
  } & {
    [K in keyof Part<A, 'max'>]: Part<A, 'max'>[K] extends keyof Row ? Row[Part<A, 'max'>[K]] | null : unknown;
  }
>;

/** `key.asc` or `key.desc`, where the key is a group column, the count's or an alias. */
export type AggregateOrder<A> = `${AggregateKey<A>}.${OrderDirection}`;

/** Which rows are grouped, and how the groups are ordered and paged (`next` of the previous page as `after`). */
export interface AggregateQuery<Row, A> {
  filter?: Filter<Row>;
  /** An expression of the rules language, ANDed with `filter` and the table's rules; sent as `filter=`. */
  where?: string;
  /** Groups are then ordered by the group columns, in `groupBy` order. */
  order?: AggregateOrder<A> | readonly AggregateOrder<A>[];
  /** Groups per page (server default 20, max 100). */
  limit?: number;
  after?: string | null;
}

/** A page of groups and the cursor of the next (null on the last); aggregates have no `total`. */
export interface AggregatePage<T> {
  data: T[];
  next: string | null;
}

/** Loosely typed, as `aggregateSelect` reads it. */
export interface LooseAggregates {
  groupBy?: readonly string[] | undefined;
  count?: true | string | undefined;
  sum?: Readonly<Record<string, string>> | undefined;
  avg?: Readonly<Record<string, string>> | undefined;
  min?: Readonly<Record<string, string>> | undefined;
  max?: Readonly<Record<string, string>> | undefined;
}

/** `{ groupBy: ['status'], count: true, sum: { total: 'score' } }` -> `status,count(),total:sum(score)`. */
export function aggregateSelect(aggregates: LooseAggregates): string {
  const items = [...(aggregates.groupBy ?? [])];
  if (aggregates.count !== undefined) items.push(aggregates.count === true ? `${COUNT}()` : `${aggregates.count}:${COUNT}()`);
  for (const fn of COLUMN_AGGREGATES) {
    for (const [alias, column] of Object.entries(aggregates[fn] ?? {})) items.push(`${alias}:${fn}(${column})`);
  }
  if (items.length === (aggregates.groupBy?.length ?? 0)) throw new TypeError('An aggregate query asks for count, sum, avg, min or max');
  return items.join(',');
}
