import type { Knex } from 'knex';
import { ID_COLUMN } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { invalidField, notFound } from '../http/errors.js';
import { randomId } from '../auth/tokens.js';
import { missingOnCreate, validateRecordBody, type WriteMode } from './body.js';
import type { ListQuery } from './query.js';
import { deleteOne, exists, insertOne, selectOne, selectPage, updateOne, upsertOne, type Row, type Scope } from './statements.js';
import { coerceValue, generateId } from './values.js';

/** What a request may touch: the scope of an owner-scoped caller, or null for the whole table. */
export interface Access {
  scope: Scope | null;
  mode: WriteMode;
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

/** The generated record operations, one statement each where the contract allows it. */
export class RecordService {
  constructor(private readonly knex: Knex) {}

  list(table: TableSchema, query: ListQuery, access: Access): Promise<{ rows: Row[]; total: number }> {
    return selectPage(this.knex, table, query, access.scope);
  }

  async get(table: TableSchema, rawId: string, access: Access): Promise<Row> {
    const row = await selectOne(this.knex, table, coerceId(table, rawId), access.scope);
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
    return insertOne(this.knex, table, values);
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
    if (access.scope) insertValues[access.scope.ownerColumn] = access.scope.userId;
    const missing = missingOnCreate(table, insertValues, access.mode);
    const idColumn = table.columns.get(ID_COLUMN)!;
    if (missing.length === 0 && idColumn.unique) {
      const result = await upsertOne(this.knex, table, insertValues, changes, access.scope);
      if (!result) throw notFound(`No record ${rawId} in ${table.name}`);
      return result;
    }
    // A body that could not create the record (or a table whose id is not unique) can still update one.
    const updated = await updateOne(this.knex, table, id, changes, access.scope);
    if (updated) return { row: updated, created: false };
    // Not updated: either the row is another user's (404) or there is none and the body must create it.
    if (await exists(this.knex, table, id)) throw notFound(`No record ${rawId} in ${table.name}`);
    if (missing.length > 0) throw missingColumnError(table, missing);
    return { row: await insertOne(this.knex, table, insertValues), created: true };
  }

  async remove(table: TableSchema, rawId: string, access: Access): Promise<Row> {
    const row = await deleteOne(this.knex, table, coerceId(table, rawId), access.scope);
    if (!row) throw notFound(`No record ${rawId} in ${table.name}`);
    return row;
  }
}
