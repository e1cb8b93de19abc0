import type pg from 'pg';
import { ID_COLUMN } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { invalidField, notFound, unauthorized } from '../errors.js';
import { randomId } from '../ids.js';
import { missingOnCreate, validateRecordBody, type WriteMode } from './body.js';
import type { ListQuery } from './query.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { deleteOne, exists, insertOne, selectOne, selectPage, StaleSchemaError, updateOne, upsertOne, type Row, type Scope } from './statements.js';
import { coerceValue, generateId } from './values.js';

/** What a request may touch, and who writes. */
export interface Access {
  /** The owner-scoped caller's rows only, or null for the whole table. */
  scope: Scope | null;
  mode: WriteMode;
  /** The signed-in user whose writes need an existing account (checked inside the write statement), or null. */
  writer: string | null;
}

/** The path id coerced to the id column's type; an id that cannot be one names no record (404). */
export function coerceId(table: TableSchema, raw: string): unknown {
  const coerced = coerceValue(table.columns.get(ID_COLUMN)!, raw);
  if (!coerced.ok) throw notFound(`No record ${raw} in ${table.name}`);
  return coerced.value;
}

function missingColumnError(table: TableSchema, missing: string[]) {
  const field = missing[0]!;
  return invalidField(field, `${field} is required to create a record in ${table.name}`);
}

const writerGone = () => unauthorized('The account of this token no longer exists');

/** The generated record operations, one statement each; failure paths may spend a second one to say why. */
export class RecordService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly cache: SchemaCache,
    /** AccountService.userExists: asked only when a write changed nothing, to say why. */
    private readonly userExists: (userId: string) => Promise<boolean>,
  ) {}

  /** A write that changed nothing may have been refused by the schema-version guard: then it is answered again. */
  private async unlessStale(table: TableSchema): Promise<void> {
    if (await this.cache.isStale(table.schemaVersion)) throw new StaleSchemaError();
  }

  private async writerExists(writer: string | null): Promise<boolean> {
    return writer === null || this.userExists(writer);
  }

  /** Nothing was written: the schema moved on, the writer's account is gone (401), or the row is not theirs (404). */
  private async nothingWritten(table: TableSchema, rawId: string, access: Access): Promise<never> {
    await this.unlessStale(table);
    if (!(await this.writerExists(access.writer))) throw writerGone();
    throw notFound(`No record ${rawId} in ${table.name}`);
  }

  list(table: TableSchema, query: ListQuery, access: Access): Promise<{ rows: Row[]; total: number }> {
    return selectPage(this.pool, table, query, access.scope);
  }

  async get(table: TableSchema, rawId: string, access: Access): Promise<Row> {
    const row = await selectOne(this.pool, table, coerceId(table, rawId), access.scope);
    if (!row) throw notFound(`No record ${rawId} in ${table.name}`);
    return row;
  }

  async create(table: TableSchema, body: Record<string, unknown>, access: Access): Promise<Row> {
    const values = validateRecordBody(table, body, access.mode);
    if (values[ID_COLUMN] === undefined || values[ID_COLUMN] === null) {
      const id = table.columns.get(ID_COLUMN)!;
      if (id.hasDefault) delete values[ID_COLUMN];
      else if (id.type === 'text') values[ID_COLUMN] = generateId(id, randomId);
      else throw invalidField(ID_COLUMN, `${ID_COLUMN} is required: the id column of ${table.name} has no default`);
    }
    const missing = missingOnCreate(table, values, access.mode);
    if (missing.length > 0) throw missingColumnError(table, missing);
    if (access.scope) values[access.scope.ownerColumn] = access.scope.userId;
    const row = await insertOne(this.pool, table, values, access.writer);
    if (!row) {
      await this.unlessStale(table);
      throw writerGone();
    }
    return row;
  }

  /**
   * PUT: creates the record at the path id or updates it (then only the columns sent). Under owner-scoped the owner
   * column is the caller's on create and never changes on update; a row of another user is 404 and stays untouched.
   */
  async upsert(table: TableSchema, rawId: string, body: Record<string, unknown>, access: Access): Promise<{ row: Row; created: boolean }> {
    const id = coerceId(table, rawId);
    const changes = validateRecordBody(table, body, access.mode);
    if (changes[ID_COLUMN] !== undefined && String(changes[ID_COLUMN]) !== String(id)) {
      throw invalidField(ID_COLUMN, `${ID_COLUMN} in the body must equal the id in the path`);
    }
    delete changes[ID_COLUMN];
    const insertValues: Row = { ...changes, [ID_COLUMN]: id };
    if (access.scope) {
      insertValues[access.scope.ownerColumn] = access.scope.userId;
      // The owner column never changes on update under a scope (it already is the caller).
      delete changes[access.scope.ownerColumn];
    }
    const missing = missingOnCreate(table, insertValues, access.mode);
    const idColumn = table.columns.get(ID_COLUMN)!;
    if (missing.length === 0 && idColumn.unique) {
      const result = await upsertOne(this.pool, table, insertValues, changes, access.scope, access.writer);
      return result ?? this.nothingWritten(table, rawId, access);
    }
    // A body that could not create the record (or a table whose id is not unique) can still update one.
    const updated = await updateOne(this.pool, table, id, changes, access.scope, access.writer);
    if (updated) return { row: updated, created: false };
    await this.unlessStale(table);
    if (!(await this.writerExists(access.writer))) throw writerGone();
    // Not updated: either the row is another user's (404) or there is none and the body must create it.
    if (await exists(this.pool, table, id)) throw notFound(`No record ${rawId} in ${table.name}`);
    if (missing.length > 0) throw missingColumnError(table, missing);
    const row = await insertOne(this.pool, table, insertValues, access.writer);
    if (!row) return this.nothingWritten(table, rawId, access);
    return { row, created: true };
  }

  async remove(table: TableSchema, rawId: string, access: Access): Promise<Row> {
    const row = await deleteOne(this.pool, table, coerceId(table, rawId), access.scope, access.writer);
    return row ?? this.nothingWritten(table, rawId, access);
  }
}
