import type { Knex } from 'knex';
import { quote } from '../../db/identifiers.js';
import type { ObjectStore } from './store.js';

/**
 * Every object Basalt puts in storage is registered in `_basalt_file_objects` before its bytes are written: an
 * upload's staging object, a file's bytes (`<table>/<id>/<sha256>`) and its cached variants
 * (`<table>/<id>/<sha256>-<variant>`). An object is live while its row holds it (same id and sha256); the sweep deletes
 * the others once they are an hour old (an upload in flight is younger), whatever removed the row: a refused create, a
 * crash, a replace, a delete through psql, a cascade, a truncate or a dropped table. No store is ever listed.
 */
export const SWEEP_AGE_SECONDS = 3600;

export interface ObjectEntry {
  key: string;
  table: string;
  recordId: string;
  /** Null for an upload's staging object, which no row ever holds. */
  sha256: string | null;
  variant?: string | null;
  size?: number | null;
}

/** The `variant` of a resumable upload's parts: held while the upload lives. */
export const uploadPartsOf = (uploadId: string) => `tus:${uploadId}`;

export const fileKey = (table: string, id: string, sha256: string) => `${table}/${id}/${sha256}`;
export const variantKey = (table: string, id: string, sha256: string, variant: string) => `${table}/${id}/${sha256}-${variant}`;

export class ObjectRegistry {
  constructor(
    private readonly knex: Knex,
    readonly store: ObjectStore,
    /** Told of an object that could not be deleted now (the sweep tries again) and of a table a sweep pass skipped. */
    private readonly warn: (error: unknown, what: string) => void = () => undefined,
  ) {}

  /** Registers an object about to be written (again: its age starts over). */
  async register(entry: ObjectEntry): Promise<void> {
    await this.knex.raw(
      `INSERT INTO _basalt_file_objects (key, table_name, record_id, sha256, variant, size) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET created_at = now(), used_at = now(), size = EXCLUDED.size`,
      [entry.key, entry.table, entry.recordId, entry.sha256, entry.variant ?? null, entry.size ?? null],
    );
  }

  /** A cached variant's size and type (its `variant` is `<name> <type>`), or null when there is none yet. */
  async variant(key: string): Promise<{ size: number; type: string } | null> {
    const row = (await this.knex.raw<{ rows: Array<{ size: string; variant: string }> }>(`SELECT size, variant FROM _basalt_file_objects WHERE key = ?`, [key])).rows[0];
    if (!row) return null;
    return { size: Number(row.size), type: row.variant.split(' ')[1] ?? 'application/octet-stream' };
  }

  async touch(key: string): Promise<void> {
    await this.knex.raw(`UPDATE _basalt_file_objects SET used_at = now() WHERE key = ?`, [key]);
  }

  /** Keeps a file's `keep` most recently used variants; the rest are deleted. */
  async evictVariants(table: string, recordId: string, keep: number): Promise<void> {
    const rows = (await this.knex.raw<{ rows: Array<{ key: string }> }>(
      `SELECT key FROM _basalt_file_objects WHERE table_name = ? AND record_id = ? AND variant IS NOT NULL AND variant NOT LIKE 'tus:%'
        ORDER BY used_at DESC, created_at DESC OFFSET ?`,
      [table, recordId, keep],
    )).rows;
    await this.remove(rows.map((row) => row.key));
  }

  /** Drops an entry whose object is gone already (moved away). */
  async forget(key: string): Promise<void> {
    await this.knex('_basalt_file_objects').where({ key }).delete();
  }

  /** Deletes objects from storage, then their entries (an entry outlives a failed delete: the sweep tries again). */
  async remove(keys: string[]): Promise<void> {
    for (const key of keys) {
      try {
        await this.store.delete(key);
        await this.knex('_basalt_file_objects').where({ key }).delete();
      } catch (error) {
        this.warn(error, `the stored object ${key} could not be deleted; the sweep tries again`);
      }
    }
  }

  /** A file's bytes and variants of one content (after a replace committed, the old content's). */
  async removeContent(table: string, recordId: string, sha256: string): Promise<void> {
    const rows = await this.knex('_basalt_file_objects').where({ table_name: table, record_id: recordId, sha256 }).select<Array<{ key: string }>>('key');
    await this.remove(rows.map((row) => row.key));
  }

  /** Every object of a row that is gone (after its delete committed). */
  async removeRecord(table: string, recordId: string, rowStillThere: () => Promise<boolean>): Promise<void> {
    if (await rowStillThere()) return;
    const rows = await this.knex('_basalt_file_objects').where({ table_name: table, record_id: recordId }).whereNotNull('sha256').select<Array<{ key: string }>>('key');
    await this.remove(rows.map((row) => row.key));
  }

  /**
   * One pass of the sweep: objects older than an hour that no row holds, per table (a table that no longer exists, or
   * has no id and sha256 to hold them by, holds none). Returns how many objects were deleted.
   */
  async sweep(batch = 500): Promise<number> {
    // Resumable uploads live 24 h; their parts (variant `tus:<upload id>`) are held while the upload is.
    await this.knex.raw(`DELETE FROM _basalt_file_uploads WHERE created_at < now() - interval '24 hours'`);
    const tables = (await this.knex.raw<{ rows: Array<{ table_name: string }> }>(
      `SELECT DISTINCT table_name FROM _basalt_file_objects WHERE created_at < now() - make_interval(secs => ?)`,
      [SWEEP_AGE_SECONDS],
    )).rows.map((row) => row.table_name);
    let deleted = 0;
    for (const table of tables) {
      // Asked of the database, not of a process's schema cache, which may not have heard of a drop yet.
      const exists = (await this.knex.raw<{ rows: Array<{ columns: number }> }>(
        `SELECT count(*)::int AS columns FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? AND column_name IN ('id', 'sha256')`,
        [table],
      )).rows[0]?.columns === 2;
      const held = exists ? `AND EXISTS (SELECT 1 FROM ${quote(table)} r WHERE r.id::text = o.record_id AND r.sha256 = o.sha256)` : 'AND false';
      for (;;) {
        const keys = (await this.knex.raw<{ rows: Array<{ key: string }> }>(
          `SELECT o.key FROM _basalt_file_objects o
            WHERE o.table_name = ? AND o.created_at < now() - make_interval(secs => ?) AND NOT (o.sha256 IS NOT NULL ${held})
              AND NOT EXISTS (SELECT 1 FROM _basalt_file_uploads u WHERE o.variant = 'tus:' || u.id)
            LIMIT ?`,
          [table, SWEEP_AGE_SECONDS, batch],
        ).catch((error: unknown) => {
          // The table changed under the sweep (dropped, its sha256 column gone): the next pass sees it as it is.
          this.warn(error, `the file sweep skipped ${table} this pass`);
          return { rows: [] };
        })).rows.map((row) => row.key);
        if (keys.length === 0) break;
        const before = deleted;
        for (const key of keys) {
          await this.remove([key]);
          deleted += 1;
        }
        if (keys.length < batch || deleted === before) break;
      }
    }
    return deleted;
  }
}
