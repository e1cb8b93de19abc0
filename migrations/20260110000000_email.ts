import type { Knex } from 'knex';

/**
 * Email (issue 26):
 * - `users` gains `email_verified`, `locale`, and a nullable `password_hash` (an account made by an emailed sign-in
 *   code or an invite has no password until it sets one);
 * - `_basalt_email_proofs`: what a mail proves, one row per mail: the link's token and the 6-digit code, both stored
 *   only as digests, with their expiry and the wrong codes counted;
 * - `_basalt_outbox`: every mail, written in the transaction that makes its proof, sent by whichever process leases it;
 *   the body is encrypted (AES-256-GCM) and deleted once sent or failed;
 * - `_basalt_auth_codes`: one-time codes handed to an app's `redirectTo`, exchanged with the app's PKCE verifier;
 * - `_basalt_settings`: small facts the service keeps about itself (since when verification is required).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false, ADD COLUMN locale text, ALTER COLUMN password_hash DROP NOT NULL`);

  await knex.raw(`
    CREATE TABLE _basalt_email_proofs (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('verify', 'recover', 'otp', 'email-change', 'invite')),
      user_id text REFERENCES users (id) ON DELETE CASCADE,
      email text NOT NULL,
      new_email text,
      token_hash text NOT NULL UNIQUE,
      code_hash text NOT NULL,
      redirect_to text,
      code_challenge text,
      locale text,
      wrong_codes integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      code_expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw(`CREATE INDEX _basalt_email_proofs_email_idx ON _basalt_email_proofs (email, kind, created_at DESC)`);
  await knex.raw(`CREATE INDEX _basalt_email_proofs_user_idx ON _basalt_email_proofs (user_id)`);
  await knex.raw(`CREATE INDEX _basalt_email_proofs_expires_idx ON _basalt_email_proofs (expires_at)`);

  await knex.raw(`
    CREATE TABLE _basalt_outbox (
      id text PRIMARY KEY,
      kind text NOT NULL,
      recipient text NOT NULL,
      body bytea,
      status text NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'unsent')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`);
  await knex.raw(`CREATE INDEX _basalt_outbox_due_idx ON _basalt_outbox (next_attempt_at) WHERE status = 'queued'`);
  await knex.raw(`CREATE INDEX _basalt_outbox_created_idx ON _basalt_outbox (created_at DESC, id DESC)`);
  await knex.raw(`CREATE INDEX _basalt_outbox_updated_idx ON _basalt_outbox (updated_at)`);

  await knex.raw(`
    CREATE TABLE _basalt_auth_codes (
      code_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      code_challenge text NOT NULL,
      expires_at timestamptz NOT NULL
    )`);
  await knex.raw(`CREATE INDEX _basalt_auth_codes_expires_idx ON _basalt_auth_codes (expires_at)`);

  await knex.raw(`CREATE TABLE _basalt_settings (key text PRIMARY KEY, value text NOT NULL)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_settings`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_auth_codes`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_outbox`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_email_proofs`);
  await knex.raw(`UPDATE users SET password_hash = '' WHERE password_hash IS NULL`);
  await knex.raw(`ALTER TABLE users DROP COLUMN IF EXISTS locale, DROP COLUMN IF EXISTS email_verified, ALTER COLUMN password_hash SET NOT NULL`);
}
