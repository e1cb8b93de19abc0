import fc from 'fast-check';
import { API_KEY_NAME_MAX_LENGTH, coerceColumnValue, EMAIL_MAX_LENGTH, INTEGER_RANGES, isReservedTable, MANAGED_COLUMNS, parseTimestamp, PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES, REFRESH_TOKEN_MAX_LENGTH, RESERVED_TABLES, SYSTEM_TABLE_PREFIXES } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import { parseKeyExpiry } from '../auth/keys/service.js';
import { parseCredentials, parseKeyInput, parseRefreshBody } from '../auth/validation.js';
import { MAX_LIST_VALUES } from '@basalt/contract';
import { parseOrder, parseValueList } from '../records/index.js';
import { digitsAtMost, EMAIL, FINITE_REAL, integerText, listOf, noneOf, orderPattern, passwordPattern, textListItems, TIMESTAMP_TEXT, trimmedUnitsText, unitsText } from './patterns.js';

/**
 * The document's patterns held to the service's own functions: what a pattern admits the service accepts (with and
 * without the `u` flag: JSON Schema readers differ), and where the pattern is exact, what the service accepts the
 * pattern admits. Inputs are drawn around each rule's edges, not uniformly (that would almost never hit one).
 */

const RUNS = { numRuns: 3000 };
const modes = (pattern: string) => [new RegExp(pattern, 'u'), new RegExp(pattern)];
const anchored = (pattern: string) => modes(`^${pattern}$`);
const accepts = (run: () => unknown) => {
  try {
    run();
    return true;
  } catch {
    return false;
  }
};

/** Strings of these units, of any length in range (fast-check's default size would keep them short). */
const textOf = (units: readonly string[], minLength: number, maxLength: number) =>
  fc.integer({ min: minLength, max: maxLength }).chain((length) => fc.array(fc.constantFrom(...units), { minLength: length, maxLength: length }).map((parts) => parts.join('')));
const digits = (minLength: number, maxLength: number) => textOf([...'0123456789'], minLength, maxLength);
const pad2 = (max: number) => fc.integer({ min: 0, max }).map((value) => String(value).padStart(2, '0'));

/** Date-times near every edge: impossible days, hours 24+, long fractions, odd offsets, the first and last days. */
const nearTimestamp = fc
  .tuple(
    fc.oneof(fc.constantFrom('0000', '9999', '2000', '1900', '2024', '2023', '0004'), digits(4, 4), digits(1, 5)),
    fc.oneof(fc.constantFrom('01', '02', '12'), pad2(19)),
    fc.oneof(fc.constantFrom('01', '28', '29', '30', '31'), pad2(39)),
    fc.option(
      fc.tuple(
        fc.constantFrom('T', 't', ' ', 'x'),
        pad2(29),
        pad2(69),
        fc.option(fc.tuple(pad2(69), fc.option(digits(0, 11)))),
        fc.option(fc.oneof(fc.constantFrom('Z', 'z', '+00:00', '-0000', '+00'), fc.tuple(fc.constantFrom('+', '-'), pad2(29), fc.constantFrom(':', ''), pad2(69)).map((parts) => parts.join('')))),
      ),
    ),
  )
  .map(([year, month, day, time]) => {
    if (!time) return `${year}-${month}-${day}`;
    const [separator, hour, minute, second, offset] = time;
    const seconds = second ? `:${second[0]}${second[1] === null ? '' : `.${second[1]}`}` : '';
    return `${year}-${month}-${day}${separator}${hour}:${minute}${seconds}${offset ?? ''}`;
  });

/** Whether a time zone may carry the first or last day of the range out of it (the pattern leaves those out). */
const crossesTheRange = (text: string) => /^0000-01-01[Tt ].*\+(?!00:?00$)/.test(text) || /^9999-12-31[Tt ].*-(?!00:?00$)/.test(text);

const nearEpoch = fc.oneof(
  fc.tuple(fc.constantFrom('', '-'), digits(1, 18)).map(([sign, value]) => sign + value),
  fc.constantFrom('-62167219200000', '-62167219200001', '253402300799999', '253402300800000', '0000253402300799999', '-0', '0'),
);

describe('timestamps', () => {
  it('admit exactly what parseTimestamp takes, but a zone that may cross 0000 or 9999', () => {
    const [withU, without] = anchored(TIMESTAMP_TEXT);
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, nearEpoch), (text) => {
        const taken = parseTimestamp(text) !== undefined;
        for (const pattern of [withU!, without!]) {
          if (pattern.test(text)) expect(taken, text).toBe(true);
          else expect(taken && !crossesTheRange(text), text).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('for an API key expiry, the same: the service reads it as it reads a timestamp (then wants it in the future)', () => {
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, nearEpoch), (text) => {
        const read = parseTimestamp(text);
        if (read === undefined || read.getTime() <= Date.now()) expect(parseKeyExpiry(text), text).toBe('invalid');
        else expect(parseKeyExpiry(text), text).toEqual(read);
      }),
      RUNS,
    );
    for (const text of ['2999-02-30', '2999-01-01 10:00 ']) expect(parseKeyExpiry(text), text).toBe('invalid');
    expect(parseKeyExpiry('2999-01-01 10:00')).toEqual(new Date('2999-01-01T10:00:00Z'));
    expect(parseKeyExpiry('4102444800000')).toEqual(new Date(4102444800000));
  });

  it.each(['2023-02-30', '2023-02-29', '1900-02-29', '2023-01-01T24:00', '2023-01-01T10:00+01', '2023-01-01T10:00:00.1234567891Z', '253402300800000', '-62167219200001', '0000-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', ''])('refuse %j', (text) => {
    for (const pattern of anchored(TIMESTAMP_TEXT)) expect(pattern.test(text)).toBe(false);
  });

  it.each(['0000-02-29', '2000-02-29', '9999-12-31T23:59:59.999999999Z', '0000-01-01T00:00-05:00', '2023-06-15 10:00', '2023-06-15t10:00:00+0100', '-62167219200000', '0000253402300799999'.slice(3), '-0'])('admit %j', (text) => {
    expect(parseTimestamp(text)).toBeInstanceOf(Date);
    for (const pattern of anchored(TIMESTAMP_TEXT)) expect(pattern.test(text)).toBe(true);
  });
});

describe('numbers', () => {
  it('digitsAtMost admits exactly the digit strings up to the bound and the length', () => {
    for (const bound of [0n, 1n, 7n, 10n, 99n, 100n, 109n, 1000n, 1203n]) {
      for (const maxDigits of [4, Infinity]) {
        const [pattern] = anchored(digitsAtMost(bound, maxDigits));
        for (let length = 1; length <= 5; length++) {
          for (let value = 0; value < 10 ** length; value += length > 3 ? 7 : 1) {
            const text = String(value).padStart(length, '0');
            expect(pattern!.test(text), `${text} <= ${bound} in ${maxDigits}`).toBe(BigInt(text) <= bound && length <= maxDigits);
          }
        }
      }
    }
  });

  it.each(Object.keys(INTEGER_RANGES))('integers of %s: exactly what the service coerces', (pgType) => {
    const [min, max] = INTEGER_RANGES[pgType]!;
    const patterns = anchored(integerText(min, max));
    const edges = [min, max, min - 1n, max + 1n, 0n].map(String);
    const near = fc.oneof(
      fc.tuple(fc.constantFrom(...edges), fc.constantFrom('', '0', '00'), fc.integer({ min: -3, max: 3 })).map(([edge, zeros, step]) => {
        const value = BigInt(edge) + BigInt(step);
        return value < 0n ? `-${zeros}${-value}` : `${zeros}${value}`;
      }),
      fc.tuple(fc.constantFrom('', '-', '+'), digits(1, 21)).map(([sign, value]) => sign + value),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(near, (text) => {
        const taken = coerceColumnValue({ type: 'integer', pgType }, text).ok;
        for (const pattern of patterns) expect(pattern.test(text), text).toBe(taken);
      }),
      RUNS,
    );
  });

  it('reals: only finite decimals the service takes', () => {
    const near = fc
      .tuple(fc.constantFrom('', '-', '+'), digits(0, 310), fc.option(digits(0, 3)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '-', '+'), digits(0, 4))))
      .map(([sign, whole, fraction, exponent]) => `${sign}${whole}${fraction === null ? '' : `.${fraction}`}${exponent ? exponent.join('') : ''}`);
    fc.assert(
      fc.property(fc.oneof(near, fc.constantFrom('1e308', '1e309', '1e299', '12345678e299', '.5', '1.', '0x10', 'Infinity', '')), (text) => {
        for (const pattern of anchored(FINITE_REAL)) if (pattern.test(text)) expect(coerceColumnValue({ type: 'real' }, text).ok, text).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('in and nin lists', () => {
  const item = (value: fc.Arbitrary<string>) =>
    fc.tuple(value, fc.constantFrom('plain', 'quoted', 'broken')).map(([text, form]) => (form === 'plain' ? text : form === 'quoted' ? `"${text.replace(/"/g, '""')}"` : `"${text}`));
  const lists = (value: fc.Arbitrary<string>) => fc.oneof(fc.array(item(value), { minLength: 1, maxLength: 4 }).map((items) => items.join(',')), fc.constantFrom('', ',', '1,', ',1'));
  const takenAs = (text: string, coerce: (value: string) => boolean) => accepts(() => parseValueList('x[in]', text)) && parseValueList('x[in]', text).every(coerce);

  it('of timestamps and integers: what parseValueList splits and each value coerces (never the empty string)', () => {
    const cases = [
      { pattern: listOf(TIMESTAMP_TEXT, MAX_LIST_VALUES), values: fc.oneof(nearTimestamp, nearEpoch), coerce: (value: string) => parseTimestamp(value) !== undefined },
      { pattern: listOf(integerText(...INTEGER_RANGES.int4!), MAX_LIST_VALUES), values: fc.oneof(digits(0, 11), fc.constant('-1')), coerce: (value: string) => coerceColumnValue({ type: 'integer', pgType: 'int4' }, value).ok },
    ];
    for (const { pattern, values, coerce } of cases) {
      fc.assert(
        fc.property(lists(values), (text) => {
          const taken = takenAs(text, coerce);
          for (const mode of modes(pattern)) {
            if (mode.test(text)) expect(taken, text).toBe(true);
            else expect(taken && !parseValueList('x[in]', text).some(crossesTheRange), text).toBe(false);
          }
        }),
        RUNS,
      );
    }
    for (const mode of modes(listOf(TIMESTAMP_TEXT, MAX_LIST_VALUES))) expect(mode.test('')).toBe(false);
  });

  it('of text: what parseValueList splits, each value within varchar(n)', () => {
    const values = fc.string({ unit: fc.constantFrom('a', 'é', ',', '"', '\u0000', '😀'), maxLength: 5 });
    for (const maxLength of [null, 3]) {
      fc.assert(
        fc.property(lists(values), (text) => {
          const taken = takenAs(text, (value) => coerceColumnValue({ type: 'text', maxLength }, value).ok);
          const [withU] = modes(textListItems(MAX_LIST_VALUES, maxLength));
          expect(withU!.test(text), text).toBe(taken);
        }),
        RUNS,
      );
    }
  });

  it(`stop at ${MAX_LIST_VALUES} values`, () => {
    const [pattern] = modes(listOf(integerText(...INTEGER_RANGES.int4!), MAX_LIST_VALUES));
    expect(pattern!.test(Array(MAX_LIST_VALUES).fill('1').join(','))).toBe(true);
    expect(pattern!.test(Array(MAX_LIST_VALUES + 1).fill('1').join(','))).toBe(false);
  });
});

describe('account texts', () => {
  const unit = fc.constantFrom('a', 'Z', ' ', '\u00a2', '\u00e9', '\u20ac', '\u3000', '\ud83d\ude00', '\u0000', '\ud800', '\u00a0', '\n');

  /** Texts of characters of one width (or a few), so that lengths near each tier's bound come up. */
  const byWidth = fc
    .constantFrom(['a', 'Z', ' '], ['\u00a2', '\u00e9'], ['\u00a2', 'a'], ['\u20ac', '\u3000', '\ud800'], ['\u20ac', 'a', '\u00e9'], ['\ud83d\ude00'], ['\ud83d\ude00', 'a'], ['a', '\u0000'])
    .chain((units) => textOf(units, 0, 80));

  it(`passwords: only ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes without NUL; every ASCII one`, () => {
    const patterns = modes(passwordPattern(PASSWORD_MIN_BYTES, PASSWORD_MAX_BYTES));
    fc.assert(
      fc.property(byWidth, (password) => {
        const taken = accepts(() => parseCredentials({ email: 'a@x.test', password }));
        for (const pattern of patterns) if (pattern.test(password)) expect(taken, JSON.stringify(password)).toBe(true);
        if ([...password].every((character) => character > '\u0000' && character < '\u0080')) expect(patterns[0]!.test(password), JSON.stringify(password)).toBe(taken);
      }),
      RUNS,
    );
    expect(patterns[0]!.test('¢¢¢¢')).toBe(true);
    expect(patterns[0]!.test('é'.repeat(72))).toBe(false);
  });

  it('tokens and names: within the service\'s UTF-16 lengths, without NUL (a key name counted once trimmed)', () => {
    const token = modes(unitsText(1, REFRESH_TOKEN_MAX_LENGTH));
    const name = modes(trimmedUnitsText(API_KEY_NAME_MAX_LENGTH));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 120 }), fc.integer({ min: 0, max: 4200 }), (text, repeat) => {
        const long = text.repeat(Math.ceil(repeat / Math.max(text.length, 1))).slice(0, repeat);
        for (const pattern of token) if (pattern.test(long)) expect(accepts(() => parseRefreshBody({ refreshToken: long })), JSON.stringify(long)).toBe(true);
        const taken = accepts(() => parseKeyInput({ name: text, access: 'read' }));
        for (const pattern of name) if (pattern.test(text)) expect(taken, JSON.stringify(text)).toBe(true);
        // Exact for text of the Basic Multilingual Plane, and without the u flag for any text.
        expect(name[1]!.test(text), JSON.stringify(text)).toBe(taken);
      }),
      { numRuns: 500 },
    );
    for (const [text, taken] of [[' ci', true], ['ci\u3000\n', true], ['c i', true], [' \u00a0 ', false], [` ${'x'.repeat(100)} `, true], [` ${'x'.repeat(101)}`, false]] as const) {
      for (const pattern of name) expect(pattern.test(text), JSON.stringify(text)).toBe(taken);
      expect(accepts(() => parseKeyInput({ name: text, access: 'read' })), JSON.stringify(text)).toBe(taken);
    }
  });

  it('emails: what sign-up takes; every ASCII address it takes', () => {
    const patterns = modes(EMAIL);
    const atom = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '+', '-', '!', '~', '.', '@', ' ', '\u00fc'), minLength: 0, maxLength: 8 });
    const label = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', '.'), minLength: 0, maxLength: 8 }), fc.constant('x'.repeat(63)), fc.constant('x'.repeat(64)));
    const address = fc.tuple(atom, fc.array(label, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 70 })).map(([local, labels, padding]) => `${local}${'l'.repeat(padding)}@${labels.join('.')}`);
    fc.assert(
      fc.property(fc.oneof(address, fc.constantFrom('0@com', 'a@localhost', 'a@x.test', 'A@X.Test', 'a@1.2', `${'l'.repeat(64)}@x.test`, `${'l'.repeat(65)}@x.test`, `a@${'x.'.repeat(126)}io`)), (email) => {
        const taken = accepts(() => parseCredentials({ email, password: 'long enough' }));
        const admitted = email.length <= EMAIL_MAX_LENGTH;
        for (const pattern of patterns) if (pattern.test(email) && admitted) expect(taken, email).toBe(true);
        if (/^[\u0021-\u007f]*$/.test(email)) expect(patterns[0]!.test(email) && admitted, email).toBe(taken);
      }),
      RUNS,
    );
  });
});

describe('names', () => {
  it('order: the columns given, each .asc or .desc', () => {
    const columns = ['id', 'title', 'a.b', 'x(y)', 'c,d'];
    const [pattern] = modes(orderPattern(columns));
    const term = fc.tuple(fc.constantFrom(...columns, 'nope', ''), fc.constantFrom('.asc', '.desc', '.up', '', '.ASC')).map(([column, direction]) => column + direction);
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 3 }), (terms) => {
        const text = terms.join(',');
        const taken = accepts(() => parseOrder(text)) && parseOrder(text).every((order) => columns.includes(order.column));
        expect(pattern!.test(text), text).toBe(taken);
      }),
    );
  });

  it('admin table and column names: anything but the reserved', () => {
    const [table] = modes(noneOf(RESERVED_TABLES, SYSTEM_TABLE_PREFIXES));
    for (const name of ['users', 'sessions', '_basalt_api_keys', 'pg_class', 'posts', 'Users', 'users2', 'my table', 'a']) expect(table!.test(name), name).toBe(!isReservedTable(name));
    const [column] = modes(noneOf(MANAGED_COLUMNS));
    for (const name of ['id', 'createdAt', 'updatedAt', 'title', 'ids']) expect(column!.test(name), name).toBe(!(MANAGED_COLUMNS as readonly string[]).includes(name));
  });
});
