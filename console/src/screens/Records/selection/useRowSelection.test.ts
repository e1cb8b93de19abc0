import { describe, expect, it } from 'vitest';
import { pageSelection } from './useRowSelection';

describe('pageSelection', () => {
  const rows = [{ id: 'a' }, { id: 'b' }, { id: 3 }];

  it('says none, some or all of the page', () => {
    expect(pageSelection(rows, new Set())).toBe('none');
    expect(pageSelection(rows, new Set(['a']))).toBe('some');
    expect(pageSelection(rows, new Set(['a', 'b', '3']))).toBe('all');
  });

  it('ignores chosen ids no longer on the page', () => {
    expect(pageSelection(rows, new Set(['gone']))).toBe('none');
    expect(pageSelection([], new Set(['a']))).toBe('none');
  });
});
