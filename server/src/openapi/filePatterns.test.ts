import fc from 'fast-check';
import { Metadata } from '@tus/server';
import { MAX_FILE_SIZE_LIMIT, TRANSFORM_FITS, TRANSFORM_FORMATS } from '@basalt/contract';
import { describe, expect, it } from 'vitest';
import { parseCreateTable } from '../admin/definitions.js';
import { checkName, contentDisposition } from '../files/content/names.js';
import { LinkSigner } from '../files/links/signedLinks.js';
import { parseTransform, variantName } from '../files/transform/parameters.js';
import { BYTES_HEADERS, EXPIRES_PATTERN, NAME_PATTERN, QUALITY_PATTERN, SIDE_PATTERN, SIG_PATTERN } from './fileValues.js';
import { ALLOWED_TYPE } from './schema.js';
import { BYTE_COUNT, METADATA } from './tus.js';

/**
 * The files' patterns (issue 28) held to the service's own functions, as patterns.test.ts holds the others: the
 * transform parameters (exact), a file's name (what the pattern admits the service takes; exact for ASCII), a signed
 * link's `expires` (exact) and `sig`, a bucket's `allowedTypes` and `maxFileSize` (exact), tus's byte counts (what the
 * pattern admits @tus/server reads) and Upload-Metadata (exact), and the headers a file is served with (every one the
 * service writes matches its pattern).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parts of the document

const RUNS = { numRuns: 2000 };
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
const digits = (minLength: number, maxLength: number) => textOf([...'0123456789'], minLength, maxLength);
const isAscii = (text: string) => [...text].every((character) => character.charCodeAt(0) < 0x80);
const headerPattern = (name: string) => ((BYTES_HEADERS[name] as Json).schema as Json).pattern as string;

describe('file patterns', () => {
  it('width, height and quality: whole numbers in range, up to 5 digits, exactly as the transform reads them', () => {
    for (const [name, pattern] of [['width', SIDE_PATTERN], ['height', SIDE_PATTERN], ['quality', QUALITY_PATTERN]] as const) {
      fc.assert(
        fc.property(fc.oneof(digits(1, 6), fc.constantFrom('0', '00000', '1', '4096', '04096', '4097', '100', '101', '00100', '-1', '1.0', ' 1', '1e2', '')), (value) => {
          const taken = accepts(() => parseTransform({ [name]: value }));
          for (const regex of modes(pattern)) expect(regex.test(value), `${name}=${value}`).toBe(taken);
        }),
        RUNS,
      );
    }
    for (const [name, values] of [['fit', TRANSFORM_FITS], ['format', TRANSFORM_FORMATS]] as const) {
      for (const value of [...values, 'stretch', 'gif', 'WEBP', '']) expect(accepts(() => parseTransform({ [name]: value })), `${name}=${value}`).toBe((values as readonly string[]).includes(value));
    }
  });

  it('a file\'s name: what the pattern admits the service takes; for ASCII, exactly', () => {
    const units = ['a', ' ', '.', '/', '\\', '\u0000', '\u001f', '\u007f', '\u0085', '\u00a0', '\u00e9', '\u07ff', '\u0800', '\u4e2d', '\ufeff', '\ud83d\ude00', '\ud83d', '\ude00'];
    const around = (length: number) => [Math.max(0, Math.floor(length) - 3), Math.floor(length) + 3] as const;
    const near = (length: number) => fc.oneof(textOf(['a', 'Z', '0', '-', '~', ' ', '/', '\\', '\u007f'], ...around(length)), textOf(units, ...around(length / 4)), textOf(['\u00e9', 'a'], ...around(length / 2)), textOf(['\u4e2d', 'a'], ...around(length / 3)));
    fc.assert(
      fc.property(fc.oneof(near(255), near(128), textOf(units, 0, 6)), (name) => {
        const taken = accepts(() => checkName(name));
        for (const regex of modes(NAME_PATTERN)) {
          if (regex.test(name)) expect(taken, JSON.stringify(name)).toBe(true);
          if (isAscii(name)) expect(regex.test(name), JSON.stringify(name)).toBe(taken);
        }
      }),
      RUNS,
    );
  });

  it('a signed link\'s expires: up to 12 digits, exactly; its sig: 43 characters of base64url, as signed', () => {
    const signer = new LinkSigner('a-secret-long-enough-for-the-links-0123456789');
    const subject = { table: 'photos', id: 'abc', sha256: 'f'.repeat(64) };
    fc.assert(
      fc.property(fc.oneof(digits(1, 14), fc.constantFrom('', '-1', '1.5', ' 12')), (expires) => {
        // A link made to expire at that moment, read a minute before it.
        const at = /^[0-9]+$/.test(expires) ? Number(expires) : 2_000_000_000;
        const now = (at - 60) * 1000;
        const sig = signer.sign(subject, 60, {}, now).get('sig')!;
        expect(new RegExp(SIG_PATTERN, 'u').test(sig), sig).toBe(true);
        const taken = signer.verify(subject, expires, sig, {}, now) !== null;
        for (const regex of modes(EXPIRES_PATTERN)) expect(regex.test(expires), expires).toBe(taken);
      }),
      RUNS,
    );
  });

  it('allowedTypes and maxFileSize: as a bucket\'s creation takes them, exactly', () => {
    const create = (settings: Record<string, unknown>) => accepts(() => parseCreateTable({ name: 'bucket', kind: 'files', ...settings }));
    const typeUnits = ['a', 'z', '0', '9', '/', '*', '+', '-', '.', '!', '#', '$', '&', '^', '_', 'A', ' ', ';', '='];
    fc.assert(
      fc.property(fc.oneof(textOf(typeUnits, 0, 12), fc.constantFrom('image/*', '*/*', 'image/png', 'application/vnd.api+json', `a/${'b'.repeat(127)}`, `a/${'b'.repeat(128)}`, '*/png', 'image/')), (type) => {
        const taken = create({ allowedTypes: [type] });
        for (const regex of modes(ALLOWED_TYPE)) expect(regex.test(type), type).toBe(taken);
      }),
      RUNS,
    );
    for (const size of [0, 1, 1.5, MAX_FILE_SIZE_LIMIT, MAX_FILE_SIZE_LIMIT + 1, -1]) expect(create({ maxFileSize: size }), String(size)).toBe(Number.isInteger(size) && size >= 1 && size <= MAX_FILE_SIZE_LIMIT);
  });

  it('tus: byte counts the pattern admits @tus/server reads; Upload-Metadata exactly as it reads it', () => {
    // @tus/server's header check (validators/HeaderValidator.js, not exported): a non-negative integer, written canonically.
    const canonical = (value: string) => Number.isInteger(Number(value)) && String(Number(value)) === value && Number(value) >= 0;
    fc.assert(
      fc.property(fc.oneof(digits(1, 17), fc.constantFrom('0', '00', '-0', '1e3', '9007199254740993')), (value) => {
        for (const regex of modes(BYTE_COUNT)) if (regex.test(value)) expect(canonical(value), value).toBe(true);
      }),
      RUNS,
    );
    const key = textOf(['a', 'Z', '-', '_', '!', '~', ' ', ',', '\u00e9'], 0, 3);
    const value = fc.oneof(fc.string({ maxLength: 12 }).map((text) => Buffer.from(text).toString('base64')), textOf(['A', 'b', '+', '/', '=', '-'], 0, 9));
    const pairs = fc.array(fc.tuple(key, fc.option(value)), { minLength: 0, maxLength: 4 }).map((entries) => entries.map(([name, text]) => (text === null ? name : `${name} ${text}`)).join(','));
    fc.assert(
      fc.property(pairs, (header) => {
        const names = header.split(',').map((pair) => pair.split(' ')[0]);
        const read = accepts(() => Metadata.parse(header));
        if (names.length > new Set(names).size) expect(read, header).toBe(false);
        for (const regex of modes(METADATA)) expect(regex.test(header), header).toBe(read);
      }),
      RUNS,
    );
  });

  it('the headers of a file: every ETag and Content-Disposition the service writes matches its pattern', () => {
    const etag = modes(headerPattern('ETag'));
    const sha = 'a'.repeat(64);
    fc.assert(
      fc.property(fc.record({ width: fc.option(fc.integer({ min: 1, max: 4096 })), height: fc.option(fc.integer({ min: 1, max: 4096 })), fit: fc.option(fc.constantFrom(...TRANSFORM_FITS)), format: fc.option(fc.constantFrom(...TRANSFORM_FORMATS)), quality: fc.option(fc.integer({ min: 1, max: 100 })) }), (options) => {
        const query = Object.fromEntries(Object.entries(options).filter(([, given]) => given !== null).map(([name, given]) => [name, String(given)]));
        const transform = parseTransform(Object.keys(query).length ? query : { fit: 'cover' })!;
        for (const regex of etag) {
          expect(regex.test(`"${sha}-${variantName(transform)}"`), variantName(transform)).toBe(true);
          expect(regex.test(`"${sha}"`)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    const disposition = modes(headerPattern('Content-Disposition'));
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 })), fc.constantFrom('inline', 'attachment') as fc.Arbitrary<'inline' | 'attachment'>, (name, kind) => {
        fc.pre(accepts(() => checkName(name)));
        for (const regex of disposition) expect(regex.test(contentDisposition(kind, name)), contentDisposition(kind, name)).toBe(true);
      }),
      RUNS,
    );
  });
});
