import { describe, expect, it } from 'vitest';
import { MAX_FILE_SIZE_LIMIT } from '@basalt/contract';
import { bucketColumnProblem, checkBucket, newBucketDraft, parseTypes, type BucketDraft } from './bucketRules';
import { checkCreateTable, defaultPolicy, newColumnDraft } from './validation';

/**
 * New table's bucket settings: the verdicts the form gives before sending, on the fields the server names for the
 * same body (`maxFileSize`, `allowedTypes`, `columns.N.name`); what it sends when they pass.
 */
const draft = (patch: Partial<BucketDraft>): BucketDraft => ({ ...newBucketDraft(), ...patch });

describe("a new bucket's largest file", () => {
  it.each([
    ['', 'MB', undefined],
    ['1', 'MB', 1024 ** 2],
    [' 10 ', 'KB', 10 * 1024],
    ['1.5', 'MB', 1.5 * 1024 ** 2],
    ['5', 'GB', MAX_FILE_SIZE_LIMIT],
  ] as const)('%j %s is %s bytes', (text, unit, bytes) => {
    const checked = checkBucket(draft({ maxSizeText: text, unit }));
    expect(checked.errors).toEqual({});
    expect(checked.settings.maxFileSize).toBe(bytes);
  });

  it.each([
    ['0', 'MB'],
    ['0.0001', 'KB'],
    ['-1', 'MB'],
    ['ten', 'MB'],
    ['1e3', 'MB'],
    ['5.01', 'GB'],
  ] as const)('%j %s is refused on maxFileSize', (text, unit) => {
    expect(Object.keys(checkBucket(draft({ maxSizeText: text, unit })).errors)).toEqual(['maxFileSize']);
  });
});

describe("a new bucket's allowed types", () => {
  it('reads them comma- or space-separated, in lower case, once each', () => {
    expect(parseTypes(' image/*, Application/PDF  text/plain,,image/*')).toEqual(['image/*', 'application/pdf', 'text/plain']);
  });

  it.each(['image/*', 'image/png', '*/*', 'application/vnd.ms-excel', 'application/ld+json', 'video/x-matroska'])('takes %s', (type) => {
    expect(checkBucket(draft({ typesText: type })).settings.allowedTypes).toEqual([type]);
  });

  it.each(['image', '*/png', 'image/', '/png', 'image/png/x', 'image/p ng;', '-image/png'])('refuses %j on allowedTypes', (type) => {
    expect(Object.keys(checkBucket(draft({ typesText: type })).errors)).toEqual(['allowedTypes']);
  });

  it('refuses more than 64', () => {
    const many = Array.from({ length: 65 }, (_, i) => `image/x${i}`).join(',');
    expect(checkBucket(draft({ typesText: many })).errors.allowedTypes).toBe('At most 64 types.');
  });
});

describe('a new bucket as a whole', () => {
  it('is sent as kind files, with only the settings given', () => {
    const checked = checkCreateTable('photos', [], '', draft({ maxSizeText: '2', typesText: 'image/*' }));
    expect(checked.input).toEqual({ name: 'photos', columns: [], kind: 'files', maxFileSize: 2 * 1024 ** 2, allowedTypes: ['image/*'] });
    expect(checkCreateTable('docs', [], 'private', newBucketDraft()).input).toEqual({ name: 'docs', columns: [], kind: 'files', policy: 'private' });
  });

  it('refuses metadata columns named like its file columns or a second owner column', () => {
    for (const name of ['name', 'type', 'size', 'sha256', 'user_id', 'userId']) {
      const checked = checkCreateTable('photos', [newColumnDraft({ name })], '', newBucketDraft());
      expect(Object.keys(checked.errors), name).toEqual(['columns.0.name']);
      expect(bucketColumnProblem(name)).toBeDefined();
    }
    expect(checkCreateTable('photos', [newColumnDraft({ name: 'caption' })], '', newBucketDraft()).input?.columns).toEqual([
      { name: 'caption', type: 'text', nullable: true, unique: false },
    ]);
  });

  it('is owner-scoped unless told otherwise: user_id is its owner column', () => {
    expect(defaultPolicy([], true)).toBe('owner-scoped');
    expect(defaultPolicy([], false)).toBe('private');
  });

  it('leaves a table of records as it was', () => {
    expect(checkCreateTable('notes', [newColumnDraft({ name: 'size' })], '').input).toEqual({
      name: 'notes',
      columns: [{ name: 'size', type: 'text', nullable: true, unique: false }],
    });
  });
});
