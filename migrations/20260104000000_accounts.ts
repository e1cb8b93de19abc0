import type { Knex } from 'knex';

/**
 * Accounts that hold up in the open (API.md, "Accounts: abuse limits, sessions, passwords, keys"):
 * - sessions keep one id per device through refreshes, with when they were last used and by what user agent;
 * - `_basalt_limits`: the abuse counters every process shares (fixed windows; expired ones are deleted in the
 *   background);
 * - `_basalt_reset_tokens`: single-use password reset tokens, stored as sha256 digests;
 * - `_basalt_api_keys`: per-user API keys, stored as sha256 digests.
 * Names starting with `_` are never served by the record API.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sessions ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now(), ADD COLUMN user_agent text`);

  await knex.raw(`
    CREATE TABLE _basalt_limits (
      key text PRIMARY KEY,
      hits integer NOT NULL,
      window_end timestamptz NOT NULL
    )`);
  await knex.raw(`CREATE INDEX _basalt_limits_window_end_idx ON _basalt_limits (window_end)`);

  await knex.raw(`
    CREATE TABLE _basalt_reset_tokens (
      token_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw(`CREATE INDEX _basalt_reset_tokens_user_id_idx ON _basalt_reset_tokens (user_id)`);

  await knex.raw(`
    CREATE TABLE _basalt_api_keys (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      access text NOT NULL CHECK (access IN ('read', 'read-write')),
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      last_used_at timestamptz
    )`);
  await knex.raw(`CREATE INDEX _basalt_api_keys_user_id_idx ON _basalt_api_keys (user_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_api_keys`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_reset_tokens`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_limits`);
  await knex.raw(`ALTER TABLE sessions DROP COLUMN IF EXISTS user_agent, DROP COLUMN IF EXISTS last_used_at`);
}
