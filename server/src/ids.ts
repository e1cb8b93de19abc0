import { randomFillSync } from 'node:crypto';

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time and handed out in slices, never twice: `randomBytes(16)` per
 * id cost a call into OpenSSL and a buffer each, which was a quarter of the server's JavaScript time on a bulk insert
 * of 100 records (docs/performance.md). Node's own `randomUUID()` batches its entropy the same way. A forked worker
 * starts with an empty pool of its own.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** A random URL-safe identifier (ids of users, sessions, records and refresh tokens, request id prefixes). */
export function randomId(bytes = 16): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(bytes)).toString('base64url');
  if (offset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + bytes);
  // The bytes handed out are wiped: an id never lingers in the pool after it was given.
  pool.fill(0, offset, offset + bytes);
  offset += bytes;
  return id;
}
