import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** A random one-time token (a mail's link, a sign-in step, a one-time code): 32 bytes, base64url. */
export const newToken = () => randomBytes(32).toString('base64url');

/** How such a token is stored: its SHA-256 (it has 256 bits of its own, so no key is needed). */
export const tokenDigest = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * Secrets kept at rest (outbox bodies, TOTP secrets): AES-256-GCM under a key derived from JWT_SECRET by HKDF with a
 * purpose of its own, so no key tells anything of another or of the signing secret.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function deriveKey(jwtSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), Buffer.alloc(0), purpose, 32));
}

export class Sealer {
  private readonly key: Buffer;

  constructor(jwtSecret: string, purpose: string) {
    this.key = deriveKey(jwtSecret, purpose);
  }

  seal(value: unknown): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  /** Throws when the value was sealed under another key or changed. */
  open<T>(sealed: Buffer): T {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  }
}
