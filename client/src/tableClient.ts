import { MAX_LIMIT, type DataResponse, type TransformOptions } from '@basalt/contract';
import { aggregateSelect, type AggregatePage, type AggregateQuery, type AggregateRow, type Aggregates } from './aggregates.js';
import { CSV_MEDIA_TYPE, fetchCsvPages } from './csv.js';
import type { Bucket, DownloadOptions, FileBody, FileRow, ReplaceOptions, UploadOptions, UrlOptions } from './files.js';
import { segment, type QueryValue } from './http.js';
import { changeParameters, listParameters, selectText, type LooseListQuery } from './queryParameters.js';
import { bodiesOf, type Exchange, type Send } from './transport.js';
import type { Realtime, RealtimeListener, RealtimeStatusListener } from './realtime.js';
import type {
  ChangeOptions,
  ChangeQuery,
  ChangeResult,
  CountMode,
  CsvQuery,
  Filter,
  ListResult,
  RecordId,
  Relations,
  Selected,
  Selection,
  TableListQuery,
  UntypedRow,
  Upserted,
} from './types.js';

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
  private readonly send: Send;

  constructor(
    private readonly exchange: Exchange,
    /** Already encoded, e.g. `/api/todos`. */
    private readonly basePath: string,
    /** Where `subscribe` streams from; absent on the owner's record routes (they have `admin.subscribe`). */
    private readonly live?: { realtime: Realtime; table: string },
    /** The bucket's bytes (`/files/:table`); absent on the owner's record routes. */
    private readonly files?: Bucket<Row>,
  ) {
    this.send = bodiesOf(exchange);
  }

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
    return (await this.send<DataResponse<Selected<Row, S, R>>>({ method: 'GET', path: this.recordPath(id), query: this.selectQuery(options.select) })).data;
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

  /**
   * Updates the given columns of the record at `id` (`PATCH`; never creates: 404 `NOT_FOUND` when there is none) and
   * returns it whole or as `select` asks. An empty patch touches `updatedAt` only.
   */
  async update<const S extends Selection<Row, R> | undefined = undefined>(id: RecordId<Row>, patch: Update, options: { select?: S } = {}): Promise<Selected<Row, S, R>> {
    return (await this.send<DataResponse<Selected<Row, S, R>>>({ method: 'PATCH', path: this.recordPath(id), query: this.selectQuery(options.select), body: patch })).data;
  }

  /**
   * Updates every record that `query` matches (`filter` and/or `where`, as `list` takes them) in one statement, and
   * returns them as changed. Guards: a query that matches on nothing needs `all: true` (else 400 naming `filter`);
   * more matching records than `limit` (default and maximum 1,000) changes nothing (400 naming `limit`, with
   * `details.matched`). `dryRun: true` changes nothing and answers `{ matched }`. Records the caller may read but not
   * update are left alone.
   */
  async updateWhere<const S extends Selection<Row, R> | undefined = undefined, D extends boolean | undefined = undefined>(
    query: ChangeQuery<Row>,
    patch: Update,
    options: ChangeOptions<D> & { select?: S } = {},
  ): Promise<ChangeResult<Selected<Row, S, R>, D>> {
    return (await this.send<DataResponse<ChangeResult<Selected<Row, S, R>, D>>>({ method: 'PATCH', path: this.basePath, query: changeParameters(query, options), body: patch })).data;
  }

  /** Deletes every record that `query` matches and returns them as they were; the guards and `dryRun` of `updateWhere`. */
  async deleteWhere<const S extends Selection<Row, R> | undefined = undefined, D extends boolean | undefined = undefined>(
    query: ChangeQuery<Row>,
    options: ChangeOptions<D> & { select?: S } = {},
  ): Promise<ChangeResult<Selected<Row, S, R>, D>> {
    return (await this.send<DataResponse<ChangeResult<Selected<Row, S, R>, D>>>({ method: 'DELETE', path: this.basePath, query: changeParameters(query, options) })).data;
  }

  /**
   * Creates the record, or updates the one whose `column` (a column with a unique constraint) holds the same value,
   * with the columns given. `created` says which (201 or 200). A null or absent key always creates.
   */
  async upsertBy<const S extends Selection<Row, R> | undefined = undefined>(column: keyof Row & string, values: Insert, options: { select?: S } = {}): Promise<Upserted<Selected<Row, S, R>>> {
    const answer = await this.exchange<DataResponse<Selected<Row, S, R>>>({ method: 'POST', path: this.basePath, query: this.writeQuery(column, options.select), body: values });
    return { record: answer.body.data, created: answer.status === 201 };
  }

  /**
   * `upsertBy` for 1 to `MAX_BULK_RECORDS` records in one statement, all or none, answered in the order given. Every
   * record sends the same columns; two with the same key are 400 naming the later `index`. A conflicting record the
   * caller cannot read is 409 `CONFLICT`, one it cannot update 403, both with `details.index`.
   */
  async upsertManyBy<const S extends Selection<Row, R> | undefined = undefined>(
    column: keyof Row & string,
    values: readonly Insert[],
    options: { select?: S } = {},
  ): Promise<Selected<Row, S, R>[]> {
    return (await this.send<DataResponse<Selected<Row, S, R>[]>>({ method: 'POST', path: this.basePath, query: this.writeQuery(column, options.select), body: values })).data;
  }

  /**
   * Groups the matching records and computes counts, sums, averages, minimums and maximums per group, in one page of
   * groups: `aggregate({ groupBy: ['status'], count: true, sum: { total: 'score' } }, { order: 'count.desc' })`
   * answers `{ data: [{ status, count, total }], next }`. Pass `next` as `after` for the following page.
   */
  async aggregate<const A extends Aggregates<Row>>(aggregates: A, query: AggregateQuery<Row, A> = {}): Promise<AggregatePage<AggregateRow<Row, A>>> {
    const page = await this.send<ListBody>({ method: 'GET', path: this.basePath, query: this.aggregateParameters(aggregates, query) });
    return { data: page.data as AggregateRow<Row, A>[], next: page.next };
  }

  /** Every group, page after page by cursor, as an async iterator (`for await (const group of ...)`). */
  async *aggregateAll<const A extends Aggregates<Row>>(aggregates: A, query: Omit<AggregateQuery<Row, A>, 'after'> = {}): AsyncGenerator<AggregateRow<Row, A>, void, undefined> {
    let after: string | null = null;
    do {
      const page: AggregatePage<AggregateRow<Row, A>> = await this.aggregate(aggregates, { limit: MAX_LIMIT, ...query, after } as AggregateQuery<Row, A>);
      yield* page.data;
      after = page.next;
    } while (after);
  }

  /**
   * Every matching record as one CSV text (RFC 4180, a header row of the column names, then one row per record):
   * fetched page by page (`limit` per page, default the maximum) following each answer's `Link: rel="next"`, the
   * header kept once. The server writes the cells: null empty, the empty string `""`, timestamps ISO, json as JSON text,
   * and text starting with `= + - @` (or a tab or carriage return) behind a `'` so spreadsheets never run it.
   */
  async exportCsv(query: CsvQuery<Row> = {}): Promise<string> {
    return fetchCsvPages(this.exchange, this.basePath, listParameters({ limit: MAX_LIMIT, ...query, count: 'none' } as LooseListQuery));
  }

  /** The groups of `aggregate` as one CSV text (a header row of the group columns and aliases), every page. */
  async exportAggregateCsv<const A extends Aggregates<Row>>(aggregates: A, query: Omit<AggregateQuery<Row, A>, 'after'> = {}): Promise<string> {
    return fetchCsvPages(this.exchange, this.basePath, this.aggregateParameters(aggregates, { limit: MAX_LIMIT, ...query } as AggregateQuery<Row, A>));
  }

  /**
   * Creates the records of a CSV text (a header row of column names, 1 to `MAX_BULK_RECORDS` rows) in one statement, all
   * or none, and returns them in file order. An empty unquoted cell leaves the column to its default, `""` is the
   * empty string. An error names the record and where it starts: `details: { index, line, field }`. With `onConflict`
   * (a unique column) it is an upsert, as `upsertManyBy`.
   */
  async importCsv<const S extends Selection<Row, R> | undefined = undefined>(
    csv: string,
    options: { onConflict?: keyof Row & string; select?: S } = {},
  ): Promise<Selected<Row, S, R>[]> {
    const query = this.writeQuery(options.onConflict, options.select);
    return (await this.send<DataResponse<Selected<Row, S, R>[]>>({ method: 'POST', path: this.basePath, query, content: { type: CSV_MEDIA_TYPE, text: csv } })).data;
  }

  // Files: for tables of kind `files` (buckets); on any other table the server answers 404.

  /**
   * Uploads a file as a new row of this bucket (under its `create` rule) and returns the row. `file` is a Blob or File,
   * bytes, or a ReadableStream (one request; in Node prefer `fs.openAsBlob(path)`, which is sized and resumable).
   * Above the client's `resumableAbove` (default 6 MiB) the upload is resumable (tus): a dropped connection carries on
   * from the bytes the server has. `onProgress(sent, total)` is called as bytes leave (browsers: XMLHttpRequest's
   * upload progress; elsewhere, the bytes fetch has taken), never decreasing, last with `sent === total`. Past the
   * bucket's `maxFileSize`: 413 `PAYLOAD_TOO_LARGE`; a type outside `allowedTypes`: 400 naming `type`.
   */
  upload(file: FileBody, options?: UploadOptions<Omit<Insert, 'id'>>): Promise<FileRow<Row>> {
    return this.bucket().upload(file, options as UploadOptions<object>);
  }

  /** Replaces a file's bytes (under `update`; one request, never resumable) and returns the row; its old signed links stop. */
  replace(id: RecordId<Row>, file: FileBody, options?: ReplaceOptions<Omit<Update, 'id'>>): Promise<FileRow<Row>> {
    return this.bucket().replace(id, file, options as ReplaceOptions<object>);
  }

  /** A file's bytes (or an image variant, or a byte range) as a Blob, read with the caller's credentials. */
  download(id: RecordId<Row>, options?: DownloadOptions): Promise<Blob> {
    return this.bucket().download(id, options);
  }

  /** The response of a download itself: stream its body, read `ETag`, `Content-Type`, `Content-Range`. */
  downloadResponse(id: RecordId<Row>, options?: DownloadOptions): Promise<Response> {
    return this.bucket().downloadResponse(id, options);
  }

  /**
   * A link that works without credentials (an `<img src>`, a share): the plain `<url>/files/<table>/<id>` when the
   * bucket's read rule is `true` for anon, else a signed link (`expiresIn`, default 1 hour). Plain or signed is the
   * server's call: a download's `Cache-Control` is `public` exactly for such buckets, so the first `url()` of a
   * bucket sends one HEAD for the file, and the answer is kept a minute for every file of the bucket. `public: true`
   * skips the question (plain), `public: false` always signs. The caller must be able to read the file either way.
   */
  url(id: RecordId<Row>, options?: UrlOptions): Promise<string> {
    return this.bucket().url(id, options);
  }

  /**
   * A signed link to the file (or to one image variant), usable by anyone until `expiresIn` seconds have passed (at
   * most 7 days, `MAX_SIGNED_LINK_SECONDS`) or the file is replaced. The caller must be able to read the file.
   */
  sign(id: RecordId<Row>, expiresIn: number, transform?: TransformOptions): Promise<string> {
    return this.bucket().sign(id, expiresIn, transform);
  }

  private bucket(): Bucket<Row> {
    if (!this.files) throw new TypeError('Files are for client.from(bucket); the owner reads bytes through it too');
    return this.files;
  }

  private selectQuery(select: Selection<Row, R> | undefined): Record<string, QueryValue> | undefined {
    return select === undefined ? undefined : { select: selectText(select) };
  }

  private writeQuery(onConflict: string | undefined, select: Selection<Row, R> | undefined): Record<string, QueryValue | undefined> {
    return listParameters({ select }, { onConflict });
  }

  private aggregateParameters(aggregates: Aggregates<Row>, query: AggregateQuery<Row, Aggregates<Row>>): Record<string, QueryValue | undefined> {
    return listParameters({ ...query, select: aggregateSelect(aggregates) } as LooseListQuery);
  }

  private recordPath(id: string | number): string {
    return `${this.basePath}/${segment(id)}`;
  }
}

/** The owner's view of a table's records: every row, whatever the policy; the owner column is an ordinary column. */
export type AdminTableClient<Row = UntypedRow, Insert = Partial<Row>, Update = Partial<Row>, R = Relations> = TableClient<Row, Insert, Update, R>;
