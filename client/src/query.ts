import type { DataResponse } from '@basalt/contract';
import { formatQueryValue, segment, type QueryValue } from './http.js';
import type { Send } from './transport.js';
import type { Realtime, RealtimeListener, RealtimeStatusListener } from './realtime.js';
import type { CountMode, Filter, ListResult, RecordId, Relations, Selected, Selection, TableListQuery, UntypedRow } from './types.js';

/** Parameter names the list endpoint reserves: a column of that name is filtered as `<column>[eq]`. */
const LIST_PARAMETERS = new Set(['limit', 'offset', 'order', 'select', 'after', 'count']);
const OPERATORS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'search', 'is']);
const MAX_LIST_VALUES = 100;

/** Every typed list query is one of these; the typing lives in `TableListQuery`. */
interface LooseListQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  order?: string | readonly string[] | undefined;
  filter?: object | undefined;
  select?: string | readonly unknown[] | undefined;
  embedOptions?: Record<string, { order?: string | undefined; limit?: number | undefined }> | undefined;
  after?: string | null | undefined;
  count?: CountMode | undefined;
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
    params[`${column}[is]`] = 'null';
    return;
  }
  if (isValue(condition)) {
    params[LIST_PARAMETERS.has(column) ? `${column}[eq]` : column] = condition;
    return;
  }
  for (const [op, value] of Object.entries(condition as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (!OPERATORS.has(op)) throw new TypeError(`Unknown operator "${op}" on "${column}"`);
    const key = `${column}[${op}]`;
    if (op === 'in' || op === 'nin') {
      const values = value as readonly QueryValue[];
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_LIST_VALUES) {
        throw new TypeError(`${key} takes a list of 1 to ${MAX_LIST_VALUES} values`);
      }
      params[key] = values.map(listItem).join(',');
    } else if (op === 'is') {
      params[key] = value === null ? 'null' : String(value);
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

/** Turns a list query into the endpoint's parameters: `limit`, `order=a.asc,b.desc`, `select=a,b`, filters, ... */
export function listParameters(query: LooseListQuery = {}): Record<string, QueryValue | undefined> {
  const join = (value: string | readonly string[] | undefined) => (typeof value === 'string' || value === undefined ? value : value.join(','));
  const params: Record<string, QueryValue | undefined> = {
    limit: query.limit,
    offset: query.offset,
    order: join(query.order),
    select: query.select === undefined ? undefined : selectText(query.select),
    after: query.after ?? undefined,
    count: query.count,
  };
  for (const [path, options] of Object.entries(query.embedOptions ?? {})) {
    params[`${path}.order`] = options.order;
    params[`${path}.limit`] = options.limit;
  }
  for (const [column, condition] of Object.entries(query.filter ?? {})) conditionParameters(column, condition, params);
  return params;
}

interface ListBody {
  data: unknown[];
  total?: number;
  totalExact?: boolean;
  next: string | null;
}

/**
 * The record API of one table: `/api/:table` for apps, or the owner's `/admin/tables/:name/records` (no policy scope).
 * `Row`, `Insert` and `Update` come from the generated `Database` type; untyped tables get `unknown` columns.
 */
export class TableClient<Row = UntypedRow, Insert = Partial<Row>, Update = Partial<Row>, R = Relations> {
  constructor(
    private readonly send: Send,
    /** Already encoded, e.g. `/api/todos`. */
    private readonly basePath: string,
    /** Where `subscribe` streams from; absent on the owner's record routes (they have `admin.subscribe`). */
    private readonly live?: { realtime: Realtime; table: string },
  ) {}

  /**
   * Every change of this table the caller may see, as it happens: `onEvent` gets `insert`, `update` and `delete`
   * events (and `reset` after a TRUNCATE, or when changes were missed for too long: list again), and `error` when the
   * subscription ends for good (a policy change, signed out). Returns the function that unsubscribes.
   * Without filter or select, all of the client's subscriptions share one connection. `onStatus` hears `open` once the
   * stream is open (every change committed from then on is delivered) and `reconnecting` while it is being retried.
   */
  subscribe(options: { filter?: Filter<Row>; select?: readonly (keyof Row & string)[] }, onEvent: RealtimeListener<Row>, onStatus?: RealtimeStatusListener): () => void {
    if (!this.live) throw new TypeError('subscribe is for client.from(table); the owner uses client.admin.subscribe');
    const query = options.filter || options.select ? listParameters({ filter: options.filter, select: options.select } as LooseListQuery) : null;
    return this.live.realtime.subscribe(this.live.table, query, onEvent as RealtimeListener<Record<string, unknown>>, onStatus);
  }

  /**
   * A page of records, the cursor of the next page and (unless `count: 'none'`) the total that match. `select`
   * narrows the record type to the chosen columns.
   */
  async list<const S extends Selection<Row, R> | undefined = undefined, C extends CountMode | undefined = undefined>(
    query: Omit<TableListQuery<Row>, 'select'> & { select?: S; count?: C } = {},
  ): Promise<ListResult<Selected<Row, S, R>, C>> {
    const body = await this.send<ListBody>({ method: 'GET', path: this.basePath, query: listParameters(query) });
    return body as unknown as ListResult<Selected<Row, S, R>, C>;
  }

  /**
   * Every record that matches, page after page by cursor (no count asked), as an async iterator:
   * `for await (const row of table.listAll({ filter }))`. Rows inserted or deleted meanwhile never make it skip or
   * repeat a row that stayed.
   */
  async *listAll<const S extends Selection<Row, R> | undefined = undefined>(
    query: Omit<TableListQuery<Row>, 'offset' | 'after' | 'count' | 'select'> & { select?: S } = {},
  ): AsyncGenerator<Selected<Row, S, R>, void, undefined> {
    let after: string | null = null;
    do {
      const page: ListBody = await this.send<ListBody>({
        method: 'GET',
        path: this.basePath,
        query: listParameters({ limit: 100, ...query, after, count: 'none' }),
      });
      for (const row of page.data) yield row as Selected<Row, S, R>;
      after = page.next;
    } while (after);
  }

  /** One record, whole, or as `select` asks (columns and embeds: `{ select: ['title', { author: ['name'] }] }`). */
  async get<const S extends Selection<Row, R> | undefined = undefined>(id: RecordId<Row>, options: { select?: S } = {}): Promise<Selected<Row, S, R>> {
    const query = options.select === undefined ? undefined : { select: selectText(options.select) };
    return (await this.send<DataResponse<Selected<Row, S, R>>>({ method: 'GET', path: this.recordPath(id), query })).data;
  }

  /** Creates a record; the server fills `id` (unless given), `createdAt`, `updatedAt` and, if owner-scoped, the owner. */
  async create(values: Insert): Promise<Row> {
    return (await this.send<DataResponse<Row>>({ method: 'POST', path: this.basePath, body: values })).data;
  }

  /**
   * Creates 1 to 1,000 records in one statement, all or none, and returns them in the order given. An error names the
   * record (`details.index`).
   */
  async createMany(values: readonly Insert[]): Promise<Row[]> {
    return (await this.send<DataResponse<Row[]>>({ method: 'POST', path: this.basePath, body: values })).data;
  }

  /**
   * Creates the record at `id`, or updates it. On update only the given columns change; on create the server requires
   * every column an insert requires, so pass a full record when the id may be new.
   */
  async upsert(id: RecordId<Row>, values: Update): Promise<Row> {
    return (await this.send<DataResponse<Row>>({ method: 'PUT', path: this.recordPath(id), body: values })).data;
  }

  /** Deletes a record and returns it as it was. */
  async delete(id: RecordId<Row>): Promise<Row> {
    return (await this.send<DataResponse<Row>>({ method: 'DELETE', path: this.recordPath(id) })).data;
  }

  private recordPath(id: string | number): string {
    return `${this.basePath}/${segment(id)}`;
  }
}

/** The owner's view of a table's records: every row, whatever the policy; the owner column is an ordinary column. */
export type AdminTableClient<Row = UntypedRow, Insert = Partial<Row>, Update = Partial<Row>, R = Relations> = TableClient<Row, Insert, Update, R>;
