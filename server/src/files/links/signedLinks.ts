import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../auth/sealed.js';
import { MAX_SIGNED_LINK_SECONDS, TRANSFORM_PARAMETERS } from '@basalt/contract';

/**
 * Signed links (API.md, Files): `PUBLIC_URL/files/:table/:id?expires=<epoch s>&sig=<HMAC>`, the HMAC (SHA-256, a key
 * derived from JWT_SECRET for this purpose alone) over the table, the id, the file's sha256, `expires` and the
 * transform parameters present, so a replaced file's old links stop and a link for one variant opens no other.
 * At most 7 days.
 */
export const MAX_EXPIRES_IN_SECONDS = MAX_SIGNED_LINK_SECONDS;

export interface LinkSubject {
  table: string;
  id: string;
  sha256: string;
}

export class LinkSigner {
  private readonly key: Buffer;

  constructor(jwtSecret: string) {
    this.key = deriveKey(jwtSecret, 'basalt signed file links');
  }

  private mac(subject: LinkSubject, expires: number, transform: Record<string, string>): string {
    const parts = [subject.table, subject.id, subject.sha256, String(expires), ...TRANSFORM_PARAMETERS.filter((name) => name in transform).map((name) => `${name}=${transform[name]}`)];
    // NUL cannot occur in any part (table names, ids, hex, digits, checked parameters): an unambiguous join.
    return createHmac('sha256', this.key).update(parts.join('\u0000')).digest('base64url');
  }

  /** The query of a link valid for `expiresIn` seconds from `now` (ms). */
  sign(subject: LinkSubject, expiresIn: number, transform: Record<string, string> = {}, now = Date.now()): URLSearchParams {
    const expires = Math.floor(now / 1000) + expiresIn;
    const query = new URLSearchParams();
    for (const name of TRANSFORM_PARAMETERS) if (name in transform) query.set(name, transform[name]!);
    query.set('expires', String(expires));
    query.set('sig', this.mac(subject, expires, transform));
    return query;
  }

  /** Seconds the link has left, or null when it is not one of ours for this file as it is now, or has expired. */
  verify(subject: LinkSubject, expires: string, sig: string, transform: Record<string, string>, now = Date.now()): number | null {
    if (!/^[0-9]{1,12}$/.test(expires)) return null;
    const left = Number(expires) - Math.floor(now / 1000);
    if (left <= 0) return null;
    const expected = Buffer.from(this.mac(subject, Number(expires), transform));
    const given = Buffer.from(sig);
    return expected.length === given.length && timingSafeEqual(expected, given) ? left : null;
  }
}
