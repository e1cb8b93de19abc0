import { describe, expect, it } from 'vitest';
import type { ColumnType } from '@basalt/contract';
import { parseCreateTable } from '../../../../server/src/admin/definitions.js';
import { checkCreateTable, defaultPolicy, newColumnDraft, parseDefault, type ColumnDraft } from './validation';

/**
 * The console checks a new table before sending it so that a typo is pointed at without a round trip; the server
 * decides. The two must agree: what the form lets through the server accepts, and what the form stops the server
 * refuses too, naming the same field. Each case below goes through both.
 */

type Verdict = { ok: true } | { ok: false; field: string };

function serverVerdict(body: unknown): Verdict {
  try {
    parseCreateTable(body);
    return { ok: true };
  } catch (error) {
    const field = (error as { details?: { field?: unknown } }).details?.field;
    if (typeof field !== 'string') throw error;
    return { ok: false, field };
  }
}

/** What a client without the console's checks would send for the same form: numbers and booleans as they look. */
function rawDefault(type: ColumnType, text: string): unknown {
  if ((type === 'integer' || type === 'real') && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (type === 'timestamp' && /^-?[0-9]{1,16}$/.test(text.trim())) return Number(text);
  return text;
}

function rawBody(name: string, drafts: ColumnDraft[]) {
  return {
    name,
    columns: drafts.map((draft) => ({
      name: draft.name,
      type: draft.type,
      nullable: draft.nullable,
      unique: draft.unique,
      ...(draft.defaultText === '' ? {} : { default: rawDefault(draft.type, draft.defaultText) }),
    })),
  };
}

function expectAgreement(name: string, drafts: ColumnDraft[]): void {
  const checked = checkCreateTable(name, drafts, '');
  const label = JSON.stringify(rawBody(name, drafts));
  if (checked.input) {
    expect(serverVerdict(checked.input), `the server refuses what the console lets through: ${label}`).toEqual({ ok: true });
    return;
  }
  const server = serverVerdict(rawBody(name, drafts));
  expect(server.ok, `the server accepts what the console stops (${JSON.stringify(checked.errors)}): ${label}`).toBe(false);
  if (!server.ok) expect(Object.keys(checked.errors), label).toContain(server.field);
}

const column = (partial: Partial<Omit<ColumnDraft, 'key'>>) => newColumnDraft({ name: 'title', ...partial });

describe('the console and the server agree on new tables', () => {
  it.each([
    'notes',
    'a',
    'x'.repeat(63),
    'x'.repeat(64),
    'Notes',
    '1notes',
    '_notes',
    'my notes',
    'users',
    'sessions',
    'pg_notes',
    '',
  ])('on the table name %j', (name) => {
    expectAgreement(name, [column({})]);
  });

  it.each([
    'title',
    'Title',
    'x'.repeat(63),
    'x'.repeat(64),
    '9lives',
    'with space',
    'pg_title',
    'id',
    'createdAt',
    'updatedAt',
    '',
  ])('on the column name %j', (name) => {
    expectAgreement('notes', [column({ name })]);
  });

  it('on a column declared twice', () => {
    expectAgreement('notes', [column({}), column({})]);
  });

  it.each([
    ['user_id', 'text'],
    ['user_id', 'integer'],
    ['userId', 'boolean'],
  ] as const)('on the owner column %s of type %s', (name, type) => {
    expectAgreement('notes', [column({ name, type })]);
  });

  it.each([
    ['integer', '42'],
    ['integer', '-2147483648'],
    ['integer', '2147483647'],
    ['integer', '2147483648'],
    ['integer', '4.2'],
    ['integer', 'forty'],
    ['real', '1.5'],
    ['real', '1e3'],
    ['real', '-.5'],
    ['real', '1e309'],
    ['real', 'NaN'],
    ['boolean', 'true'],
    ['boolean', 'false'],
    ['boolean', 'yes'],
    ['timestamp', '2030-01-02T03:04:05Z'],
    ['timestamp', '2030-01-02'],
    ['timestamp', '2030-01-02 03:04:05+02:00'],
    ['timestamp', '0'],
    ['timestamp', 'tomorrow'],
    ['timestamp', '2030-13-01'],
    ['json', '{"a": [1, 2]}'],
    ['json', '"text"'],
    ['text', 'hello'],
    ['text', 'nul\u0000byte'],
  ] as const)('on a %s default %j', (type, defaultText) => {
    expectAgreement('notes', [column({ name: 'value', type, defaultText })]);
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
