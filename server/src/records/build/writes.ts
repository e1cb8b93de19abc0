import type { ColumnSchema, TableSchema } from '../../db/schema.js';
import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../../db/identifiers.js';
import type { Scope } from '../../policies/access.js';
import { SqlParameters } from '../query/build.js';
import { byId, cached, COMMITTED_VERSION, INSERTED, writerExists, type Built } from './shared.js';

/**
 * The statements of writes. Each is guarded in the same statement: it only happens while the schema version is the
 * one it was planned with, and while the writer's account exists.
 */

/** `scope`: the rows the delete may reach (under `rules`: the read rule and the delete rule, both). */
export function deleteStatement(table: TableSchema, id: unknown, scope: Scope | null | ReadonlyArray<Scope | null>, writer: string | null): Built {
  const condition = byId(table, scope, writer, 1, table.schemaVersion);
  const statement = cached(table, `delete|${condition.key}`, () => `DELETE FROM ${quote(table.name)} WHERE ${condition.sql} RETURNING *`);
  return { statement, values: [id, ...condition.values] };
}

/** Columns of `values`, in table order (so one body shape is one statement whatever its key order). */
export function presentColumns(table: TableSchema, values: Record<string, unknown>): ColumnSchema[] {
  return table.columnList.filter((column) => values[column.name] !== undefined);
}

/**
 * What an insert of one record writes: the column names (quoted), the value of each (`$n::type`, `now()` for the
 * timestamps the body leaves out) and the guards (schema version, writer's account), with their parameters after the
 * columns' values.
 */
export function insertParts(table: TableSchema, columns: ColumnSchema[], writer: string | null): { names: string[]; selected: string[]; guards: string[] } {
  const names = columns.map((column) => quote(column.name));
  const selected = columns.map((column, index) => `$${index + 1}::${column.sqlType}`);
  if (table.hasCreatedAt && !columns.some((column) => column.name === 'createdAt')) {
    names.push(quote('createdAt'));
    selected.push('now()');
  }
  if (table.hasUpdatedAt && !columns.some((column) => column.name === 'updatedAt')) {
    names.push(quote('updatedAt'));
    selected.push('now()');
  }
  const guards = [`${COMMITTED_VERSION} = $${columns.length + 1}`];
  if (writer !== null) guards.push(writerExists(columns.length + 2));
  return { names, selected, guards };
}

/** `INSERT ... SELECT $1::type, ...`: a SELECT, so a WHERE can refuse the write, with casts since SELECT has no target types. */
function insertSelect(table: TableSchema, columns: ColumnSchema[], writer: string | null): { text: string; parameters: number } {
  const { names, selected, guards } = insertParts(table, columns, writer);
  // A record of defaults only (no column named) selects no column: Postgres fills every column with its default, as
  // DEFAULT VALUES would, and the guards still apply (DEFAULT VALUES takes no WHERE).
  const target = names.length ? ` (${names.join(', ')})` : '';
  const text = `INSERT INTO ${quote(table.name)}${target} SELECT ${selected.join(', ')} WHERE ${guards.join(' AND ')}`;
  return { text, parameters: columns.length + guards.length };
}

/** The parameters after the columns' values that `insertSelect` guards with. */
export function insertGuardValues(table: TableSchema, writer: string | null): unknown[] {
  return writer !== null ? [table.schemaVersion, writer] : [table.schemaVersion];
}

export function insertStatement(table: TableSchema, values: Record<string, unknown>, writer: string | null): Built {
  const columns = presentColumns(table, values);
  const insert = insertSelect(table, columns, writer);
  const statement = cached(table, `insert|${columns.map((column) => column.name).join(',')}|${writer !== null}`, () => `${insert.text} RETURNING *`);
  return { statement, values: [...columns.map((column) => values[column.name]), ...insertGuardValues(table, writer)] };
}

/**
 * Many records in one statement: each column's values are one `text[]` parameter cast to the column's type, so the
 * shape depends on which columns are present, never on how many records there are. A column some records leave out
 * takes its default for them (`CASE` on a second array saying which records have it). Rows come back in the order
 * sent: the insert reads the arrays in order (`ORDER BY` their ordinality) and RETURNING follows the insert's order.
 */
export function insertManyStatement(table: TableSchema, rows: Array<Record<string, unknown>>, writer: string | null): Built {
  const insert = insertManyParts(table, rows, writer);
  const statement = cached(table, `insert-many|${insert.shape}`, () => `${insert.text()} RETURNING *`);
  return { statement, values: insert.parameters.values };
}

/** A bulk insert's parts: its text (without RETURNING), its shape, the array parameter of each column and the guards. */
export interface InsertMany {
  parameters: SqlParameters;
  text(): string;
  shape: string;
  /** The `text[]` parameter holding each column's values, by column name. */
  arrays: Map<string, string>;
  /** The schema and account guards (true when the write may happen). */
  guards: string;
}

export function insertManyParts(table: TableSchema, rows: Array<Record<string, unknown>>, writer: string | null): InsertMany {
  const parameters = new SqlParameters();
  const columns = table.columnList.filter((column) => rows.some((row) => row[column.name] !== undefined));
  const names = columns.map((column) => quote(column.name));
  const arrays: string[] = [];
  const byColumn = new Map<string, string>();
  const aliases: string[] = [];
  const selected: string[] = [];
  const shape: string[] = [];
  columns.forEach((column, index) => {
    const array = parameters.bind(rows.map((row) => textOf(row[column.name])), 'text[]');
    arrays.push(array);
    byColumn.set(column.name, array);
    aliases.push(`c${index}`);
    const value = `u.c${index}::${column.sqlType}`;
    if (rows.every((row) => row[column.name] !== undefined)) {
      selected.push(value);
      shape.push(column.name);
      return;
    }
    arrays.push(parameters.bind(rows.map((row) => row[column.name] !== undefined), 'boolean[]'));
    aliases.push(`p${index}`);
    // The default as the catalog prints it (pg_get_expr): what Postgres itself would run for a missing column.
    selected.push(`CASE WHEN u.p${index} THEN ${value} ELSE ${column.defaultExpression ?? 'NULL'} END`);
    shape.push(`${column.name}?`);
  });
  for (const [present, name] of [
    [table.hasCreatedAt, 'createdAt'],
    [table.hasUpdatedAt, 'updatedAt'],
  ] as const) {
    if (present && !columns.some((column) => column.name === name)) {
      names.push(quote(name));
      selected.push('now()');
    }
  }
  const guards = [`${COMMITTED_VERSION} = ${parameters.bind(table.schemaVersion)}`];
  if (writer !== null) {
    guards.push(writerExists(parameters.next));
    parameters.bind(writer);
  }
  // Records that all leave every column to its default (a psql table with a serial id): one row per record, no arrays.
  const count = arrays.length ? null : parameters.bind(rows.length, 'integer');
  const text = () => {
    const source = count === null ? `unnest(${arrays.join(', ')}) WITH ORDINALITY AS u(${[...aliases, 'n'].join(', ')})` : `generate_series(1, ${count}) AS u(n)`;
    // No column named: Postgres fills every column of the table with its default.
    const target = names.length ? ` (${names.join(', ')})` : '';
    return `INSERT INTO ${quote(table.name)}${target} SELECT ${selected.join(', ')} FROM ${source} WHERE ${guards.join(' AND ')} ORDER BY u.n`;
  };
  return { parameters, text, shape: `${shape.join(',')}|${writer !== null}`, arrays: byColumn, guards: guards.join(' AND ') };
}

/** A coerced value as the text Postgres reads back into the column's type. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** The SET list of an update: the columns sent (never the id), and `updatedAt` when the table has it. */
export function setList(table: TableSchema, columns: ColumnSchema[], value: (column: ColumnSchema, index: number) => string): string {
  const set = columns.filter((column) => column.name !== ID_COLUMN).map((column, index) => `${quote(column.name)} = ${value(column, index)}`);
  if (table.hasUpdatedAt) set.push(`${quote('updatedAt')} = now()`);
  // An update that changes nothing still has to touch the row to return it.
  if (set.length === 0) set.push(`${quote(ID_COLUMN)} = ${quote(table.name)}.${quote(ID_COLUMN)}`);
  return set.join(', ');
}

export function updateStatement(
  table: TableSchema,
  id: unknown,
  changes: Record<string, unknown>,
  /** The rows the update may reach (under `rules`: the read rule and the update rule, both). */
  scope: Scope | null | ReadonlyArray<Scope | null>,
  writer: string | null,
): Built {
  const columns = presentColumns(table, changes).filter((column) => column.name !== ID_COLUMN);
  const condition = byId(table, scope, writer, columns.length + 1, table.schemaVersion);
  const statement = cached(table, `update|${columns.map((column) => column.name).join(',')}|${condition.key}`, () => {
    const set = setList(table, columns, (_column, index) => `$${index + 1}`);
    return `UPDATE ${quote(table.name)} SET ${set} WHERE ${condition.sql} RETURNING *`;
  });
  return { statement, values: [...columns.map((column) => changes[column.name]), id, ...condition.values] };
}

/**
 * Create-or-update in one statement. Under a scope the update only happens when the existing row is the caller's; a
 * row of another user (or a writer whose account is gone) makes the statement return nothing.
 */
export function upsertStatement(
  table: TableSchema,
  insertValues: Record<string, unknown>,
  changes: Record<string, unknown>,
  scope: Scope | null,
  writer: string | null,
): Built {
  const columns = presentColumns(table, insertValues);
  const changed = presentColumns(table, changes).filter((column) => column.name !== ID_COLUMN);
  const insert = insertSelect(table, columns, writer);
  // Under `rules` a PUT updates then creates (update-or-create): only presets' owner scope comes here.
  const owner = scope?.kind === 'owner' ? scope : null;
  const key = `upsert|${columns.map((column) => column.name).join(',')}|${changed.map((column) => column.name).join(',')}|${owner?.ownerColumn ?? ''}|${writer !== null}`;
  const statement = cached(table, key, () => {
    const set = setList(table, changed, (column) => `EXCLUDED.${quote(column.name)}`);
    const guard = owner ? ` WHERE ${quote(table.name)}.${quote(owner.ownerColumn)} = $${insert.parameters + 1}` : '';
    return `${insert.text} ON CONFLICT (${quote(ID_COLUMN)}) DO UPDATE SET ${set}${guard} RETURNING *, (xmax = 0) AS ${quote(INSERTED)}`;
  });
  const values = [...columns.map((column) => insertValues[column.name]), ...insertGuardValues(table, writer)];
  if (owner) values.push(owner.userId);
  return { statement, values };
}
