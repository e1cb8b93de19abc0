import { describe, expect, it } from 'vitest';
import { waitText } from '../../waitText';
import { resetAddress, tokenFromHash } from './links';

describe('reset links', () => {
  it('carry the token in the fragment, encoded, and read it back', () => {
    const address = resetAddress('https://project.example', 'a+b/c=');
    expect(address).toMatch(/^https:\/\/project\.example\/.*reset#token=a%2Bb%2Fc%3D$/);
    expect(tokenFromHash(new URL(address).hash)).toBe('a+b/c=');
  });

  it('read no token from an empty or unrelated fragment', () => {
    expect(tokenFromHash('')).toBe('');
    expect(tokenFromHash('#other=1')).toBe('');
  });
});

describe('waiting times', () => {
  it('read as seconds under a minute and whole minutes above', () => {
    expect(waitText(1)).toBe('1 second');
    expect(waitText(42)).toBe('42 seconds');
    expect(waitText(60)).toBe('1 minute');
    expect(waitText(873)).toBe('15 minutes');
    expect(waitText(undefined)).toBe('a moment');
  });
});
