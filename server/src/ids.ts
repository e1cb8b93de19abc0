import { randomBytes } from 'node:crypto';

/** A random URL-safe identifier (ids of users, sessions, records and refresh tokens, request id prefixes). */
export function randomId(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}
