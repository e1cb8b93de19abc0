import { createHmac, randomBytes } from 'node:crypto';

/**
 * The Standard Webhooks signature (standardwebhooks.com; API.md, Webhooks): a secret is `whsec_` + base64 of 32 random
 * bytes; `webhook-signature` is `v1,` + base64 of HMAC-SHA256 under those bytes of `<webhook-id>.<webhook-timestamp>.<body>`.
 * While a rotated secret is still valid (24 h) each attempt carries both signatures, space-separated, so a receiver
 * with either secret verifies it.
 */

export const SECRET_PREFIX = 'whsec_';
/** How long the secret before a rotation keeps signing. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The Standard Webhooks headers of one attempt: a fresh timestamp, one signature per valid secret. */
export function signedHeaders(secrets: readonly string[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}

/**
 * When a failed delivery is tried again (API.md: about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h, each
 * +-20 %): the delay after attempt `attempts` failed.
 */
const SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
const THEN_EVERY_MS = 2 * 3_600_000;
/** A delivery still failing this long after it was made is dead (kept for a manual retry or a replay). */
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;

export function retryDelayMs(attempts: number, random = Math.random): number {
  const base = SCHEDULE_MS[attempts - 1] ?? THEN_EVERY_MS;
  return Math.round(base * (0.8 + 0.4 * random()));
}
