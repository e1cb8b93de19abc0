import { MAX_LIMIT, type DataResponse } from '@basalt/contract';
import { segment } from './http.js';
import { listParameters, selectText, type LooseListQuery } from './queryParameters.js';
import type { Send } from './transport.js';
import type { Realtime, RealtimeListener, RealtimeStatusListener } from './realtime.js';
import type { CountMode, Filter, ListResult, RecordId, Relations, Selected, Selection, TableListQuery, UntypedRow } from './types.js';

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
   * `where` is an expression of the rules language (sent as `filter=`), ANDed with `filter` and the table's rules.
   * Without filter, where or select, all of the client's subscriptions share one connection. `onStatus` hears `open` once the
   * stream is open (every change committed from then on is delivered) and `reconnecting` while it is being retried.
   */
  subscribe(
    options: { filter?: Filter<Row>; where?: string; select?: readonly (keyof Row & string)[] },
    onEvent: RealtimeListener<Row>,
    onStatus?: RealtimeStatusListener,
  ): () => void {
    if (!this.live) throw new TypeError('subscribe is for client.from(table); the owner uses client.admin.subscribe');
    const { filter, where, select } = options;
    const query = filter || select || where !== undefined ? listParameters({ filter, select, where } as LooseListQuery) : null;
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
        query: listParameters({ limit: MAX_LIMIT, ...query, after, count: 'none' }),
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
   * Creates 1 to `MAX_BULK_RECORDS` (@basalt/contract) records in one statement, all or none, and returns them in the
   * order given. An error names the record (`details.index`).
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
