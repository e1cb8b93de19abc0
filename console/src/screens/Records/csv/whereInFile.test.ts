import { describe, expect, it } from 'vitest';
import { whereInFile } from './whereInFile';

describe('whereInFile', () => {
  it('names the line and the column', () => {
    expect(whereInFile({ index: 1, line: 3, field: 'score' })).toBe('Line 3, column score');
    expect(whereInFile({ index: 0, line: 2 })).toBe('Line 2');
  });

  it('names the column of a header the table does not have', () => {
    expect(whereInFile({ field: 'colour' })).toBe('Column colour');
  });

  it('answers nothing for the file as a whole', () => {
    expect(whereInFile(undefined)).toBeUndefined();
    expect(whereInFile({ parameter: 'body' })).toBeUndefined();
  });
});
