import type { Knex } from 'knex';

/**
 * An account's address proven by mail (verification, recovery, a sign-in link or code): it is verified now, and every
 * provider identity linked while it was not (a provider that did not vouch for the address made the account) is
 * removed and every session of the account ends, so whoever claimed the address at the provider loses the way in
 * (API.md, Part 2 in detail, "Identity providers and the second factor").
 */
export async function addressProven(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx('users').where({ id: userId }).update({ email_verified: true });
  const removed = await trx('_basalt_identities').where({ user_id: userId, unverified_link: true }).delete();
  if (removed > 0) await trx('sessions').where({ user_id: userId }).delete();
}
