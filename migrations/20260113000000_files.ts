import type { Knex } from 'knex';

/**
 * Files (issue 28). A bucket is a served table whose rows are files: `_basalt_buckets` marks it and holds its
 * settings. `_basalt_file_objects` is every object Basalt put in storage (an upload's staging parts, a file's bytes,
 * its cached variants), registered before the bytes are written: the sweep deletes an object whose row does not hold
 * it (by id and sha256) once it is an hour old, so a crash, a refused create or a killed upload leaves nothing for good,
 * and no store ever needs listing. `_basalt_file_uploads` is the state of resumable (tus) uploads, so any process
 * continues one: the offset, the parts stored so far in order (`part_keys`; `parts` counts them) and a lease
 * (`locked_by` until `locked_until`; `release_asked` when another request waits for it) that serializes one upload's
 * requests across processes (files/tus/locker.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE _basalt_buckets (
      table_name text PRIMARY KEY,
      max_file_size bigint NOT NULL,
      allowed_types text[]
    )`);
  await knex.raw(`
    CREATE TABLE _basalt_file_objects (
      key text PRIMARY KEY,
      table_name text NOT NULL,
      record_id text NOT NULL,
      sha256 text,
      variant text,
      size bigint,
      created_at timestamptz NOT NULL DEFAULT now(),
      used_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw(`CREATE INDEX _basalt_file_objects_record_idx ON _basalt_file_objects (table_name, record_id)`);
  await knex.raw(`CREATE INDEX _basalt_file_objects_created_idx ON _basalt_file_objects (created_at)`);
  await knex.raw(`
    CREATE TABLE _basalt_file_uploads (
      id text PRIMARY KEY,
      table_name text NOT NULL,
      record_id text NOT NULL,
      creator text,
      size bigint,
      "offset" bigint NOT NULL DEFAULT 0,
      parts integer NOT NULL DEFAULT 0,
      metadata jsonb NOT NULL DEFAULT '{}',
      completed_record text,
      created_at timestamptz NOT NULL DEFAULT now(),
      part_keys text[] NOT NULL DEFAULT '{}',
      locked_by text,
      locked_until timestamptz,
      release_asked boolean NOT NULL DEFAULT false
    )`);
  await knex.raw(`CREATE INDEX _basalt_file_uploads_created_idx ON _basalt_file_uploads (created_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_file_uploads, _basalt_file_objects, _basalt_buckets`);
}
