import { describe, expect, it } from 'vitest';
import { parseTransform, variantName } from '../transform/parameters.js';
import { LinkSigner } from './signedLinks.js';

const signer = new LinkSigner('a-secret-that-is-long-enough-0123456789');
const file = { table: 'avatars', id: 'f1', sha256: 'a'.repeat(64) };
const NOW = 1_800_000_000_000;

describe('signed links', () => {
  it('open the file they were made for until they expire', () => {
    const query = signer.sign(file, 600, {}, NOW);
    expect([...query.keys()]).toEqual(['expires', 'sig']);
    expect(signer.verify(file, query.get('expires')!, query.get('sig')!, {}, NOW + 1000)).toBe(599);
    expect(signer.verify(file, query.get('expires')!, query.get('sig')!, {}, NOW + 600_000)).toBeNull();
  });

  it('stop for a replaced file, another file or table, a changed expiry, another variant, another secret', () => {
    const query = signer.sign(file, 600, { width: '128' }, NOW);
    const [expires, sig] = [query.get('expires')!, query.get('sig')!];
    expect(signer.verify(file, expires, sig, { width: '128' }, NOW)).toBe(600);
    expect(signer.verify({ ...file, sha256: 'b'.repeat(64) }, expires, sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify({ ...file, id: 'f2' }, expires, sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify({ ...file, table: 'docs' }, expires, sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify(file, String(Number(expires) + 1), sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify(file, expires, sig, { width: '256' }, NOW)).toBeNull();
    expect(signer.verify(file, expires, sig, {}, NOW)).toBeNull();
    expect(new LinkSigner('another-secret-that-is-long-enough-012345').verify(file, expires, sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify(file, '1e12', sig, { width: '128' }, NOW)).toBeNull();
    expect(signer.verify(file, expires, `${sig}x`, { width: '128' }, NOW)).toBeNull();
  });
});

describe('transform parameters', () => {
  it('none: no transform; sides round up to a multiple of 16 (at most 4,096), defaults cover and quality 80', () => {
    expect(parseTransform({})).toBeNull();
    expect(parseTransform({ width: '100' })).toEqual({ width: 112, height: null, fit: 'cover', format: null, quality: 80 });
    expect(parseTransform({ width: '4096', height: '4090', fit: 'inside', format: 'avif', quality: '1' })).toEqual({ width: 4096, height: 4096, fit: 'inside', format: 'avif', quality: 1 });
    expect(variantName(parseTransform({ width: '100', format: 'webp' })!)).toBe('w112h-cover-webp-q80');
  });

  it.each([
    [{ width: '0' }, 'width'],
    [{ width: '4097' }, 'width'],
    [{ height: '1.5' }, 'height'],
    [{ height: '-3' }, 'height'],
    [{ width: ['1', '2'] }, 'width'],
    [{ fit: 'fill' }, 'fit'],
    [{ format: 'gif' }, 'format'],
    [{ quality: '101' }, 'quality'],
    [{ quality: "80'; DROP TABLE x" }, 'quality'],
  ])('refuses %j naming %s', (query, parameter) => {
    expect(() => parseTransform(query)).toThrow(expect.objectContaining({ details: { parameter } }));
  });
});
