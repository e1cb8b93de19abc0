import fc from 'fast-check';
import { EMAIL_CODE_LENGTH, LOCALE_MAX_LENGTH } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import { parseExchange, parseProofBody, parseSend } from '../auth/email/validation.js';
import { parseCredentials } from '../auth/validation.js';
import { digitsCode, LOCALE, PKCE, unitsText } from './patterns.js';

/**
 * The email routes' patterns (issue 26) held to the service's own parsers, as patterns.test.ts holds the rest: exact
 * where the rule is ASCII (a locale, a code, a PKCE verifier), within the limit for `redirectTo`.
 */

const modes = (pattern: string) => [new RegExp(pattern, 'u'), new RegExp(pattern)];
const accepts = (run: () => unknown) => {
  try {
    run();
    return true;
  } catch {
    return false;
  }
};
const textOf = (units: readonly string[], minLength: number, maxLength: number) =>
  fc.integer({ min: minLength, max: maxLength }).chain((length) => fc.array(fc.constantFrom(...units), { minLength: length, maxLength: length }).map((parts) => parts.join('')));

describe('email texts', () => {
  it(`locales: a BCP 47 tag of at most ${LOCALE_MAX_LENGTH} characters, exactly`, () => {
    const patterns = modes(LOCALE);
    const tag = fc.oneof(textOf(['a', 'Z', '0', '-', '_', ' ', '\u00e9'], 0, 40), fc.array(textOf(['a', 'B', '1'], 0, 10), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('-')));
    fc.assert(
      fc.property(tag, (locale) => {
        const taken = accepts(() => parseCredentials({ email: 'a@x.test', password: 'long enough', locale }));
        for (const pattern of patterns) expect(pattern.test(locale) && locale.length <= LOCALE_MAX_LENGTH, JSON.stringify(locale)).toBe(taken);
      }),
      { numRuns: 3000 },
    );
  });

  it(`codes: exactly ${EMAIL_CODE_LENGTH} ASCII digits`, () => {
    const patterns = modes(digitsCode(EMAIL_CODE_LENGTH));
    fc.assert(
      fc.property(textOf(['0', '9', '5', 'a', ' ', '\n', '\u0661', '\uff10'], 0, 8), (code) => {
        const taken = accepts(() => parseProofBody({ email: 'a@x.test', code }));
        for (const pattern of patterns) expect(pattern.test(code), JSON.stringify(code)).toBe(taken);
      }),
      { numRuns: 2000 },
    );
  });

  it('PKCE verifiers and challenges: 43 to 128 unreserved characters, exactly', () => {
    const patterns = modes(PKCE);
    fc.assert(
      fc.property(textOf(['a', 'Z', '0', '-', '.', '_', '~', '+', '/', '=', '\u00e9', '\u0000'], 38, 134), (codeVerifier) => {
        const taken = accepts(() => parseExchange({ code: 'c', codeVerifier }));
        for (const pattern of patterns) expect(pattern.test(codeVerifier), JSON.stringify(codeVerifier)).toBe(taken);
      }),
      { numRuns: 2000 },
    );
  });

  it('redirectTo: what the pattern admits is within the service\'s length (whether allowed is the configuration\'s)', () => {
    const patterns = modes(unitsText(1, 2048));
    fc.assert(
      fc.property(textOf(['a', '/', '\u00e9', '\ud83d\ude00', '\u0000'], 0, 2100), (redirectTo) => {
        const taken = accepts(() => parseSend({ email: 'a@x.test', redirectTo }));
        for (const pattern of patterns) if (pattern.test(redirectTo)) expect(taken, `${redirectTo.length} units`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
