import type { Knex } from 'knex';
import {
  CREATED_AT_COLUMN,
  FILE_COLUMNS,
  ID_COLUMN,
  MANAGED_COLUMNS,
  ownerColumnOf,
  UPDATED_AT_COLUMN,
  type BucketInfo,
  type OnDelete,
  type Policy,
  type Rules,
  type TableInfo,
} from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import { defaultPolicyFor, type TableSchema } from '../db/schema.js';
import { administeredTable } from '../records/index.js';
import { notifySchemaChange } from '../db/notifications.js';
import { conflict, invalidField, notFound, referenceConflict, ruleConflict } from '../errors.js';
import type { ColumnPlan, PolicyChange } from './definitions.js';
import { ruleReading, validateRules } from '../policies/rules.js';
import { provisionalSchema } from './provisional.js';
import { describeTables } from './describe.js';
import { dropCountTriggers, forgetCounts, retrack, startTracking } from '../tracking/triggers.js';
import { createIndex, dropIndex, parseCreateIndex, safeName } from './indexes.js';
import { ownerIndexName } from './ownerIndexes.js';

/**
 * Every name the DDL generates is given explicitly: Knex's default names (`<table>_<column>_unique`, ...) are cut to
 * 63 bytes by Postgres, so for long names they could collide with each other or with the table itself.
 */
const ON_DELETE_SQL: Record<OnDelete, string> = { cascade: 'CASCADE', 'set-null': 'SET NULL', restrict: 'RESTRICT' };

function addColumn(knex: Knex, tableName: string, table: Knex.CreateTableBuilder | Knex.AlterTableBuilder, column: ColumnPlan, referencedIdType?: string): void {
  let builder: Knex.ColumnBuilder;
  // A reference holds the referenced table's id: its exact type (text, integer, bigint, uuid...).
  if (column.references && referencedIdType) builder = table.specificType(column.name, referencedIdType);
  else switch (column.type) {
    case 'text':
      builder = table.text(column.name);
      break;
    case 'integer':
      builder = column.bigint ? table.bigInteger(column.name) : table.integer(column.name);
      break;
    case 'real':
      builder = table.double(column.name);
      break;
    case 'boolean':
      builder = table.boolean(column.name);
      break;
    case 'timestamp':
      builder = table.timestamp(column.name, { useTz: true });
      break;
    case 'json':
      builder = table.jsonb(column.name);
      break;
  }
  builder = column.nullable ? builder.nullable() : builder.notNullable();
  if (column.unique) builder = builder.unique({ indexName: safeName(tableName, column.name, 'unique') });
  if (column.default !== undefined) {
    // DDL takes no bind parameters: the value was coerced to the column's type and Knex quotes it as a literal.
    const literal = column.default instanceof Date ? column.default.toISOString() : column.default;
    builder = builder.defaultTo(knex.raw('?', [literal as Knex.Value]));
  }
  if (column.isOwnerColumn) builder.references(ID_COLUMN).inTable('users').onDelete('CASCADE').withKeyName(safeName(tableName, column.name, 'foreign'));
  if (column.references) {
    builder.references(ID_COLUMN).inTable(column.references.table).onDelete(ON_DELETE_SQL[column.references.onDelete]).withKeyName(safeName(tableName, column.name, 'fkey'));
    // Cascades and to-many embeds look rows up by the referencing column.
    table.index([column.name], safeName(tableName, column.name, 'index'));
  }
}

/** The read-only settings of new columns (a row only for a column that has one). */
async function markReadOnly(trx: Knex.Transaction, table: string, columns: ReadonlyArray<{ name: string; readOnly: boolean }>): Promise<void> {
  const rows = columns.filter((column) => column.readOnly).map((column) => ({ table_name: table, column_name: column.name, read_only: true }));
  if (rows.length > 0) await trx('_basalt_columns').insert(rows).onConflict(['table_name', 'column_name']).merge(['read_only']);
}

function isFileColumn(table: TableSchema, column: string): boolean {
  return table.bucket !== null && (FILE_COLUMNS as readonly string[]).includes(column);
}

function isDuplicateTable(error: unknown): boolean {
  return (error as { code?: string }).code === '42P07';
}

/** Tables, columns and policies, changed through /admin. Every change tells every process to reload its schema. */
export class TableAdmin {
  constructor(
    private readonly knex: Knex,
    private readonly cache: SchemaCache,
    /** Why a table's changes cannot be captured for realtime (tracking/place.ts), shown in its description. */
    private readonly captureProblem: (table: string) => string | undefined = () => undefined,
    /** The first webhook filter that reads a table or column (`webhooks.<id>.filter`), which a drop would break. */
    private readonly filterReading: (table: string, column?: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** A table the owner may administer: reserved names are 400, unknown ones 404. */
  find(name: string): TableSchema {
    return administeredTable(this.cache, name);
  }

  list(): Promise<TableInfo[]> {
    return describeTables(this.knex, this.cache.servedTables(), this.captureProblem);
  }

  async describe(name: string): Promise<TableInfo> {
    const [info] = await describeTables(this.knex, [this.find(name)], this.captureProblem);
    return info!;
  }

  /** Builds an index concurrently (no transaction: reads and writes go on), then answers with the table. */
  async createIndex(name: string, body: unknown): Promise<TableInfo> {
    const table = this.find(name);
    await createIndex(this.knex, table, parseCreateIndex(table, body));
    // The DDL trigger told every process; this one answers from the new schema at once.
    await this.cache.reload();
    return this.describe(name);
  }

  async dropIndex(name: string, index: string): Promise<TableInfo> {
    await dropIndex(this.knex, this.find(name), index);
    await this.cache.reload();
    return this.describe(name);
  }

  /** Runs a change in one transaction with the notification, then reloads this process's cache before answering. */
  private async change(run: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await run(trx);
      await notifySchemaChange(trx);
    });
    await this.cache.reload();
  }

  /**
   * The id type a reference column takes: the referenced served table's (a table referencing itself while it is
   * created has a text id). Its declared `type` must be that id's type.
   */
  private referencedIdType(tableName: string, column: ColumnPlan, field: string): string | undefined {
    if (!column.references) return undefined;
    const at = (key: string) => (field ? `${field}.${key}` : key);
    if (column.references.table === tableName && !this.cache.served(tableName)) {
      if (column.type !== 'text') throw invalidField(at('type'), `${column.name} references ${tableName}, whose id is text`);
      return 'text';
    }
    const target = this.cache.served(column.references.table);
    if (!target) throw invalidField(at('references.table'), `${column.references.table} is not a table the API serves`);
    const id = target.columns.get(ID_COLUMN)!;
    if (id.type !== column.type) throw invalidField(at('type'), `${column.name} references ${target.name}, whose id is ${id.type}: the column's type must be ${id.type}`);
    return id.sqlType;
  }

  /** The served columns that reference `name` from another table, as `<table>.<column>`. */
  private referencesTo(name: string): string[] {
    return this.cache
      .servedTables()
      .filter((table) => table.name !== name)
      .flatMap((table) => table.columnList.filter((column) => column.references?.table === name).map((column) => `${table.name}.${column.name}`));
  }

  async create(name: string, columns: ColumnPlan[], policy: Policy | undefined, rules?: unknown, bucket: BucketInfo | null = null): Promise<TableInfo> {
    const taken = () => conflict('tables.name', `A table named ${name} already exists`);
    if (this.cache.any(name)) throw taken();
    const idTypes = columns.map((column, index) => this.referencedIdType(name, column, `columns.${index}`));
    const ownerColumn = columns.find((column) => column.isOwnerColumn && column.name === 'user_id') ?? columns.find((column) => column.isOwnerColumn);
    // Rules name the new table's columns (and others'): checked against the table as it will be, before it is made.
    const checkedRules = policy === 'rules' ? validateRules(rules, name, provisionalSchema(this.cache.servedTables(), name, columns)) : null;
    try {
      await this.change(async (trx) => {
        await trx.schema.createTable(name, (table) => {
          table.text(ID_COLUMN).primary({ constraintName: safeName(name, 'pkey') });
          columns.forEach((column, index) => addColumn(trx, name, table, column, idTypes[index]));
          table.timestamp(CREATED_AT_COLUMN, { useTz: true }).notNullable().defaultTo(trx.fn.now());
          table.timestamp(UPDATED_AT_COLUMN, { useTz: true }).notNullable().defaultTo(trx.fn.now());
          // Owner-scoped reads filter on the owner column on every request, in id order by default (admin/ownerIndexes.ts).
          for (const column of columns) if (column.isOwnerColumn) table.index([column.name, ID_COLUMN], ownerIndexName(name, column.name));
        });
        const owner = ownerColumnOf(ownerColumn ? [ownerColumn.name] : []);
        await this.storePolicy(trx, name, policy ?? defaultPolicyFor(owner), checkedRules);
        // Captured for realtime and counted from its first row: an empty table's count is complete at once (tables
        // made with psql get the triggers when the cache sees them, tracking/place.ts).
        await startTracking(trx, name, owner);
        await markReadOnly(trx, name, columns);
        if (bucket) await trx('_basalt_buckets').insert({ table_name: name, max_file_size: bucket.maxFileSize, allowed_types: bucket.allowedTypes });
      });
    } catch (error) {
      if (isDuplicateTable(error)) throw taken();
      throw error;
    }
    return this.describe(name);
  }

  private async storePolicy(trx: Knex.Transaction, name: string, policy: Policy, rules: Rules | null = null): Promise<void> {
    await trx('_policies')
      .insert({ table_name: name, policy, rules: rules === null ? null : JSON.stringify(rules), updated_at: trx.fn.now() })
      .onConflict('table_name')
      .merge(['policy', 'rules', 'updated_at']);
  }

  /** A preset (its rules discarded), or `rules` checked against the schema as it is now (400 naming `rules.<member>`). */
  async setPolicy(name: string, change: PolicyChange): Promise<TableInfo> {
    const table = this.find(name);
    const policy = change.policy ?? table.policy;
    if (change.policy === undefined && table.policy !== 'rules') throw invalidField('rules', `rules go with policy "rules"; ${name} is ${table.policy}`);
    const rules = policy === 'rules' ? validateRules(change.rules, name, this.cache.expressions()) : null;
    await this.change((trx) => this.storePolicy(trx, name, policy, rules));
    return this.describe(name);
  }

  async drop(name: string): Promise<TableInfo> {
    const info = await this.describe(name);
    const rule = ruleReading(this.cache.servedTables(), name) ?? (await this.filterReading(name));
    if (rule) throw ruleConflict(rule, `${name} is read by ${rule}: change that first`);
    const referencing = this.referencesTo(name);
    if (referencing.length > 0) {
      throw referenceConflict(referencing[0]!, `${name} is still referenced by ${referencing.join(', ')}: drop or change those columns first`);
    }
    await this.change(async (trx) => {
      await trx.schema.dropTable(name);
      await trx('_policies').where({ table_name: name }).delete();
      await trx('_basalt_columns').where({ table_name: name }).delete();
      // A bucket's objects go with the sweep: their rows are gone (files/sweep.ts).
      await trx('_basalt_buckets').where({ table_name: name }).delete();
      await forgetCounts(trx, name);
    });
    return info;
  }

  async addColumn(name: string, column: ColumnPlan): Promise<TableInfo> {
    const table = this.find(name);
    if (table.columns.has(column.name)) throw conflict(`${name}.${column.name}`, `${name} already has a column named ${column.name}`);
    const idType = this.referencedIdType(name, column, '');
    await this.change(async (trx) => {
      // A table whose policy was never stored keeps the policy it has now, even when the new column is an owner column.
      // (A `rules` table's row is always stored, with its rules: an insert of the policy alone would fail the rules
      // check before ON CONFLICT is reached.)
      if (table.policy !== 'rules') await trx('_policies').insert({ table_name: name, policy: table.policy }).onConflict('table_name').ignore();
      await trx.schema.alterTable(name, (builder) => {
        addColumn(trx, name, builder, column, idType);
        if (column.isOwnerColumn) builder.index([column.name, ID_COLUMN], ownerIndexName(name, column.name));
      });
      await markReadOnly(trx, name, [column]);
    });
    return this.describe(name);
  }

  /** A column's settings (`readOnly`): no DDL, only the setting and the schema change every process obeys. */
  async setColumnReadOnly(name: string, columnName: string, readOnly: boolean): Promise<TableInfo> {
    const table = this.find(name);
    if (!table.columns.has(columnName)) throw notFound(`No column ${columnName} in ${name}`);
    if (!readOnly && isFileColumn(table, columnName)) throw invalidField('readOnly', `${columnName} is a file column of the bucket ${name}: only uploads set it`);
    await this.change(async (trx) => {
      if (readOnly) await markReadOnly(trx, name, [{ name: columnName, readOnly }]);
      else await trx('_basalt_columns').where({ table_name: name, column_name: columnName }).delete();
    });
    return this.describe(name);
  }

  async dropColumn(name: string, columnName: string): Promise<TableInfo> {
    const table = this.find(name);
    if ((MANAGED_COLUMNS as readonly string[]).includes(columnName)) {
      throw invalidField('column', `${columnName} is managed by the server and cannot be dropped`);
    }
    if (!table.columns.has(columnName)) throw notFound(`No column ${columnName} in ${name}`);
    if (isFileColumn(table, columnName)) throw invalidField('column', `${columnName} is a file column of the bucket ${name} and cannot be dropped`);
    const rule = ruleReading(this.cache.servedTables(), name, columnName) ?? (await this.filterReading(name, columnName));
    if (rule) throw ruleConflict(rule, `${name}.${columnName} is read by ${rule}: change that first`);
    await this.change(async (trx) => {
      // The owner-move trigger depends on the owner column: it goes first, and the triggers come back for the owner
      // column the table has without it (capture goes on; counting restarts for the table as it will be).
      const owner = columnName === table.ownerColumn;
      if (owner) for (const statement of dropCountTriggers(name)) await trx.raw(statement);
      await trx.schema.alterTable(name, (builder) => builder.dropColumn(columnName));
      await trx('_basalt_columns').where({ table_name: name, column_name: columnName }).delete();
      if (owner) await retrack(trx, name, ownerColumnOf([...table.columns.keys()].filter((column) => column !== columnName)));
    });
    return this.describe(name);
  }
}

