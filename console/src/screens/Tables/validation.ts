import {
  COLUMN_NAME_PATTERN,
  MANAGED_COLUMNS,
  OWNER_COLUMNS,
  RESERVED_TABLES,
  TABLE_NAME_PATTERN,
  type ColumnDefinition,
  type ColumnType,
  type CreateTableInput,
  type Policy,
} from '@basalt/contract';
import type { FieldErrors } from '../../errors';

/**
 * The server's rules for table and column definitions, checked in the form first so a typo is pointed at before a
 * round trip. The server stays the authority: whatever it still refuses is shown on the field it names.
 */

/** A column as the form edits it: every input as typed. `defaultText` empty means no default. */
export interface ColumnDraft {
  key: number;
  name: string;
  type: ColumnType;
  nullable: boolean;
  unique: boolean;
  defaultText: string;
}

export type ColumnField = 'name' | 'type' | 'default';

let nextKey = 1;
export function newColumnDraft(partial: Partial<Omit<ColumnDraft, 'key'>> = {}): ColumnDraft {
  return { key: nextKey++, name: '', type: 'text', nullable: true, unique: false, defaultText: '', ...partial };
}

const INTEGER_TEXT = /^-?[0-9]+$/;
const REAL_TEXT = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const EPOCH_MILLIS_TEXT = /^-?[0-9]{1,16}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

/** A default as typed, turned into the JSON literal the admin API takes (never SQL). */
export function parseDefault(type: ColumnType, text: string): Parsed {
  switch (type) {
    case 'integer': {
      if (!INTEGER_TEXT.test(text.trim())) return { ok: false, problem: 'must be a whole number' };
      const value = Number(text.trim());
      if (value < INT4_MIN || value > INT4_MAX) return { ok: false, problem: `must be between ${INT4_MIN} and ${INT4_MAX}` };
      return { ok: true, value };
    }
    case 'real': {
      const value = Number(text.trim());
      if (!REAL_TEXT.test(text.trim()) || !Number.isFinite(value)) return { ok: false, problem: 'must be a finite number' };
      return { ok: true, value };
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
      return { ok: false, problem: 'must be true or false' };
    case 'timestamp': {
      const trimmed = text.trim();
      const valid = EPOCH_MILLIS_TEXT.test(trimmed) || (ISO_8601.test(trimmed) && !Number.isNaN(Date.parse(trimmed.replace(' ', 'T'))));
      if (!valid) return { ok: false, problem: 'must be an ISO 8601 date or date-time, or epoch milliseconds' };
      return { ok: true, value: EPOCH_MILLIS_TEXT.test(trimmed) ? Number(trimmed) : trimmed };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return { ok: false, problem: 'must be valid JSON, e.g. {"a": 1}, [1, 2] or "text"' };
      }
    case 'text':
      if (text.includes('\u0000')) return { ok: false, problem: 'must not contain a NUL character' };
      return { ok: true, value: text };
  }
}

export function checkTableName(name: string): string | undefined {
  if (!name) return 'Enter a table name.';
  if (!TABLE_NAME_PATTERN.test(name)) return 'Use lower-case letters, digits and _, starting with a letter (at most 63).';
  if ((RESERVED_TABLES as readonly string[]).includes(name) || name.startsWith('pg_')) return `${name} is a reserved table name.`;
  return undefined;
}

/** Checks one column; `taken` holds the names already used (other rows, or the table's existing columns). */
export function checkColumn(draft: ColumnDraft, taken: ReadonlySet<string>): {
  errors: Partial<Record<ColumnField, string>>;
  definition: ColumnDefinition | undefined;
} {
  const errors: Partial<Record<ColumnField, string>> = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Enter a column name.';
  else if (!COLUMN_NAME_PATTERN.test(name) || name.startsWith('pg_')) {
    errors.name = 'Use letters, digits and _, starting with a letter (at most 63), not starting with pg_.';
  } else if ((MANAGED_COLUMNS as readonly string[]).includes(name)) {
    errors.name = `${name} is created by the server on every table.`;
  } else if (taken.has(name)) errors.name = `${name} is already a column of this table.`;
  if ((OWNER_COLUMNS as readonly string[]).includes(name) && draft.type !== 'text') {
    errors.type = `${name} is the owner column and must be text.`;
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
  return { errors, definition };
}

/** The policy the server picks when none is given. */
export function defaultPolicy(columnNames: readonly string[]): Policy {
  return columnNames.some((name) => (OWNER_COLUMNS as readonly string[]).includes(name)) ? 'owner-scoped' : 'private';
}

/** Checks the whole form; errors are keyed as the server names fields (`name`, `columns.2.default`). */
export function checkCreateTable(name: string, drafts: readonly ColumnDraft[], policy: Policy | ''): {
  errors: FieldErrors;
  input: CreateTableInput | undefined;
} {
  const errors: FieldErrors = {};
  const tableProblem = checkTableName(name.trim());
  if (tableProblem) errors.name = tableProblem;
  const taken = new Set<string>();
  const columns: ColumnDefinition[] = [];
  drafts.forEach((draft, index) => {
    const checked = checkColumn(draft, taken);
    for (const [field, message] of Object.entries(checked.errors)) errors[`columns.${index}.${field}`] = message;
    if (checked.definition) columns.push(checked.definition);
    taken.add(draft.name.trim());
  });
  if (Object.keys(errors).length > 0) return { errors, input: undefined };
  const input: CreateTableInput = { name: name.trim(), columns };
  if (policy) input.policy = policy;
  return { errors, input };
}
