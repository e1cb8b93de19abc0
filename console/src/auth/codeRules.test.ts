import { describe, expect, it } from 'vitest';
import { RECOVERY_CODE_PATTERN } from '@basalt/contract';
import { normalisedRecoveryCode, normalisedTotpCode, recoveryCodeProblem, totpCodeProblem } from './codeRules';

describe('an authenticator app’s code as typed', () => {
  it('loses the spaces and dashes people paste with it', () => {
    expect(normalisedTotpCode(' 123 456 ')).toBe('123456');
    expect(normalisedTotpCode('123-456')).toBe('123456');
    expect(totpCodeProblem('123 456')).toBeUndefined();
  });

  it('is six digits, or says what is wrong before a round trip', () => {
    expect(totpCodeProblem('')).toMatch(/Enter the 6-digit code/);
    expect(totpCodeProblem('12345')).toMatch(/6 digits/);
    expect(totpCodeProblem('1234567')).toMatch(/6 digits/);
    expect(totpCodeProblem('12345a')).toMatch(/6 digits/);
  });
});

describe('a recovery code as typed', () => {
  it('is taken in any case, with or without its dash, as the server takes it', () => {
    expect(normalisedRecoveryCode('  abcde-23456 ')).toBe('ABCDE-23456');
    expect(recoveryCodeProblem('abcde-23456')).toBeUndefined();
    expect(recoveryCodeProblem('ABCDE23456')).toBeUndefined();
    expect(RECOVERY_CODE_PATTERN.test(normalisedRecoveryCode('abcde 23456'))).toBe(true);
  });

  it('says what is wrong with a shape no code has', () => {
    expect(recoveryCodeProblem(' ')).toBe('Enter one of your recovery codes.');
    expect(recoveryCodeProblem('123456')).toMatch(/ten letters and digits/);
    expect(recoveryCodeProblem('ABCDE-2345')).toMatch(/ten letters and digits/);
  });
});
