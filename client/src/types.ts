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

export type Filter<Row> = { [K in keyof Row & string]?: FilterValue<Row[K]> };

/** `column.asc` or `column.desc`; pass an array to order by several columns. */
export type OrderTerm<Row> = `${keyof Row & string}.${'asc' | 'desc'}`;

export interface TableListQuery<Row = UntypedRow> {
  /** Page size; the server's default is 20 and values above 100 are clamped to 100. */
  limit?: number;
  offset?: number;
  order?: OrderTerm<Row> | readonly OrderTerm<Row>[];
  /** Equality filters, `{ column: value }`. */
  filter?: Filter<Row>;
}

export interface ListResult<Row> {
  data: Row[];
  /** Every row that matches the filters and the caller's scope, not just this page. */
  total: number;
}
