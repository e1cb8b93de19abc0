import {
  EPOCH_MILLIS_TEXT,
  MANAGED_COLUMNS,
  TABLE_NAME_PATTERN,
  coerceColumnValue,
  columnNameProblem,
  columnTypeProblem,
  defaultPolicyFor,
  isOwnerColumnName,
  ownerColumnOf,
  tableNameProblem,
  type ColumnDefinition,
  type ColumnType,
  type CreateTableInput,
  type OnDelete,
  type Policy,
} from '@basalt/contract';
import type { FieldErrors } from '../../errors';
import { bucketColumnProblem, checkBucket, type BucketDraft } from './bucketRules';

/**
 * The rules for table and column definitions, checked in the form first so a typo is pointed at before a round trip.
 * Every decision is a function of @basalt/contract, the same the server calls; only the wording is the console's. The
 * server stays the authority: whatever it still refuses is shown on the field it names.
 */

/** A column as the form edits it: every input as typed. `defaultText` empty means no default. */
export interface ColumnDraft {
  key: number;
  name: string;
  type: ColumnType;
  nullable: boolean;
  unique: boolean;
  defaultText: string;
  /** The table whose `id` this column holds (SELF_REFERENCE: the table being created); empty: not a reference. */
  referencesTable: string;
  onDelete: OnDelete;
}

export type ColumnField = 'name' | 'type' | 'default' | 'references';

let nextKey = 1;
export function newColumnDraft(partial: Partial<Omit<ColumnDraft, 'key'>> = {}): ColumnDraft {
  return { key: nextKey++, name: '', type: 'text', nullable: true, unique: false, defaultText: '', referencesTable: '', onDelete: 'restrict', ...partial };
}

/**
 * The choice of "the table being created" in its own form: a self reference that follows the name as it is typed
 * (or retyped), and only becomes that name when the definition is sent. No table name can be spelled so.
 */
export const SELF_REFERENCE = ':this-table';

/** A table a new column may reference (`name` is what the form keeps), and the type of its `id` (the column's type). */
export interface ReferenceChoice {
  name: string;
  label: string;
  idType: ColumnType;
}

/**
 * Every served table, by name, with its id's type; a table being created (`creating`, its name as typed so far)
 * offers itself last, as a self reference with a text id.
 */
export function referenceChoices(
  tables: readonly { name: string; columns: readonly { name: string; type: ColumnType }[] }[],
  creating?: { name: string },
): ReferenceChoice[] {
  const choices = tables
    .map((table) => ({ name: table.name, label: table.name, idType: table.columns.find((column) => column.name === 'id')?.type ?? 'text' }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (creating) choices.push({ name: SELF_REFERENCE, label: creating.name ? `${creating.name} (this table)` : 'this table', idType: 'text' });
  return choices;
}

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * A default as typed, turned into the JSON literal the admin API takes (never SQL). The decision is the contract's
 * `coerceColumnValue`, the function the server applies to the same literal; only reading text into JSON is the form's.
 */
export function parseDefault(type: ColumnType, text: string): Parsed {
  let raw: unknown = type === 'text' || type === 'boolean' ? text : text.trim();
  if (type === 'json') {
    try {
      raw = JSON.parse(text) as unknown;
    } catch {
      return { ok: false, problem: 'must be valid JSON, e.g. {"a": 1}, [1, 2] or "text"' };
    }
  }
  // A created integer column is int4.
  const coerced = coerceColumnValue({ type, pgType: type === 'integer' ? 'int4' : undefined }, raw);
  if (!coerced.ok) return coerced;
  switch (type) {
    case 'timestamp':
      // Sent as typed (epoch milliseconds as a number): the server reads it exactly as it was checked here.
      return { ok: true, value: EPOCH_MILLIS_TEXT.test(raw as string) ? Number(raw) : raw };
    case 'json':
      return { ok: true, value: raw };
    default:
      return { ok: true, value: coerced.value };
  }
}

export function checkTableName(name: string): string | undefined {
  if (!name) return 'Enter a table name.';
  if (!tableNameProblem(name)) return undefined;
  return TABLE_NAME_PATTERN.test(name) ? `${name} is a reserved table name.` : 'Use lower-case letters, digits and _, starting with a letter (at most 63).';
}

/**
 * Checks one column; `taken` holds the names already used (other rows, or the table's existing columns), `self` the
 * name of the table being created (what a self reference stands for).
 */
export function checkColumn(draft: ColumnDraft, taken: ReadonlySet<string>, self?: string): {
  errors: Partial<Record<ColumnField, string>>;
  definition: ColumnDefinition | undefined;
} {
  const errors: Partial<Record<ColumnField, string>> = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Enter a column name.';
  else if (columnNameProblem(name)) {
    errors.name = (MANAGED_COLUMNS as readonly string[]).includes(name)
      ? `${name} is created by the server on every table.`
      : 'Use letters, digits and _, starting with a letter (at most 63), not starting with pg_.';
  } else if (taken.has(name)) errors.name = `${name} is already a column of this table.`;
  if (columnTypeProblem(name, draft.type)) errors.type = `${name} is the owner column and must be text.`;
  if (draft.referencesTable) {
    if (isOwnerColumnName(name)) errors.references = `${name} is the owner column: it references users already.`;
    else if (draft.onDelete === 'set-null' && !draft.nullable) errors.references = 'On delete "set null" needs a nullable column.';
  }
  let defaultValue: unknown;
  if (draft.defaultText !== '') {
    const parsed = parseDefault(draft.type, draft.defaultText);
    if (parsed.ok) defaultValue = parsed.value;
    else errors.default = `The default ${parsed.problem}.`;
  }
  if (Object.keys(errors).length > 0) return { errors, definition: undefined };
  const definition: ColumnDefinition = { name, type: draft.type, nullable: draft.nullable, unique: draft.unique };
  if (defaultValue !== undefined) definition.default = defaultValue;
  if (draft.referencesTable) {
    definition.references = { table: draft.referencesTable === SELF_REFERENCE ? (self ?? '') : draft.referencesTable, onDelete: draft.onDelete };
  }
  return { errors, definition };
}

/** The policy the server picks when none is given (a bucket always has its owner column, `user_id`). */
export function defaultPolicy(columnNames: readonly string[], bucket = false): Policy {
  return defaultPolicyFor(ownerColumnOf(bucket ? ['user_id', ...columnNames] : columnNames));
}

/**
 * Checks the whole form; errors are keyed as the server names fields (`name`, `columns.2.default`, `maxFileSize`).
 * With `bucket`, a bucket (`kind: "files"`): `drafts` are its metadata columns.
 */
export function checkCreateTable(name: string, drafts: readonly ColumnDraft[], policy: Policy | '', bucket?: BucketDraft): {
  errors: FieldErrors;
  input: CreateTableInput | undefined;
} {
  const errors: FieldErrors = {};
  const tableProblem = checkTableName(name.trim());
  if (tableProblem) errors.name = tableProblem;
  const taken = new Set<string>();
  const columns: ColumnDefinition[] = [];
  drafts.forEach((draft, index) => {
    const checked = checkColumn(draft, taken, name.trim());
    const bucketProblem = bucket && draft.name.trim() ? bucketColumnProblem(draft.name.trim()) : undefined;
    if (bucketProblem) checked.errors.name = bucketProblem;
    for (const [field, message] of Object.entries(checked.errors)) errors[`columns.${index}.${field}`] = message;
    if (checked.definition && !bucketProblem) columns.push(checked.definition);
    taken.add(draft.name.trim());
  });
  const settings = bucket ? checkBucket(bucket) : undefined;
  Object.assign(errors, settings?.errors);
  if (Object.keys(errors).length > 0) return { errors, input: undefined };
  const input: CreateTableInput = { name: name.trim(), columns };
  if (settings) Object.assign(input, { kind: 'files' }, settings.settings);
  if (policy) input.policy = policy;
  return { errors, input };
}
