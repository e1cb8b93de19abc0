import type { Knex } from 'knex';

/**
 * The second factor (issue 27): TOTP per account (the secret sealed, the last time step used so each is accepted
 * once), recovery codes as digests, the short-lived tokens of a sign-in waiting for its second step, and the
 * assurance level of each session (1, or 2 after a second factor), which refreshes keep.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sessions ADD COLUMN aal smallint NOT NULL DEFAULT 1 CHECK (aal IN (1, 2))`);
  await knex.raw(`
    CREATE TABLE _basalt_totp (
      user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      secret bytea NOT NULL,
      enabled boolean NOT NULL DEFAULT false,
      last_step bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      enabled_at timestamptz
    )`);
  await knex.raw(`
    CREATE TABLE _basalt_recovery_codes (
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      PRIMARY KEY (user_id, code_hash)
    )`);
  await knex.raw(`
    CREATE TABLE _basalt_mfa_tokens (
      token_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      user_agent text,
      wrong_codes integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL
    )`);
  await knex.raw(`CREATE INDEX _basalt_mfa_tokens_expires_idx ON _basalt_mfa_tokens (expires_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_mfa_tokens`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_recovery_codes`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_totp`);
  await knex.raw(`ALTER TABLE sessions DROP COLUMN IF EXISTS aal`);
}
