import type { Readable } from 'node:stream';

/**
 * Where a bucket's bytes live (issue 28): a local directory or any S3-compatible store, behind one interface. Keys are
 * Basalt's own (`<table>/<id>/<sha256>`, API.md, Part 2 in detail, Files): names never enter a key. Bytes always
 * stream through Basalt, never whole in memory. No listing: which keys exist is Basalt's to know from Postgres (the
 * upload intents and the rows), so the sweep never depends on a store's inventory (the test S3 server, s3rver 5.0.0,
 * also refuses the SDK's signature of bucket listings).
 */
export interface ObjectStore {
  /** `file` or `s3`: what `/admin/settings` shows as `storage.driver`. */
  readonly driver: 'file' | 's3';
  /** Streams `body` to `key` (replacing an object of that key); the object appears whole or not at all. */
  put(key: string, body: Readable): Promise<void>;
  /** The bytes of `key`, all or `[start, end]` (inclusive); null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  /** A small object's bytes at once (null when there is none): a driver that reads them cheaper than as a stream. */
  readWhole?(key: string): Promise<Buffer | null>;
  /** Moves an object to another key (replacing one there): a finished upload's staging object to its content's key. */
  move(from: string, to: string): Promise<void>;
  /** Removes `key`; an absent key is not an error. */
  delete(key: string): Promise<void>;
}

export interface ByteRange {
  start: number;
  end: number;
}

/** A key of Basalt's: `/`-separated segments of letters, digits, `_`, `-` and `.` (never `.` or `..` alone). */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,255}$/;

export function checkKey(key: string): string {
  const segments = key.split('/');
  if (segments.length === 0 || segments.some((segment) => !SEGMENT.test(segment))) throw new TypeError(`not a storage key: ${JSON.stringify(key)}`);
  return key;
}
