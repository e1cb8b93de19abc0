import { presetRules } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '@basalt/contract';
import { couldBeId, labelColumnOf, pickerOptions, referencedIds, referenceLabel, referencesTo } from './labels';

const column = (name: string, type: ColumnInfo['type'] = 'text', extra: Partial<ColumnInfo> = {}): ColumnInfo => ({
  name,
  type,
  nullable: true,
  unique: false,
  primaryKey: name === 'id',
  default: null,
  readOnly: false,
  ...extra,
});

const table = (name: string, columns: ColumnInfo[], ownerColumn: TableInfo['ownerColumn'] = null): TableInfo => ({
  name,
  policy: 'private',
  rules: presetRules('private', ownerColumn),
  ownerColumn,
  effectivePolicy: 'private',
  rowCount: { value: 0, exact: true },
  columns: [column('id'), ...columns],
  indexes: [],
  realtime: { captured: true, streamed: false },
  kind: 'records',
});

describe('the label of a referenced row', () => {
  it('is name, title, label or email first, in that order', () => {
    expect(labelColumnOf(table('a', [column('body'), column('title'), column('name')]))).toBe('name');
    expect(labelColumnOf(table('a', [column('email'), column('title')]))).toBe('title');
    expect(labelColumnOf(table('a', [column('body'), column('email')]))).toBe('email');
  });

  it('is else the first text column that is not the id, the owner column or a reference', () => {
    expect(labelColumnOf(table('a', [column('user_id'), column('parent_id', 'text', { references: { table: 'a', onDelete: 'cascade' } }), column('score', 'integer'), column('body')], 'user_id'))).toBe('body');
  });

  it('is the id when there is no text column', () => {
    expect(labelColumnOf(table('a', [column('score', 'integer')]))).toBe('id');
  });
});

describe('references', () => {
  it('to a table are every reference column pointing at it, sorted', () => {
    const tables = [
      table('posts', [column('author_id', 'text', { references: { table: 'authors', onDelete: 'restrict' } })]),
      table('comments', [column('post_id', 'text', { references: { table: 'posts', onDelete: 'cascade' } }), column('by', 'text', { references: { table: 'authors', onDelete: 'set-null' } })]),
      table('authors', []),
    ];
    expect(referencesTo(tables, 'authors')).toEqual([
      { table: 'comments', column: 'by', onDelete: 'set-null' },
      { table: 'posts', column: 'author_id', onDelete: 'restrict' },
    ]);
    expect(referencesTo(tables, 'comments')).toEqual([]);
  });

  it('on a page are looked up once per distinct id, without nulls', () => {
    const ref = column('author_id');
    expect(referencedIds([{ author_id: 'a' }, { author_id: 'b' }, { author_id: 'a' }, { author_id: null }, {}], ref)).toEqual(['a', 'b']);
    expect(referencedIds([{ author_id: 7 }, { author_id: 7 }], ref)).toEqual([7]);
  });

  it('show their label, or nothing to fall back on for an unknown id', () => {
    const labels = new Map([['a', 'Ada']]);
    expect(referenceLabel(labels, 'a')).toBe('Ada');
    expect(referenceLabel(labels, 'zz')).toBeUndefined();
    expect(referenceLabel(undefined, 'a')).toBeUndefined();
    expect(referenceLabel(labels, null)).toBeUndefined();
  });
});

describe('the record form’s reference picker', () => {
  it('looks a term up as an id only when it could be one', () => {
    expect(couldBeId('alan', 'text')).toBe(true);
    expect(couldBeId('', 'text')).toBe(false);
    expect(couldBeId('42', 'integer')).toBe(true);
    expect(couldBeId('-7', 'integer')).toBe(true);
    expect(couldBeId('tur', 'integer')).toBe(false);
    expect(couldBeId('4.2', 'integer')).toBe(false);
    expect(couldBeId('2025-01-01', 'timestamp')).toBe(false);
  });

  it('offers the row whose id is the term first, then the label matches, each once, at most the limit', () => {
    const alan = { id: 'alan', name: 'Alan Turing' };
    const matches = [{ id: 'ada', name: 'Ada Lovelace' }, alan, { id: 'grace', name: 'Grace Hopper' }];
    expect(pickerOptions(alan, matches, 10).map((row) => row.id)).toEqual(['alan', 'ada', 'grace']);
    expect(pickerOptions(undefined, matches, 2).map((row) => row.id)).toEqual(['ada', 'alan']);
    expect(pickerOptions({ id: 7 }, [{ id: 7 }, { id: 8 }], 10)).toEqual([{ id: 7 }, { id: 8 }]);
  });
});
