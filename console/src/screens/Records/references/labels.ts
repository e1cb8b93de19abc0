import type { ColumnInfo, ColumnType, OnDelete, TableInfo } from '@basalt/contract';

/** Pure rules of how the console shows references: which column names a row, and who points at a table. */

const LABEL_NAMES = ['name', 'title', 'label', 'email'];

/**
 * The column that names a row of `table` for people: `name`, `title`, `label` or `email` when it has one (in that
 * order), else its first text column other than the id and the owner column; the id when it has none.
 */
export function labelColumnOf(table: Pick<TableInfo, 'columns' | 'ownerColumn'>): string {
  const text = table.columns.filter((column) => column.type === 'text' && !column.primaryKey && column.name !== table.ownerColumn && !column.references);
  return LABEL_NAMES.find((name) => text.some((column) => column.name === name)) ?? text[0]?.name ?? 'id';
}

/** The reference columns of every table that point at `name`, sorted. */
export function referencesTo(tables: readonly TableInfo[], name: string): Array<{ table: string; column: string; onDelete: OnDelete }> {
  return tables
    .flatMap((table) => table.columns.filter((column) => column.references?.table === name).map((column) => ({ table: table.name, column: column.name, onDelete: column.references!.onDelete })))
    .sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));
}

/** The distinct, non-null values of a reference column on a page of rows (what one lookup asks for). */
export function referencedIds(rows: readonly Record<string, unknown>[], column: ColumnInfo): Array<string | number> {
  const ids = new Set<string | number>();
  for (const row of rows) {
    const value = row[column.name];
    if (typeof value === 'string' || typeof value === 'number') ids.add(value);
  }
  return [...ids];
}

/** What a reference cell shows: the referenced row's label, or the raw id when the row is not (or no longer) there. */
export function referenceLabel(labels: ReadonlyMap<string, string> | undefined, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return labels?.get(String(value));
}

/**
 * Whether typed text could be an id of the referenced table: anything for a text id, digits for an integer one (a
 * table made with psql). Asking the server for `id = 'tur'` on an integer id would only be a 400.
 */
export function couldBeId(text: string, idType: ColumnType): boolean {
  if (text === '') return false;
  return idType === 'integer' ? /^-?\d{1,15}$/.test(text) : idType === 'text';
}

/** The picker's options: the row whose id is the term first (when there is one), then the label matches, each once. */
export function pickerOptions<R extends { id?: unknown }>(idMatch: R | undefined, matches: readonly R[], limit: number): R[] {
  const options = idMatch ? [idMatch, ...matches.filter((row) => String(row.id) !== String(idMatch.id))] : [...matches];
  return options.slice(0, limit);
}
