import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';
import { EMAIL_CODE_LENGTH } from '@basalt/contract';

/**
 * The secrets of mails (API.md, Part 2 in detail, Email): outbox bodies are encrypted with AES-256-GCM under a key
 * derived from JWT_SECRET (HKDF, so neither key tells anything of the other); a link's token (32 random bytes) is
 * stored as its SHA-256; a 6-digit code, which a SHA-256 would not hide from whoever reads the table, as an HMAC keyed
 * by another derived key and bound to its proof's id.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class MailSecrets {
  private readonly bodyKey: Buffer;
  private readonly codeKey: Buffer;

  constructor(jwtSecret: string) {
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), Buffer.alloc(0), info, 32));
    this.bodyKey = derive('basalt outbox body');
    this.codeKey = derive('basalt email code');
  }

  encrypt(value: unknown): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.bodyKey, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  decrypt<T>(sealed: Buffer): T {
    const decipher = createDecipheriv('aes-256-gcm', this.bodyKey, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  }

  codeDigest(proofId: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${proofId}\0${code}`).digest('base64url');
  }
}

export const tokenDigest = (token: string) => createHash('sha256').update(token).digest('base64url');

export const newToken = () => randomBytes(32).toString('base64url');

/** Six decimal digits, uniformly drawn. */
export const newCode = () => String(randomInt(0, 10 ** EMAIL_CODE_LENGTH)).padStart(EMAIL_CODE_LENGTH, '0');
