import { MAX_TIMESTAMP_MILLIS, MIN_TIMESTAMP_MILLIS } from '@basalt/contract';

/**
 * Regular expressions (JSON Schema `pattern`, ECMA-262, read with or without the `u` flag) for the texts the service
 * takes, built from the same limits the service checks, so the document admits what the service accepts. Where a rule
 * cannot be written exactly (UTF-8 bytes, lengths in UTF-16 units, a time zone crossing the year 0000 or 9999) the
 * pattern admits a part of what the service accepts and never more; the schema's `description` states the rule.
 * server/src/openapi/patterns.test.ts holds each pattern to the service's own functions.
 */

/** Escapes a name for a pattern (only syntax characters: `\-` is an error with the `u` flag). */
export const escapeName = (name: string): string => name.replace(/[\^$\\.*+?()[\]{}|/]/g, '\\$&');

/** `^(?:a|b|c)$` of exact texts. */
export const oneOf = (texts: readonly string[]): string => `^(?:${texts.map(escapeName).join('|')})$`;

/**
 * Decimal digits whose value is at most `bound`, with leading zeros (at most `maxDigits` digits in all): fewer digits
 * than the bound's are always below it, as many are compared digit by digit, more must start with zeros.
 */
export function digitsAtMost(bound: bigint, maxDigits = Infinity): string {
  const digits = bound.toString();
  const length = digits.length;
  const sameLength: string[] = [];
  for (let at = 0; at < length; at++) {
    const digit = Number(digits[at]);
    if (digit === 0) continue;
    const rest = length - at - 1;
    sameLength.push(`${digits.slice(0, at)}${digit === 1 ? '0' : `[0-${digit - 1}]`}${rest ? `[0-9]{${rest}}` : ''}`);
  }
  sameLength.push(digits);
  const zeros = maxDigits === Infinity ? '0*' : maxDigits > length ? `0{0,${maxDigits - length}}` : '';
  return `(?:${length > 1 ? `[0-9]{1,${length - 1}}|` : ''}${zeros}(?:${sameLength.join('|')}))`;
}

/** An integer from `min` to `max` as text (`-?[0-9]+`, leading zeros and `-0` included), unanchored. */
export function integerText(min: bigint, max: bigint, maxDigits = Infinity): string {
  const negative = min < 0n ? `-${digitsAtMost(-min, maxDigits)}|` : '';
  return `(?:${negative}${digitsAtMost(max, maxDigits)})`;
}

/** A whole number from 0 to `max` (limit, offset), anchored. */
export const wholeNumber = (max: bigint): string => `^${digitsAtMost(max)}$`;

/**
 * A finite decimal (`1.5`, `-2`, `1e3`, `.5`), unanchored. Finite means below about 1.8e308: written as at most 308
 * digits before the point, or at most 8 with an exponent up to 299.
 */
export const FINITE_REAL = '(?:-?(?:[0-9]{1,308}(?:\\.[0-9]*)?|\\.[0-9]+)|-?(?:[0-9]{1,8}(?:\\.[0-9]*)?|\\.[0-9]+)[eE](?:-[0-9]+|\\+?0*(?:[0-9]{1,2}|[12][0-9]{2})))';

const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
/** Years divisible by 4, but not by 100 unless by 400 (0000 included). */
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const TIME = '(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?';
const OFFSET = '(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])';
/** Where a value ends: the end of the text, or of a list item. */
const END = '(?![^,"])';
/**
 * A time zone that could carry the first day of 0000 back into the year -1, or the last of 9999 on into 10000: any
 * offset east of UTC on 0000-01-01, west on 9999-12-31 (a zero offset is fine).
 */
const CROSSES_THE_RANGE = `(?!0000-01-01[Tt ][^+,"]*\\+(?!00:?00${END}))(?!9999-12-31[Tt ][^-,"]*-(?!00:?00${END}))`;

/**
 * An ISO 8601 date or date-time as the service reads it: a real calendar day of the years 0000-9999, `T`, `t` or a
 * space, hours and minutes, optional seconds with up to 9 decimals, an optional offset (`Z`, `+01:00`, `+0100`; none
 * means UTC). Unanchored.
 */
export const ISO_TIMESTAMP = `${CROSSES_THE_RANGE}(?:[0-9]{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)(?:[Tt ]${TIME}${OFFSET}?)?`;

/** Epoch milliseconds as text: at most 16 digits (leading zeros included), within the years 0000-9999. Unanchored. */
export const EPOCH_MILLIS = integerText(BigInt(MIN_TIMESTAMP_MILLIS), BigInt(MAX_TIMESTAMP_MILLIS), 16);

/** A timestamp as text: ISO 8601 or epoch milliseconds. Unanchored. */
export const TIMESTAMP_TEXT = `(?:${ISO_TIMESTAMP}|${EPOCH_MILLIS})`;

/**
 * An `in`/`nin` list: 1 to `max` items separated by commas, each plain or in double quotes (a quote inside doubled).
 * `item` is the pattern of one value; `quoted` that of a value inside quotes, when it may hold a comma or a quote.
 */
export function listOf(item: string, max: number, quoted = `"${item}"`): string {
  const one = `(?:${item}|${quoted})`;
  return `^${one}(?:,${one}){0,${max - 1}}$`;
}

/** Text items: plain (no NUL, comma or quote) or quoted (no NUL), each of at most `maxLength` characters. */
export function textListItems(max: number, maxLength: number | null): string {
  const count = maxLength === null ? '*' : `{0,${maxLength}}`;
  return listOf(`[^,"\\u0000]${count}`, max, `"(?:[^"\\u0000]|"")${count}"`);
}

/**
 * A password: 8 to 72 bytes of UTF-8 (bcrypt reads 72) without NUL. A pattern counts characters, not bytes, so it
 * admits what is within the limits whatever its characters are: ASCII 8-72 characters (exact), up to U+07FF 8-36,
 * the rest of the BMP 8-24, anything 8-18, and 4-18 characters none of which is ASCII (each is 2 bytes or more).
 */
export function passwordPattern(minBytes: number, maxBytes: number): string {
  const tiers = [
    `[\\u0001-\\u007F]{${minBytes},${maxBytes}}`,
    `[\\u0001-\\u07FF]{${minBytes},${Math.floor(maxBytes / 2)}}`,
    `[\\u0001-\\uFFFF]{${minBytes},${Math.floor(maxBytes / 3)}}`,
    `[^\\u0000]{${minBytes},${Math.floor(maxBytes / 4)}}`,
    `[^\\u0000-\\u007F]{${Math.ceil(minBytes / 2)},${Math.floor(maxBytes / 4)}}`,
  ];
  return `^(?:${tiers.join('|')})$`;
}

/**
 * Text of `min` to `max` UTF-16 code units (JavaScript's length, which the service's limits count) without NUL: exact
 * for text in the Basic Multilingual Plane; with characters beyond it (two units each) up to half as many characters.
 */
export function unitsText(min: number, max: number): string {
  return `^(?:[\\u0001-\\uFFFF]{${min},${max}}|[^\\u0000]{${min},${Math.floor(max / 2)}})$`;
}

/**
 * White space as JavaScript's `\s` and String.prototype.trim know it, spelled out: other engines' `\s` differ (Python's
 * takes U+001C-U+001F, which trim keeps).
 */
const SPACE = '[\\u0009-\\u000D\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
/** A BMP character that is neither NUL nor white space: the rest of U+0001-U+FFFF. */
const SOLID = '[\\u0001-\\u0008\\u000E-\\u001F\\u0021-\\u009F\\u00A1-\\u167F\\u1681-\\u1FFF\\u200B-\\u2027\\u202A-\\u202E\\u2030-\\u205E\\u2060-\\u2FFF\\u3001-\\uFEFE\\uFF00-\\uFFFF]';

/**
 * Text the service trims, then holds to 1 to `max` UTF-16 code units without NUL (a key's name): any white space at
 * either end, around 1 to `max` units that neither start nor end with it. Exact read without the `u` flag (in UTF-16
 * code units); with it, exact for text in the Basic Multilingual Plane, and no character beyond it is admitted.
 */
export function trimmedUnitsText(max: number): string {
  return `^${SPACE}*${SOLID}(?:[\\u0001-\\uFFFF]{0,${max - 2}}${SOLID})?${SPACE}*$`;
}

const ATEXT = "[A-Za-z0-9_!#$%&'*+/=?^`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/**
 * An email address the service takes, in ASCII: a dot-atom local part of at most 64 characters and a domain of two
 * labels or more, the last starting with a letter. (The schema's maxLength bounds the whole; the service also takes
 * internationalised addresses, and trims and lower-cases before it checks.)
 */
export const EMAIL = `^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${TOP_LABEL}$`;

/** A BCP 47 language tag as sign-up and the sending endpoints take it (`en`, `pt-BR`); the schema's maxLength bounds it. */
export const LOCALE = '^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$';

/** The code of a mail: exactly `length` ASCII digits. */
export const digitsCode = (length: number): string => `^[0-9]{${length}}$`;

/** RFC 7636: a PKCE verifier, or an S256 challenge (43 characters), of 43 to 128 unreserved characters. */
export const PKCE = '^[A-Za-z0-9._~-]{43,128}$';

/** `<column>.asc|desc`, comma-separated, of these columns (a name holding a comma cannot be written). */
export function orderPattern(columns: readonly string[]): string {
  const term = `(?:${columns.filter((name) => !name.includes(',')).map(escapeName).join('|')})\\.(?:asc|desc)`;
  return `^${term}(?:,${term})*$`;
}

/** Any non-empty text but these names and names starting with these prefixes. */
export function noneOf(names: readonly string[], prefixes: readonly string[] = []): string {
  const exact = names.length ? `(?!(?:${names.map(escapeName).join('|')})$)` : '';
  const starts = prefixes.length ? `(?!${prefixes.map(escapeName).join('|')})` : '';
  return `^${exact}${starts}[\\s\\S]+$`;
}
