import type { DataResponse, ListResponse } from '@basalt/contract';
import { segment, type QueryValue } from './http.js';
import type { Send } from './transport.js';
import type { ListResult, RecordId, TableListQuery, UntypedRow } from './types.js';

/** Parameter names the list endpoint reserves: a filter on a column of the same name cannot be expressed. */
const LIST_PARAMETERS = new Set(['limit', 'offset', 'order']);

/** Every typed list query is one of these; the typing lives in `TableListQuery`. */
interface LooseListQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  order?: string | readonly string[] | undefined;
  filter?: object | undefined;
}

/** Turns a list query into the endpoint's parameters: `limit`, `offset`, `order=a.asc,b.desc`, `column=value`. */
export function listParameters(query: LooseListQuery = {}): Record<string, QueryValue | undefined> {
  const order = query.order;
  const params: Record<string, QueryValue | undefined> = {
    limit: query.limit,
    offset: query.offset,
    order: typeof order === 'string' || order === undefined ? order : order.join(','),
  };
  for (const [column, value] of Object.entries(query.filter ?? {}) as [string, QueryValue | null | undefined][]) {
    if (value === undefined) continue;
    if (LIST_PARAMETERS.has(column)) {
      // Sent as is, `{ limit: 5 }` in a filter would silently become the page size.
      throw new TypeError(`Cannot filter on column "${column}": the list endpoint reserves that parameter name`);
    }
    if (value === null) throw new TypeError(`Cannot filter "${column}" on null: filters are equality on a value`);
    params[column] = value;
  }
  return params;
}

/**
 * The record API of one table: `/api/:table` for apps, or the owner's `/admin/tables/:name/records` (no policy scope).
 * `Row`, `Insert` and `Update` come from the generated `Database` type; untyped tables get `unknown` columns.
 */
export class TableClient<Row = UntypedRow, Insert = Partial<Row>, Update = Partial<Row>> {
  constructor(
    private readonly send: Send,
    /** Already encoded, e.g. `/api/todos`. */
    private readonly basePath: string,
  ) {}

  /** A page of records and the total number that match. */
  async list(query: TableListQuery<Row> = {}): Promise<ListResult<Row>> {
    const body = await this.send<ListResponse<Row>>({ method: 'GET', path: this.basePath, query: listParameters(query) });
    return { data: body.data, total: body.total };
  }

  async get(id: RecordId<Row>): Promise<Row> {
    return (await this.send<DataResponse<Row>>({ method: 'GET', path: this.recordPath(id) })).data;
  }

  /** Creates a record; the server fills `id` (unless given), `createdAt`, `updatedAt` and, if owner-scoped, the owner. */
  async create(values: Insert): Promise<Row> {
    return (await this.send<DataResponse<Row>>({ method: 'POST', path: this.basePath, body: values })).data;
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

/** The owner's view of a table's records: every row, no policy; there is no single-record read on that route. */
export type AdminTableClient<Row = UntypedRow, Insert = Partial<Row>, Update = Partial<Row>> = Omit<
  TableClient<Row, Insert, Update>,
  'get'
>;
