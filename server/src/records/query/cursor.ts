import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParameter } from '../../errors.js';

/**
 * Keyset cursors: the order keys of a page's last row, as Postgres prints them (so timestamps keep their
 * microseconds), bound to the query they came from (table, order, filters) and signed, so a cursor that was tampered
 * with or moved to another query is a 400 naming `after` rather than a page from somewhere else.
 */

export type CursorKey = Buffer;

/** The key cursors are signed with, derived from the service secret: every process of a project shares it. */
export function cursorKeyFrom(secret: string): CursorKey {
  return createHmac('sha256', secret).update('basalt keyset cursor').digest();
}

const MAC_LENGTH = 16;

// Every page of a list signs a `next`: the digest of its query is the same for every page, so it is kept.
const digests = new Map<string, string>();

function bindingDigest(binding: string): string {
  let digest = digests.get(binding);
  if (digest === undefined) {
    digest = createHash('sha256').update(binding).digest('base64url').slice(0, 16);
    if (digests.size >= 1_000) digests.clear();
    digests.set(binding, digest);
  }
  return digest;
}

function mac(key: CursorKey, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_LENGTH);
}

export function encodeCursor(key: CursorKey, binding: string, values: Array<string | null>): string {
  const payload = Buffer.from(JSON.stringify({ b: bindingDigest(binding), v: values })).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

const refused = () => invalidParameter('after', 'after is not a cursor of this table, order and filters (use the `next` of the previous page)');

/**
 * A cursor as `encodeCursor` writes it, exactly: base64url without padding in both parts, the signature its 22
 * characters. Node's base64 decoder skips what it does not understand (`%00`, a newline, `+` and `/`), so without
 * this a cursor with bytes appended decoded to the same page.
 */
const CURSOR_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

/** Whether `text` is the one base64url spelling of its bytes (no stray bits in the last character). */
const canonical = (text: string, bytes: Buffer) => bytes.toString('base64url') === text;

/** The order keys of the row a page starts after; 400 naming `after` for anything but this query's own cursor. */
export function decodeCursor(key: CursorKey, binding: string, cursor: string, length: number): Array<string | null> {
  if (!CURSOR_SHAPE.test(cursor)) throw refused();
  const [payload, signature] = cursor.split('.') as [string, string];
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== MAC_LENGTH || !canonical(signature, given) || !timingSafeEqual(given, mac(key, payload))) throw refused();
  let body: unknown;
  try {
    const bytes = Buffer.from(payload, 'base64url');
    if (!canonical(payload, bytes)) throw refused();
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw refused();
  }
  const { b, v } = (body ?? {}) as { b?: unknown; v?: unknown };
  if (b !== bindingDigest(binding) || !Array.isArray(v) || v.length !== length) throw refused();
  if (!v.every((value) => value === null || typeof value === 'string')) throw refused();
  return v as Array<string | null>;
}
