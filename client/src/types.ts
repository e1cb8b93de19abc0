import type { CountMode, NULL_TESTS, Operator, OrderDirection } from '@basalt/contract';

/**
 * The shape `GET /admin/types` generates, and the one type parameter of `createClient`:
 *
 *   export interface Database { todos: { Row: {...}; Insert: {...}; Update: {...} } }
 *
 * Kysely and supabase-js type a whole database the same way. Everything here is derived from it, so call sites never
 * need a cast and a wrong column or value type is a compile error.
 */

/** A record of a table the client has no type for: every column is `unknown`, so it must be checked before use. */
export type UntypedRow = Record<string, unknown>;

export interface UntypedTable {
  Row: UntypedRow;
  Insert: UntypedRow;
  Update: UntypedRow;
}

/** What `createClient` assumes without a type parameter: any table, any columns. */
export type UntypedDatabase = Record<string, UntypedTable>;

export type TableName<DB> = keyof DB & string;

// `infer` rather than a constraint on DB: a generated `interface` has no index signature, so it would not satisfy
// `Record<string, ...>`, and users must be able to pass it as is.
export type RowOf<T> = T extends { Row: infer R } ? R : UntypedRow;
export type InsertOf<T> = T extends { Insert: infer I } ? I : Partial<RowOf<T>>;
export type UpdateOf<T> = T extends { Update: infer U } ? U : Partial<RowOf<T>>;

/** The type of a table's `id` column; ids of an untyped table may be strings or numbers. */
export type RecordId<Row> = Row extends { id: infer I extends string | number } ? I : string | number;

/** What an equality filter on a column accepts: its own type, and a Date for timestamp (string) columns. */
export type FilterValue<V> =
  NonNullable<V> extends boolean
    ? boolean
    : NonNullable<V> extends number
      ? number
      : NonNullable<V> extends string
        ? string | Date
        : string | number | boolean | Date;

/** `is` tests: NULL or not NULL on every column, true/false on boolean columns. */
export type IsTest = null | (typeof NULL_TESTS)[number];

/** Operators of integer, real and timestamp columns; text columns add patterns and search. */
export interface RangeOperators<T> {
  eq?: T;
  neq?: T;
  gt?: T;
  gte?: T;
  lt?: T;
  lte?: T;
  /** 1 to `MAX_LIST_VALUES` (@basalt/contract) values. */
  in?: readonly T[];
  nin?: readonly T[];
  is?: IsTest;
}

export interface TextOperators<T> extends RangeOperators<T> {
  /** `*` matches any run of characters; `%`, `_` and `\` match themselves. */
  like?: string;
  ilike?: string;
  /** Full-text match of the words (websearch syntax: `big cat`, `"big cat"`, `cat -dog`). */
  search?: string;
}

export interface BooleanOperators {
  eq?: boolean;
  neq?: boolean;
  is?: IsTest | boolean;
}

/** json columns compare their text form for equality. */
export interface JsonOperators {
  eq?: string;
  is?: IsTest;
}

/** A column of a table the client has no type for: every operator (the server checks them). */
export interface AnyOperators extends Omit<TextOperators<string | number | boolean | Date>, 'is'> {
  is?: IsTest | boolean;
}

// The interfaces above type each operator's value per column kind, which the contract's lists cannot; this keeps their
// names exactly the contract's operators, so one added or renamed there fails the build here.
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type _OperatorNamesAreTheContracts = Holds<SameNames<keyof AnyOperators, Operator>>;

type ColumnKind<V> = unknown extends V
  ? 'any'
  : NonNullable<V> extends boolean
    ? 'boolean'
    : NonNullable<V> extends number
      ? 'number'
      : NonNullable<V> extends string
        ? 'string'
        : 'json';

/** The operators a column takes, from its type in the generated `Row`; a wrong operator is a compile error. */
export type Operators<V> = {
  any: AnyOperators;
  boolean: BooleanOperators;
  number: RangeOperators<number>;
  string: TextOperators<string | Date>;
  json: JsonOperators;
}[ColumnKind<V>];

/** A value (equality), `null` (`is null`), or operators, all ANDed. */
export type Condition<V> = FilterValue<V> | null | Operators<V>;

export type Filter<Row> = { [K in keyof Row & string]?: Condition<Row[K]> };

/** `column.asc` or `column.desc`; pass an array to order by several columns. */
export type OrderTerm<Row> = `${keyof Row & string}.${OrderDirection}`;

// The contract names the count modes; re-exported because apps import `CountMode` from the client.
export type { CountMode };

/** The relations a table's `select` can embed (`Relationships` of the generated type), and the database around them. */
export interface Relations<DB = UntypedDatabase, Rels = UntypedRelationships> {
  db: DB;
  rels: Rels;
}

/** Without a generated type, any embed name is allowed and typed loosely. */
export type UntypedRelationships = Record<string, { kind: 'one' | 'many'; table: string }>;

export type RelationshipsOf<T> = T extends { Relationships: infer R } ? R : UntypedRelationships;

type RelatedTable<Rel> = Rel extends { table: infer N } ? N : never;
type RelationsOfTable<DB, N> = N extends keyof DB ? Relations<DB, RelationshipsOf<DB[N]>> : never;

/** Embeds of a select: `{ author: ['name'], comments: '*' }`, each a select of the related table. */
export type EmbedSelection<R> =
  R extends Relations<infer DB, infer Rels>
    ? { [K in keyof Rels & string]?: RelatedTable<Rels[K]> extends infer N ? (N extends keyof DB ? Selection<RowOf<DB[N]>, RelationsOfTable<DB, N>> : never) : never }
    : never;

/** `'*'`, or the columns each record carries and the related rows embedded in it. */
export type Selection<Row, R = Relations> = '*' | readonly ((keyof Row & string) | EmbedSelection<R>)[];

export interface TableListQuery<Row = UntypedRow> {
  /** Page size; the server's default is `DEFAULT_LIMIT` and values above `MAX_LIMIT` are clamped to it (@basalt/contract). */
  limit?: number;
  /** Rows to skip; not with `after`. */
  offset?: number;
  order?: OrderTerm<Row> | readonly OrderTerm<Row>[];
  /** Conditions per column: `{ score: { gte: 10 }, title: { like: 'a*' }, done: false }`. */
  filter?: Filter<Row>;
  select?: Selection<Row>;
  /** Order and limit of to-many embeds, by embed path: `{ comments: { order: 'createdAt.desc', limit: 3 } }`. */
  embedOptions?: Record<string, { order?: string; limit?: number }>;
  /** The `next` of the previous page. */
  after?: string | null;
  /**
   * `exact` (the default), `estimated` (exact below `EXACT_COUNT_LIMIT` matching rows, else the planner's estimate),
   * `none` (no total).
   */
  count?: CountMode;
  /**
   * An expression of the rules language, ANDed with `filter` and the table's policy (`or`, `not`, paths through
   * relations, `@auth.*`): `"status = 'open' or (priority >= 3 and assignee_id = @auth.id)"`. Sent as `filter=`.
   */
  where?: string;
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** One embed's result: the related record (or null) for a to-one relation, an array of them for a to-many. */
type EmbedResult<DB, Rel, S> = Rel extends { kind: infer Kind; table: infer N }
  ? N extends keyof DB
    ? Kind extends 'one'
      ? Selected<RowOf<DB[N]>, S, RelationsOfTable<DB, N>> | null
      : Selected<RowOf<DB[N]>, S, RelationsOfTable<DB, N>>[]
    : unknown
  : unknown;

type EmbedsResult<R, O> = [O] extends [never]
  ? unknown
  : R extends Relations<infer DB, infer Rels>
    ? UnionToIntersection<O extends object ? { [K in keyof O & keyof Rels]-?: EmbedResult<DB, Rels[K], O[K]> } : never>
    : unknown;

/** The record type a `select` leaves: the chosen columns and embeds, or the whole row. */
export type Selected<Row, S, R = Relations> = S extends readonly (infer E)[] ? Pick<Row, Extract<E, string> & keyof Row> & EmbedsResult<R, Exclude<E, string>> : Row;

/** A page: the records, the cursor of the next page (null on the last), and the total the count mode asked for. */
export type ListResult<Row, C extends CountMode | undefined = 'exact'> = {
  data: Row[];
  /** Pass as `after` for the next page; null when no row follows. */
  next: string | null;
} & (C extends 'none'
  ? { total?: undefined }
  : C extends 'estimated'
    ? { total: number; totalExact: boolean }
    : {
        /** Every row that matches the filters and the caller's scope, not just this page. */
        total: number;
      });

/** The records a change by filter touches: the conditions and the expression a list takes, nothing that orders or pages. */
export type ChangeQuery<Row = UntypedRow> = Pick<TableListQuery<Row>, 'filter' | 'where'>;

/** The guards of a change by filter (API.md, "Query language, part 2"). */
export interface ChangeOptions<D extends boolean | undefined = boolean | undefined> {
  /** Needed to change every record when the query has no condition at all. */
  all?: boolean;
  /** At most this many matching records (1 to 1,000, the default), else nothing changes: 400 naming `limit`, `details.matched`. */
  limit?: number;
  /** Count the matching records, change nothing: the answer is `{ matched }`. */
  dryRun?: D;
}

/** The changed records, or with `dryRun: true` how many match. */
export type ChangeResult<T, D> = D extends true ? { matched: number } : T[];

/** What `exportCsv` takes: a list query without embeds or paging of its own (`limit` is the page size). */
export type CsvQuery<Row = UntypedRow> = Omit<TableListQuery<Row>, 'offset' | 'after' | 'count' | 'select' | 'embedOptions'> & {
  /** The columns, in this order (default: all, in table order). */
  select?: '*' | readonly (keyof Row & string)[];
};

/** An upsert by a unique column's answer: the record, and whether it was created (201) rather than updated (200). */
export interface Upserted<T> {
  record: T;
  created: boolean;
}
