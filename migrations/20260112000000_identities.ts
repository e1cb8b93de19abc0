import type { Knex } from 'knex';

/**
 * Identity providers (issue 27): an identity (provider, subject) belongs to one account, at most one per provider per
 * account; `unverified_link` marks one linked while the account's address was unproven (a later proof by mail removes
 * it). A redirect flow's state lives 10 minutes, single use: the state and nonce as digests, the provider's PKCE
 * verifier sealed. A native id token's nonce is spent once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_identities (
      provider text NOT NULL,
      subject text NOT NULL,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      email text,
      unverified_link boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, subject),
      CONSTRAINT _basalt_identities_user_provider UNIQUE (user_id, provider)
    )`);
  await knex.raw(`
    CREATE TABLE _basalt_oauth_states (
      state_hash text PRIMARY KEY,
      provider text NOT NULL,
      sealed bytea NOT NULL,
      redirect_to text NOT NULL,
      code_challenge text NOT NULL,
      link_user_id text REFERENCES users (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    )`);
  await knex.raw(`CREATE INDEX _basalt_oauth_states_expires_idx ON _basalt_oauth_states (expires_at)`);
  await knex.raw(`
    CREATE TABLE _basalt_oauth_nonces (
      provider text NOT NULL,
      nonce_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (provider, nonce_hash)
    )`);
  await knex.raw(`CREATE INDEX _basalt_oauth_nonces_expires_idx ON _basalt_oauth_nonces (expires_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_oauth_nonces`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_oauth_states`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_identities`);
}
