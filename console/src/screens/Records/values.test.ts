import { describe, expect, it } from 'vitest';
import { coerceColumnValue, type ColumnInfo, type ColumnType } from '@basalt/contract';
import { formatCell, fromInputText, isRequired, toInputText, writableColumns } from './values';

function info(type: ColumnType, extra: Partial<ColumnInfo> = {}): ColumnInfo {
  return { name: 'c', type, nullable: true, unique: false, primaryKey: false, default: null, readOnly: false, ...extra };
}

/** What the server would store for a value (it coerces with the same contract function): JSON-comparable. */
function stored(type: ColumnType, value: unknown): unknown {
  const coerced = coerceColumnValue({ type, pgType: type === 'integer' ? 'int4' : undefined }, value);
  if (!coerced.ok) return { refused: coerced.problem };
  return coerced.value instanceof Date ? coerced.value.getTime() : coerced.value;
}

describe('the record form', () => {
  // Opening a record and saving it unchanged must store exactly what was there.
  it.each([
    ['text', 'hello'],
    ['text', '42'],
    ['text', 'true'],
    ['text', ''],
    ['text', ' padded '],
    ['integer', 42],
    ['integer', -7],
    ['real', 1.5],
    ['real', 1e21],
    ['boolean', true],
    ['boolean', false],
    ['timestamp', '2030-01-02T03:04:05.678Z'],
    ['json', { a: [1, 2], b: null }],
    ['json', [1, 'two']],
    ['json', 'a string'],
    ['json', 3],
  ] as const)('saves a %s value %j unchanged', (type, value) => {
    const column = info(type);
    const sent = fromInputText(toInputText(value, column), column);
    expect(sent.ok).toBe(true);
    if (sent.ok) expect(stored(type, sent.value)).toEqual(stored(type, value));
  });

  it('sends text that does not look like the column type as typed, for the server to refuse on the field', () => {
    expect(fromInputText('forty', info('integer'))).toEqual({ ok: true, value: 'forty' });
    expect(stored('integer', 'forty')).toMatchObject({ refused: expect.any(String) });
    expect(fromInputText('yes', info('boolean'))).toEqual({ ok: true, value: 'yes' });
    expect(stored('boolean', 'yes')).toMatchObject({ refused: expect.any(String) });
    expect(fromInputText('0', info('timestamp'))).toEqual({ ok: true, value: 0 });
  });

  it('refuses JSON that is not JSON (any text is a valid JSON string, and would be stored as one)', () => {
    expect(fromInputText('{a: 1}', info('json', { name: 'meta' }))).toEqual({ ok: false, problem: expect.stringContaining('meta must be valid JSON') });
  });

  it('shows null apart from the empty string, and structures as JSON', () => {
    expect(formatCell(null)).toEqual({ text: 'null', isNull: true });
    expect(formatCell('')).toEqual({ text: '', isNull: false });
    expect(formatCell({ a: 1 })).toEqual({ text: '{"a":1}', isNull: false });
    expect(formatCell(false)).toEqual({ text: 'false', isNull: false });
  });

  it('asks for the columns an insert must name, and never for the timestamps the server sets', () => {
    expect(isRequired(info('text', { nullable: false }))).toBe(true);
    expect(isRequired(info('text', { nullable: false, default: 'x' }))).toBe(false);
    expect(isRequired(info('text', { nullable: false, primaryKey: true }))).toBe(false);
    expect(isRequired(info('text'))).toBe(false);
    const columns = ['id', 'title', 'createdAt', 'updatedAt'].map((name) => info('text', { name }));
    expect(writableColumns(columns).map((column) => column.name)).toEqual(['id', 'title']);
  });
});
