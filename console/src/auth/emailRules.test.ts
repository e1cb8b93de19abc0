import { describe, expect, it } from 'vitest';
import { EMAIL_MAX_LENGTH } from '@basalt/contract';
import { emailProblem } from './emailRules';

describe('email addresses in forms', () => {
  it('are asked for, checked for their shape and length, and pass when fine', () => {
    expect(emailProblem('')).toBe('Enter an email address.');
    expect(emailProblem('not an address')).toBe('Enter a valid email address, like someone@example.com.');
    expect(emailProblem('a@b', 'owner@example.com')).toBe('Enter a valid email address, like owner@example.com.');
    expect(emailProblem(`${'a'.repeat(EMAIL_MAX_LENGTH)}@example.com`)).toMatch(/^Enter a valid/);
    expect(emailProblem('someone@example.com')).toBeUndefined();
  });
});
