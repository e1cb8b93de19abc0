import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { AUTH_CODE_TTL_SECONDS } from '@basalt/contract';
import { invalidField } from '../errors.js';
import { newToken, tokenDigest } from './sealed.js';

/**
 * The one-time code a sign-in hands to the app's `redirectTo` (a sign-in link through Basalt's confirm page, or an
 * identity provider's callback), exchanged once within 5 minutes with the PKCE verifier whose S256 the app sent first
 * (`POST /auth/oauth/exchange`): tokens never travel in a URL. Stored as a digest.
 */
export async function issueAuthCode(trx: Knex.Transaction, userId: string, codeChallenge: string): Promise<string> {
  const code = newToken();
  await trx.raw(`INSERT INTO _basalt_auth_codes (code_hash, user_id, code_challenge, expires_at) VALUES (?, ?, ?, now() + make_interval(secs => ?))`, [
    tokenDigest(code),
    userId,
    codeChallenge,
    AUTH_CODE_TTL_SECONDS,
  ]);
  return code;
}

const invalidExchange = () => invalidField('code', 'The code is unknown, was already used, has expired or does not match codeVerifier');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Spends the code (whatever the outcome) and answers its account's id, or refuses naming `code`. */
export async function redeemAuthCode(trx: Knex.Transaction, code: string, codeVerifier: string): Promise<string> {
  const used = await trx.raw<{ rows: Array<{ user_id: string; code_challenge: string }> }>(
    `DELETE FROM _basalt_auth_codes WHERE code_hash = ? AND expires_at > now() RETURNING user_id, code_challenge`,
    [tokenDigest(code)],
  );
  const row = used.rows[0];
  const expected = row ? Buffer.from(row.code_challenge) : Buffer.alloc(0);
  const given = Buffer.from(s256(codeVerifier));
  if (!row || expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidExchange();
  return row.user_id;
}
