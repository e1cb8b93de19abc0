import { describe, expect, it } from 'vitest';
import { SELF_REFERENCE, checkColumn, checkCreateTable, defaultPolicy, newColumnDraft, parseDefault, referenceChoices, type ColumnDraft } from './validation';

/**
 * The console checks a new table before sending it so that a typo is pointed at without a round trip; the server
 * decides. Both take every decision from @basalt/contract (tableNameProblem, columnNameProblem, columnTypeProblem,
 * coerceColumnValue), so they agree by construction; each case below pins the verdict the form gives: accepted, or
 * refused on the field the server names for the same body.
 */

type Verdict = 'ok' | string;

function verdict(name: string, drafts: ColumnDraft[]): Verdict {
  const checked = checkCreateTable(name, drafts, '');
  if (checked.input) return 'ok';
  const fields = Object.keys(checked.errors);
  expect(fields).toHaveLength(1);
  return fields[0]!;
}

const column = (partial: Partial<Omit<ColumnDraft, 'key'>>) => newColumnDraft({ name: 'title', ...partial });

describe('the verdicts on new tables, as the server gives them for the same body', () => {
  it.each([
    ['notes', 'ok'],
    ['a', 'ok'],
    ['x'.repeat(63), 'ok'],
    ['x'.repeat(64), 'name'],
    ['Notes', 'name'],
    ['1notes', 'name'],
    ['_notes', 'name'],
    ['my notes', 'name'],
    ['users', 'name'],
    ['sessions', 'name'],
    ['pg_notes', 'name'],
    ['', 'name'],
  ])('on the table name %j: %s', (name, expected) => {
    expect(verdict(name, [column({})])).toBe(expected);
  });

  it.each([
    ['title', 'ok'],
    ['Title', 'ok'],
    ['x'.repeat(63), 'ok'],
    ['x'.repeat(64), 'columns.0.name'],
    ['9lives', 'columns.0.name'],
    ['with space', 'columns.0.name'],
    ['pg_title', 'columns.0.name'],
    ['id', 'columns.0.name'],
    ['createdAt', 'columns.0.name'],
    ['updatedAt', 'columns.0.name'],
    ['', 'columns.0.name'],
  ])('on the column name %j: %s', (name, expected) => {
    expect(verdict('notes', [column({ name })])).toBe(expected);
  });

  it('on a column declared twice', () => {
    expect(verdict('notes', [column({}), column({})])).toBe('columns.1.name');
  });

  it.each([
    ['user_id', 'text', 'ok'],
    ['user_id', 'integer', 'columns.0.type'],
    ['userId', 'boolean', 'columns.0.type'],
  ] as const)('on the owner column %s of type %s: %s', (name, type, expected) => {
    expect(verdict('notes', [column({ name, type })])).toBe(expected);
  });

  it.each([
    ['integer', '42', 'ok'],
    ['integer', '-2147483648', 'ok'],
    ['integer', '2147483647', 'ok'],
    ['integer', '2147483648', 'columns.0.default'],
    ['integer', '4.2', 'columns.0.default'],
    ['integer', 'forty', 'columns.0.default'],
    ['real', '1.5', 'ok'],
    ['real', '1e3', 'ok'],
    ['real', '-.5', 'ok'],
    ['real', '1e309', 'columns.0.default'],
    ['real', 'NaN', 'columns.0.default'],
    ['boolean', 'true', 'ok'],
    ['boolean', 'false', 'ok'],
    ['boolean', 'yes', 'columns.0.default'],
    ['timestamp', '2030-01-02T03:04:05Z', 'ok'],
    ['timestamp', '2030-01-02', 'ok'],
    ['timestamp', '2030-01-02 03:04:05+02:00', 'ok'],
    ['timestamp', '0', 'ok'],
    ['timestamp', 'tomorrow', 'columns.0.default'],
    ['timestamp', '2030-13-01', 'columns.0.default'],
    ['timestamp', '10000-01-01', 'columns.0.default'],
    ['json', '{"a": [1, 2]}', 'ok'],
    ['json', '"text"', 'ok'],
    ['text', 'hello', 'ok'],
    ['text', 'nul\u0000byte', 'columns.0.default'],
  ] as const)('on a %s default %j: %s', (type, defaultText, expected) => {
    expect(verdict('notes', [column({ name: 'value', type, defaultText })])).toBe(expected);
  });
});

describe('the console on its own', () => {
  it('refuses JSON defaults that are not JSON, which the server would store as a string', () => {
    expect(parseDefault('json', '{a: 1}')).toMatchObject({ ok: false });
    expect(parseDefault('json', '[1, 2]')).toEqual({ ok: true, value: [1, 2] });
  });

  it('names the policy the server picks when none is chosen', () => {
    expect(defaultPolicy(['title', 'user_id'])).toBe('owner-scoped');
    expect(defaultPolicy(['userId'])).toBe('owner-scoped');
    expect(defaultPolicy(['title'])).toBe('private');
  });

  it('keys field errors as the server does and builds the request only when nothing is wrong', () => {
    const bad = checkCreateTable('notes', [column({}), column({ name: 'n', type: 'integer', defaultText: 'x' })], '');
    expect(bad).toEqual({ errors: { 'columns.1.default': expect.stringContaining('whole number') }, input: undefined });
    const good = checkCreateTable(' notes ', [column({ unique: true }), column({ name: 'n', type: 'integer', defaultText: ' 7 ' })], 'public-read');
    expect(good.errors).toEqual({});
    expect(good.input).toEqual({
      name: 'notes',
      policy: 'public-read',
      columns: [
        { name: 'title', type: 'text', nullable: true, unique: true },
        { name: 'n', type: 'integer', nullable: true, unique: false, default: 7 },
      ],
    });
  });
});

describe('reference columns', () => {
  it('send references with the on-delete rule picked', () => {
    const checked = checkCreateTable('posts', [column({ name: 'author_id', referencesTable: 'authors', onDelete: 'cascade' })], '');
    expect(checked.input?.columns[0]).toEqual({ name: 'author_id', type: 'text', nullable: true, unique: false, references: { table: 'authors', onDelete: 'cascade' } });
  });

  it('send no references for a plain column', () => {
    expect(checkCreateTable('posts', [column({})], '').input?.columns[0]?.references).toBeUndefined();
  });

  it.each([
    [{ name: 'author_id', referencesTable: 'authors', onDelete: 'set-null' as const, nullable: false }, 'columns.0.references'],
    [{ name: 'author_id', referencesTable: 'authors', onDelete: 'set-null' as const, nullable: true }, 'ok'],
    [{ name: 'user_id', referencesTable: 'authors', onDelete: 'restrict' as const }, 'columns.0.references'],
    [{ name: 'parent_id', referencesTable: 'posts', onDelete: 'cascade' as const, nullable: false }, 'ok'],
  ])('on %j: %s', (partial, expected) => {
    expect(verdict('posts', [column(partial)])).toBe(expected);
  });

  it('offer every table with its id type, and a table being created as itself, last', () => {
    const tables = [
      { name: 'people', columns: [{ name: 'id', type: 'integer' as const }] },
      { name: 'authors', columns: [{ name: 'id', type: 'text' as const }, { name: 'name', type: 'text' as const }] },
    ];
    expect(referenceChoices(tables, { name: 'posts' })).toEqual([
      { name: 'authors', label: 'authors', idType: 'text' },
      { name: 'people', label: 'people', idType: 'integer' },
      { name: SELF_REFERENCE, label: 'posts (this table)', idType: 'text' },
    ]);
    expect(referenceChoices(tables, { name: '' }).at(-1)).toEqual({ name: SELF_REFERENCE, label: 'this table', idType: 'text' });
    // Adding a column to an existing table: it is among the served tables already.
    expect(referenceChoices(tables).map((choice) => choice.name)).toEqual(['authors', 'people']);
  });

  it('send a self reference as the table’s name, whatever it was when the reference was picked', () => {
    const draft = column({ name: 'parent_id', referencesTable: SELF_REFERENCE, onDelete: 'cascade' });
    expect(checkCreateTable(' comments ', [draft], '').input?.columns[0]?.references).toEqual({ table: 'comments', onDelete: 'cascade' });
    expect(checkColumn(draft, new Set(), 'threads').definition?.references).toEqual({ table: 'threads', onDelete: 'cascade' });
  });
});
