import { ALLOWED_TYPE_PATTERN, DEFAULT_MAX_FILE_SIZE, FILE_COLUMNS, MAX_FILE_SIZE_LIMIT, isOwnerColumnName } from '@basalt/contract';
import type { FieldErrors } from '../../errors';
import { formatBytes } from '../Files/fileKinds';

/**
 * A bucket's settings as New table takes them (`kind: "files"`, `maxFileSize`, `allowedTypes`), checked as the server
 * checks them (server/src/admin/definitions.ts) so a typo is pointed at before the round trip.
 */

export const SIZE_UNITS = { KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as const;
export type SizeUnit = keyof typeof SIZE_UNITS;

/** The bucket part of the form, as typed. Empty size: the server's default (50 MB); empty types: every type. */
export interface BucketDraft {
  maxSizeText: string;
  unit: SizeUnit;
  typesText: string;
}

export function newBucketDraft(): BucketDraft {
  return { maxSizeText: '', unit: 'MB', typesText: '' };
}

/** A pattern of `allowedTypes` (the contract's, as the server checks it). */
export const TYPE_PATTERN = ALLOWED_TYPE_PATTERN;
export const MAX_ALLOWED_TYPES = 64;

export const DEFAULT_SIZE_TEXT = formatBytes(DEFAULT_MAX_FILE_SIZE);

export interface BucketSettings {
  maxFileSize?: number;
  allowedTypes?: string[];
}

/** The size in bytes (a fraction of a unit is rounded to whole bytes), or why it cannot be one. */
function checkSize(draft: BucketDraft): { value?: number; problem?: string } {
  const text = draft.maxSizeText.trim();
  if (text === '') return {};
  if (!/^\d+(\.\d+)?$/.test(text)) return { problem: 'Enter a number, such as 10 or 1.5.' };
  const bytes = Math.round(Number(text) * SIZE_UNITS[draft.unit]);
  if (bytes < 1) return { problem: 'A bucket takes files of at least 1 byte.' };
  if (bytes > MAX_FILE_SIZE_LIMIT) return { problem: `At most ${formatBytes(MAX_FILE_SIZE_LIMIT)}.` };
  return { value: bytes };
}

/** The types as typed, comma- or space-separated; the names are case-insensitive, so they are sent in lower case. */
export function parseTypes(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((part) => part.trim().toLowerCase()).filter(Boolean))];
}

function checkTypes(text: string): { value?: string[]; problem?: string } {
  const types = parseTypes(text);
  if (types.length === 0) return {};
  const wrong = types.find((type) => !TYPE_PATTERN.test(type));
  if (wrong) return { problem: `${wrong} is not a type: write type/subtype, such as image/png, or image/* for every image.` };
  if (types.length > MAX_ALLOWED_TYPES) return { problem: `At most ${MAX_ALLOWED_TYPES} types.` };
  return { value: types };
}

/** Checks the bucket's settings; errors are keyed as the server names the fields. */
export function checkBucket(draft: BucketDraft): { errors: FieldErrors; settings: BucketSettings } {
  const errors: FieldErrors = {};
  const settings: BucketSettings = {};
  const size = checkSize(draft);
  if (size.problem) errors.maxFileSize = size.problem;
  else if (size.value !== undefined) settings.maxFileSize = size.value;
  const types = checkTypes(draft.typesText);
  if (types.problem) errors.allowedTypes = types.problem;
  else if (types.value) settings.allowedTypes = types.value;
  return { errors, settings };
}

/** Why a metadata column's name does not fit a bucket (the server's refusals), or undefined. */
export function bucketColumnProblem(name: string): string | undefined {
  if ((FILE_COLUMNS as readonly string[]).includes(name)) return `${name} is a file column every bucket has.`;
  if (isOwnerColumnName(name)) return `${name} would be a second owner column: a bucket's owner column is user_id, the uploader.`;
  return undefined;
}
