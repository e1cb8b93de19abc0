import { describe, expect, it } from 'vitest';
import { acceptOf, describeBucket, formatBytes, isTransformable, previewKindOf, sizeProblem, typeMark } from './fileKinds';

describe('how a file is shown', () => {
  it.each([
    ['image/png', 'variant'],
    ['image/jpeg', 'variant'],
    ['image/webp', 'variant'],
    ['image/svg+xml', 'image'],
    ['image/x-icon', 'image'],
    ['text/plain', 'text'],
    ['text/csv', 'text'],
    ['application/json', 'text'],
    ['application/ld+json', 'text'],
    ['application/pdf', 'none'],
    ['video/mp4', 'none'],
    ['application/octet-stream', 'none'],
  ])('%s: %s', (type, kind) => {
    expect(previewKindOf(type)).toBe(kind);
  });

  it('asks for variants only of the images the server transforms', () => {
    expect(isTransformable('image/gif')).toBe(true);
    expect(isTransformable('image/svg+xml')).toBe(false);
    expect(isTransformable('image/vnd.microsoft.icon')).toBe(false);
    expect(isTransformable('application/pdf')).toBe(false);
  });

  it.each([
    ['report.pdf', 'application/pdf', 'PDF'],
    ['notes.txt', 'text/plain', 'TXT'],
    ['archive', 'application/zip', 'ZIP'],
    ['data', 'application/ld+json', 'LD'],
    ['x.markdown', 'text/markdown', 'MARK'],
  ])('marks %s (%s) as %s', (name, type, mark) => {
    expect(typeMark(name, type)).toBe(mark);
  });
});

describe('sizes in words', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [50 * 1024 * 1024, '50 MB'],
    [5 * 1024 ** 3, '5 GB'],
    [123.4 * 1024 * 1024, '123 MB'],
  ])('%d is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe("a bucket's settings", () => {
  it("gives the picker the bucket's types, none for every type", () => {
    expect(acceptOf(['image/*', 'application/pdf'])).toBe('image/*,application/pdf');
    expect(acceptOf(null)).toBeUndefined();
    expect(acceptOf(['*/*'])).toBeUndefined();
  });

  it('says what a bucket takes', () => {
    expect(describeBucket({ maxFileSize: 1024 * 1024, allowedTypes: ['image/*', 'text/plain'] })).toBe('image/*, text/plain, up to 1 MB each.');
    expect(describeBucket({ maxFileSize: 50 * 1024 * 1024, allowedTypes: null })).toBe('Any type, up to 50 MB each.');
  });

  it('refuses a file over the size before it is sent', () => {
    const bucket = { maxFileSize: 1024, allowedTypes: null };
    expect(sizeProblem({ name: 'a.bin', size: 1024 }, 'docs', bucket)).toBeUndefined();
    expect(sizeProblem({ name: 'a.bin', size: 2048 }, 'docs', bucket)).toBe('a.bin is 2 KB; docs takes files of at most 1 KB.');
  });
});
