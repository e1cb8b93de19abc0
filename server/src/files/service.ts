import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { ID_COLUMN, type Limits } from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import type { TableSchema } from '../db/schema.js';
import { answerFresh } from '../db/fresh.js';
import { quote } from '../db/identifiers.js';
import { invalidField, notFound } from '../errors.js';
import { randomId } from '../ids.js';
import { answerRecordCall, missingOnCreate, validateRecordBody, type RecordCall, type RecordDeps } from '../records/index.js';
import { ANON, type Caller } from '../policies/caller.js';
import { decideAccess, requireAccess } from '../policies/access.js';
import type { AbuseLimiter } from '../auth/limits.js';
import { checkName, DEFAULT_NAME } from './content/names.js';
import { receive, tooLarge, type Received } from './bytes/receive.js';
import type { ObjectRegistry } from './storage/objects.js';

/**
 * Files through the record pipeline (API.md, Files): an upload is a create of the bucket's row under its `create`
 * rule, a replacement an update under `update`, a download a read under `read`. The pipeline decides exactly as it
 * does for `/api` (the same statuses: 403 when the rule is false whatever the row, 404 per row), and reads the bytes
 * only where it would read a body: after the policy allowed the write. Bytes go to storage first; the row follows.
 */

/** A file row as the record API answers it. */
export interface FileRow {
  id: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
  updatedAt: string;
  [column: string]: unknown;
}

export interface UploadInput {
  body: Readable;
  /** Content-Type of a raw body (a hint for text), or the file part's. */
  hint: string | null;
  /** The declared length of a raw body, if any: past the limit, 413 before a byte is read. */
  declaredLength?: number;
  /** The multipart file name: the default `name`. */
  filename?: string;
  /** `name` and the bucket's metadata columns, as text (query parameters, or form fields once the body was read). */
  fields(): Promise<Record<string, string>>;
  /** The client's address: anon's uploads count against `uploadsPerUser` per address. */
  address: string;
  /** Counted against `uploadsPerUser` already (a resumable upload, at its creation). */
  counted?: boolean;
  /** The new row's id, chosen earlier (a resumable upload's); default a new random id. */
  recordId?: string;
}

export interface FileServiceOptions {
  knex: Knex;
  cache: SchemaCache;
  records: RecordDeps;
  registry: ObjectRegistry;
  limiter: AbuseLimiter;
  limits: Limits | false;
}

/** The bucket's metadata columns from text: what the record body of the create or update holds. */
function metadataOf(table: TableSchema, fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(fields)) {
    if (key === 'name') continue;
    // The file's id is the server's (a body may choose a record's id; an upload may not).
    if (key === ID_COLUMN) throw invalidField(key, `${key} is set by the server: a file's id is chosen when it is uploaded`);
    const column = table.columns.get(key);
    if (column?.type === 'json') {
      try {
        body[key] = JSON.parse(text);
      } catch {
        throw invalidField(key, `${key} must be JSON text`);
      }
    } else body[key] = text;
  }
  return body;
}

export class FileService {
  constructor(private readonly options: FileServiceOptions) {}

  get registry(): ObjectRegistry {
    return this.options.registry;
  }

  /** A bucket the API serves, from the current schema (404 otherwise, as for any unknown table). */
  bucket(name: string): Promise<TableSchema> {
    return answerFresh(this.options.cache, async () => {
      const table = this.options.cache.served(name);
      if (!table?.bucket) throw notFound(`No bucket ${name}`);
      return table;
    });
  }

  /** The row of a file as `GET /api/:table/:id` answers it to this caller (its statuses), or on the owner's surface. */
  async row(caller: Caller, table: string, id: string, surface: 'api' | 'admin' = 'api'): Promise<FileRow> {
    await this.bucket(table);
    return this.rowOf(caller, table, id, surface);
  }

  /** `row` of a table already known to be a bucket. */
  async rowOf(caller: Caller, table: string, id: string, surface: 'api' | 'admin' = 'api'): Promise<FileRow> {
    const answer = await answerRecordCall(this.options.records, { surface, caller, target: { action: 'get', table, id }, query: {}, queryBytes: 0, readBody: async () => ({}) });
    return answer.body.data as FileRow;
  }

  /** The row of a file whatever the caller (signed links, which carry their own proof), or null. */
  async anyRow(table: TableSchema, id: string): Promise<FileRow | null> {
    const result = await this.options.knex.raw<{ rows: FileRow[] }>(`SELECT * FROM ${quote(table.name)} WHERE ${quote(ID_COLUMN)}::text = ?`, [id]);
    const row = result.rows[0];
    return row ? { ...row, updatedAt: new Date(row.updatedAt).toISOString() } : null;
  }

  /** Whether anon may read every row: its bytes may be cached publicly. */
  publicBucket(table: TableSchema): boolean {
    const decision = decideAccess(table, ANON, 'read', 'api');
    return decision.allowed && decision.scope === null;
  }

  /** `POST /files/:table`: 201 and the record, under `create`. */
  async upload(caller: Caller, name: string, input: UploadInput): Promise<{ status: number; body: unknown }> {
    const table = await this.bucket(name);
    const id = input.recordId ?? randomId();
    let received: Received | undefined;
    let values: Record<string, unknown> = {};
    const call: RecordCall = {
      surface: 'api',
      caller,
      target: { action: 'create', table: name },
      query: {},
      queryBytes: 0,
      readBody: async () => {
        received = await this.receive(caller, table, id, input);
        const fields = await input.fields();
        values = { [ID_COLUMN]: id, name: checkName(fields.name ?? input.filename ?? DEFAULT_NAME), type: received.type, size: received.size, sha256: received.sha256, user_id: caller.kind === 'user' ? caller.id : null };
        return metadataOf(table, fields);
      },
      file: () => values,
    };
    try {
      return await answerRecordCall(this.options.records, call);
    } catch (error) {
      // A refused create leaves nothing behind (the sweep would, within the hour).
      if (received) await this.options.registry.remove([received.key]);
      throw error;
    }
  }

  /** `PUT /files/:table/:id`: the content replaced under `update` (a missing row 404); the old bytes go after the commit. */
  async replace(caller: Caller, name: string, id: string, input: UploadInput): Promise<{ status: number; body: unknown }> {
    const table = await this.bucket(name);
    let received: Received | undefined;
    let previous: string | undefined;
    let values: Record<string, unknown> = {};
    const call: RecordCall = {
      surface: 'api',
      caller,
      target: { action: 'update', table: name, id },
      query: {},
      queryBytes: 0,
      readBody: async () => {
        const current = await this.anyRow(table, id);
        if (!current) throw notFound(`No record ${id} in ${name}`);
        previous = current.sha256;
        received = await this.receive(caller, table, id, input);
        const fields = await input.fields();
        const fileName = fields.name ?? input.filename;
        values = { type: received.type, size: received.size, sha256: received.sha256, ...(fileName !== undefined ? { name: checkName(fileName) } : {}) };
        return metadataOf(table, fields);
      },
      file: () => values,
    };
    let answer;
    try {
      answer = await answerRecordCall(this.options.records, call);
    } catch (error) {
      if (received && received.sha256 !== previous) await this.options.registry.remove([received.key]);
      throw error;
    }
    if (previous && received && previous !== received.sha256) await this.options.registry.removeContent(name, id, previous);
    return answer;
  }

  /**
   * A resumable upload's creation (tus, API.md Part 2 in detail): the caller may create in the bucket (403 when the
   * rule is false whatever the row), the name and metadata are valid (400 naming them), the declared length fits
   * (413), and it counts against `uploadsPerUser`. The row's own check comes again at completion (`upload`).
   */
  async admit(caller: Caller, name: string, fields: Record<string, string>, length: number | null, address: string): Promise<TableSchema> {
    const table = await this.bucket(name);
    requireAccess(table, caller, table.effectivePolicy === 'rules' ? 'create' : 'write', 'api');
    if (fields.name !== undefined) checkName(fields.name);
    const values = validateRecordBody(table, metadataOf(table, fields), 'api');
    const [missing] = missingOnCreate(table, values, 'api');
    if (missing !== undefined) throw invalidField(missing, `${missing} is required to create a record in ${name}: give it in Upload-Metadata`);
    const { maxBytes, limitReason } = await this.allowance(caller, table, address);
    if (length !== null && length > maxBytes) throw tooLarge(limitReason);
    return table;
  }

  /** After a bucket's row was deleted (any surface): its bytes and variants go. */
  async deleted(table: string, id: string): Promise<void> {
    const schema = this.options.cache.served(table);
    if (!schema?.bucket) return;
    await this.options.registry.removeRecord(table, id, async () => (await this.anyRow(schema, id)) !== null);
  }

  /** The bytes one caller's files hold, over every bucket. */
  private async usage(userId: string): Promise<number> {
    const buckets = this.options.cache.servedTables().filter((table) => table.bucket);
    if (buckets.length === 0) return 0;
    const sums = buckets.map((table) => `SELECT coalesce(sum(size), 0) AS bytes FROM ${quote(table.name)} WHERE user_id = ?`).join(' UNION ALL ');
    const result = await this.options.knex.raw<{ rows: Array<{ total: string | number }> }>(`SELECT coalesce(sum(bytes), 0)::float8 AS total FROM (${sums}) s`, buckets.map(() => userId));
    return Number(result.rows[0]?.total ?? 0);
  }

  /** The limits, then the bytes to storage. */
  private async receive(caller: Caller, table: TableSchema, id: string, input: UploadInput): Promise<Received> {
    const { maxBytes, limitReason } = input.counted ? await this.bytesAllowed(caller, table) : await this.allowance(caller, table, input.address);
    if (input.declaredLength !== undefined && input.declaredLength > maxBytes) throw tooLarge(limitReason);
    return receive(this.options.registry, input.body, { table: table.name, recordId: id, maxBytes, limitReason, hint: input.hint, allowedTypes: table.bucket!.allowedTypes });
  }

  /** One more upload for `uploadsPerUser` (429 past it), and the bytes it may bring. */
  private async allowance(caller: Caller, table: TableSchema, address: string): Promise<{ maxBytes: number; limitReason: string }> {
    if (this.options.limits !== false) await this.options.limiter.consume({ name: 'uploadsPerUser', subject: caller.kind === 'user' ? caller.id : `anon ${address}` });
    return this.bytesAllowed(caller, table);
  }

  /** The bucket's maxFileSize, or less: what is left of the account's `storageBytesPerUser`. */
  private async bytesAllowed(caller: Caller, table: TableSchema): Promise<{ maxBytes: number; limitReason: string }> {
    const { limits } = this.options;
    const bucket = table.bucket!;
    let maxBytes = bucket.maxFileSize;
    let limitReason = `${table.name} takes files of at most ${bucket.maxFileSize} bytes`;
    if (limits !== false && caller.kind === 'user') {
      const left = limits.storageBytesPerUser.max - (await this.usage(caller.id));
      if (left < maxBytes) {
        maxBytes = Math.max(0, left);
        limitReason = `The account's files may hold at most ${limits.storageBytesPerUser.max} bytes (limits.storageBytesPerUser); ${Math.max(0, left)} are left`;
      }
    }
    return { maxBytes, limitReason };
  }
}

