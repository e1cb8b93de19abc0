import { describe, expect, it } from 'vitest';
import { groupSecret, recoveryCodesFile, recoveryCodesFileName } from './factor';

describe('the key of an authenticator app', () => {
  it('reads in groups of four, whatever spacing it came with', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDEFGHIJ')).toBe('ABCD EFGH IJ');
    expect(groupSecret(' AB CD ')).toBe('ABCD');
    expect(groupSecret('')).toBe('');
  });
});

describe('the recovery codes file', () => {
  it('says whose codes they are and where they work, then lists one a line', () => {
    const text = recoveryCodesFile(['AAAAA-BBBBB', 'CCCCC-DDDDD'], 'owner@example.test', 'https://api.example', new Date('2026-01-02T03:04:05Z'));
    const lines = text.split('\n');
    expect(lines[0]).toBe('Recovery codes for owner@example.test at https://api.example');
    expect(lines[1]).toContain('2026-01-02T03:04:05.000Z');
    expect(lines.slice(-3)).toEqual(['AAAAA-BBBBB', 'CCCCC-DDDDD', '']);
  });

  it('is named after the API’s host', () => {
    expect(recoveryCodesFileName('https://api.example')).toBe('recovery-codes-api.example.txt');
    expect(recoveryCodesFileName('http://127.0.0.1:4000')).toBe('recovery-codes-127.0.0.1-4000.txt');
  });
});
