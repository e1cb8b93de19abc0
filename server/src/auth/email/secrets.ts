import { createHmac, randomInt } from 'node:crypto';
import { EMAIL_CODE_LENGTH } from '@basalt/contract';
import { deriveKey, Sealer } from '../sealed.js';

/**
 * The secrets of mails (API.md, Part 2 in detail, Email): outbox bodies are sealed (AES-256-GCM, auth/sealed.ts); a
 * link's token (32 random bytes) is stored as its SHA-256; a 6-digit code, which a SHA-256 would not hide from whoever
 * reads the table, as an HMAC keyed by another derived key and bound to its proof's id.
 */
export class MailSecrets {
  private readonly bodies: Sealer;
  private readonly codeKey: Buffer;

  constructor(jwtSecret: string) {
    this.bodies = new Sealer(jwtSecret, 'basalt outbox body');
    this.codeKey = deriveKey(jwtSecret, 'basalt email code');
  }

  encrypt(value: unknown): Buffer {
    return this.bodies.seal(value);
  }

  decrypt<T>(sealed: Buffer): T {
    return this.bodies.open<T>(sealed);
  }

  codeDigest(proofId: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${proofId}\0${code}`).digest('base64url');
  }
}

export { newToken, tokenDigest } from '../sealed.js';

/** Six decimal digits, uniformly drawn. */
export const newCode = () => String(randomInt(0, 10 ** EMAIL_CODE_LENGTH)).padStart(EMAIL_CODE_LENGTH, '0');
