import { PassThrough, Readable } from 'node:stream';
import { randomId } from '../../ids.js';
import { uploadPartsOf, type ObjectRegistry } from '../storage/objects.js';

/**
 * A resumable upload's bytes: one object per request that brought some (S3 cannot append, so a part is never
 * extended), registered before it is written under the variant `tus:<upload id>`, which the sweep keeps while the
 * upload's row exists (storage/objects.ts). The file is the parts read in order, once the last byte is in.
 */

/** An upload's state as `_basalt_file_uploads` holds it. */
export interface UploadRow {
  id: string;
  table_name: string;
  record_id: string;
  creator: string | null;
  size: number;
  offset: number;
  parts: number;
  part_keys: string[];
  metadata: Record<string, string>;
  completed_record: string | null;
  created_at: Date;
}

/** bigint columns arrive as text, timestamps as the pool's type parsers leave them (text here). */
export function uploadRow(raw: Record<string, unknown>): UploadRow {
  return {
    ...(raw as unknown as UploadRow),
    size: Number(raw.size),
    offset: Number(raw.offset),
    parts: Number(raw.parts),
    created_at: new Date(raw.created_at as string | Date),
  };
}

/**
 * A fresh key per part (its number, then a nonce): two requests that both believed they were at the same offset
 * never write one object, so the one that loses the offset's compare-and-set deletes only its own bytes.
 */
export const partKey = (row: UploadRow) => `${row.table_name}/${row.record_id}/upload-${row.id}-${row.parts}-${randomId(6)}`;

/**
 * Stores what `source` brings as one part and says how many bytes that was. A source that fails midway (the client
 * gone, the connection cut) ends the part where it failed rather than discarding it: the bytes that did arrive are a
 * prefix of the upload, and keeping them is what lets the client resume from there instead of from the last part.
 */
export async function storePart(registry: ObjectRegistry, row: UploadRow, source: Readable): Promise<{ key: string; bytes: number }> {
  const key = partKey(row);
  await registry.register({ key, table: row.table_name, recordId: row.record_id, sha256: null, variant: uploadPartsOf(row.id) });
  let bytes = 0;
  const part = new PassThrough();
  const end = () => {
    source.unpipe(part);
    if (!part.writableEnded) part.end();
  };
  source.on('data', (chunk: Buffer) => (bytes += chunk.length));
  source.once('error', end);
  source.once('close', end);
  source.pipe(part);
  try {
    await registry.store.put(key, part);
  } catch (error) {
    await registry.remove([key]);
    throw error;
  }
  return { key, bytes };
}

/** The upload's bytes, its parts one after another. */
export function readParts(registry: ObjectRegistry, keys: readonly string[]): Readable {
  async function* chunks() {
    for (const key of keys) {
      const part = await registry.store.get(key);
      if (!part) throw new Error(`the stored part ${key} of a resumable upload is missing`);
      yield* part;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
