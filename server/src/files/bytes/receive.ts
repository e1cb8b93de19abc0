import { createHash, randomBytes } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { ApiError, invalidField } from '../../errors.js';
import { TypeSniffer, typeAllowed } from '../content/types.js';
import { fileKey, type ObjectRegistry } from '../storage/objects.js';

/**
 * An upload's bytes on their way to storage (API.md, Files): streamed, never held whole; counted against the limit
 * while they stream (past it the request fails with 413 and nothing is kept); hashed (SHA-256) and typed from their
 * own bytes as they go. They land under a staging key registered first, then move to `<table>/<id>/<sha256>`,
 * registered before the move: whatever happens afterwards (a refused create, a crash), the sweep finds them.
 */

export interface Received {
  key: string;
  size: number;
  sha256: string;
  type: string;
}

export interface ReceiveOptions {
  table: string;
  recordId: string;
  /** Bytes accepted: past it, 413. */
  maxBytes: number;
  /** Why the limit is what it is: the bucket's maxFileSize or the account's storage (the 413's message). */
  limitReason: string;
  /** The request's Content-Type: a hint that may refine text (types.ts). */
  hint?: string | null;
  allowedTypes: readonly string[] | null;
}

export const tooLarge = (reason: string) => new ApiError('PAYLOAD_TOO_LARGE', reason);

/** Counts, hashes and sniffs the bytes going by; fails past the limit. */
class Inspector extends Transform {
  size = 0;
  readonly hash = createHash('sha256');
  readonly sniffer = new TypeSniffer();

  constructor(
    private readonly maxBytes: number,
    private readonly limitReason: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(tooLarge(this.limitReason));
      return;
    }
    this.hash.update(chunk);
    this.sniffer.push(chunk);
    done(null, chunk);
  }
}

export async function receive(registry: ObjectRegistry, body: Readable, options: ReceiveOptions): Promise<Received> {
  const { table, recordId } = options;
  const staging = `${table}/${recordId}/upload-${randomBytes(12).toString('hex')}`;
  await registry.register({ key: staging, table, recordId, sha256: null });
  const inspector = new Inspector(options.maxBytes, options.limitReason);
  // The source's own failure (a client gone midway) ends the inspector too, so the store's write fails and cleans up.
  body.once('error', (error) => inspector.destroy(error));
  body.once('aborted', () => inspector.destroy(new ApiError('VALIDATION_ERROR', 'The upload was interrupted')));
  try {
    await registry.store.put(staging, body.pipe(inspector));
    const sha256 = inspector.hash.digest('hex');
    const type = await inspector.sniffer.result(options.hint);
    if (!typeAllowed(type, options.allowedTypes)) {
      throw invalidField('type', `${table} accepts ${options.allowedTypes!.join(', ')}; this file is ${type}`);
    }
    const key = fileKey(table, recordId, sha256);
    await registry.register({ key, table, recordId, sha256, size: inspector.size });
    await registry.store.move(staging, key);
    await registry.forget(staging);
    return { key, size: inspector.size, sha256, type };
  } catch (error) {
    await registry.remove([staging]);
    throw error;
  }
}
