import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { DataStore, ERRORS, Upload } from '@tus/server';
import { ApiError } from '../../errors.js';
import { randomId } from '../../ids.js';
import type { FileService } from '../service.js';
import { uploadPartsOf, type ObjectRegistry } from '../storage/objects.js';
import { creatorOf, currentRequest, maybeRequest } from './context.js';
import { readParts, storePart, uploadRow, type UploadRow } from './parts.js';

/** Unfinished uploads live 24 h (API.md, Files); the file sweep deletes older rows, and their parts with them. */
export const UPLOAD_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * The tus DataStore of Basalt (API.md, Part 2 in detail, Files): an upload's state is its row in
 * `_basalt_file_uploads`, its bytes are parts in the ObjectStore (parts.ts), so whichever process a request reaches
 * continues the upload. The offset moves by compare-and-set (`WHERE "offset" = <the offset this request started at>`):
 * of two requests that both wrote at one offset, one wins and the other answers 409 and deletes its part, whatever
 * the lock did (locker.ts). When the last byte is in, the parts become the file through the record pipeline under
 * `create` (`FileService.upload`, with the record id chosen at creation); a refusal then leaves nothing behind.
 */
export class UploadStore extends DataStore {
  constructor(
    private readonly knex: Knex,
    private readonly registry: ObjectRegistry,
    private readonly files: FileService,
  ) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  override getExpiration(): number {
    return UPLOAD_LIFETIME_MS;
  }

  /** After `onUploadCreate` (hooks.ts) admitted it: `upload.metadata` is the checked fields, the id a fresh one. */
  override async create(upload: Upload): Promise<Upload> {
    const request = currentRequest();
    const result = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(
      `INSERT INTO _basalt_file_uploads (id, table_name, record_id, creator, size, metadata) VALUES (?, ?, ?, ?, ?, ?::jsonb) RETURNING *`,
      [upload.id, request.table, randomId(), creatorOf(request.caller), upload.size ?? 0, JSON.stringify(upload.metadata ?? {})],
    );
    const row = uploadRow(result.rows[0]!);
    upload.creation_date = row.created_at.toISOString();
    // An empty file has no PATCH to finish it: it is finished at its creation.
    if (row.size === 0) await this.complete(row, []);
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const row = await this.row(id);
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    // A finished upload's HEAD names the file it became.
    const request = maybeRequest();
    if (request && row.completed_record) request.completedRecord = row.completed_record;
    return new Upload({ id, size: row.size, offset: row.offset, metadata: row.metadata, creation_date: row.created_at.toISOString() });
  }

  /** One request's bytes at `offset`: a new part, then the offset moved, or (the last byte) the file made. */
  override async write(source: Readable, id: string, offset: number): Promise<number> {
    const row = await this.row(id);
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    if (row.completed_record) {
      // An empty PATCH at the end of a finished upload (tus allows it): nothing to do but name the file again.
      source.resume();
      currentRequest().completedRecord = row.completed_record;
      return row.offset;
    }
    if (row.offset !== offset) throw ERRORS.INVALID_OFFSET;
    const part = await storePart(this.registry, row, source);
    if (part.bytes === 0) {
      await this.registry.remove([part.key]);
      return offset;
    }
    const reached = offset + part.bytes;
    if (reached === row.size) return this.complete(row, [...row.part_keys, part.key]);
    const moved = await this.knex.raw<{ rowCount: number }>(
      `UPDATE _basalt_file_uploads SET "offset" = ?, parts = parts + 1, part_keys = array_append(part_keys, ?)
        WHERE id = ? AND "offset" = ? AND completed_record IS NULL`,
      [reached, part.key, id, offset],
    );
    if (moved.rowCount !== 1) {
      await this.registry.remove([part.key]);
      throw ERRORS.INVALID_OFFSET;
    }
    return reached;
  }

  /** Termination: the upload and its parts. A finished upload's file stays (it is a row like any other now). */
  override async remove(id: string): Promise<void> {
    const deleted = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(`DELETE FROM _basalt_file_uploads WHERE id = ? RETURNING *`, [id]);
    const row = deleted.rows[0];
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    await this.removeParts(uploadRow(row));
  }

  /** Uploads past their 24 h, and their parts (the file sweep does the same on its rounds: storage/objects.ts). */
  override async deleteExpired(): Promise<number> {
    const deleted = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(
      `DELETE FROM _basalt_file_uploads WHERE created_at < now() - make_interval(secs => ?) RETURNING *`,
      [UPLOAD_LIFETIME_MS / 1000],
    );
    for (const row of deleted.rows) await this.removeParts(uploadRow(row));
    return deleted.rows.length;
  }

  /**
   * The last byte is in: the parts, in order, are the body of a create under the bucket's `create` rule, checked again
   * now on the whole row (and the size against the account's storage). A refusal (4xx) deletes the upload and its
   * parts, so nothing is left behind; a failure of Basalt's own (5xx, the database or the store) keeps the upload as it
   * was before this request, so the client may send its last part again.
   */
  private async complete(row: UploadRow, keys: string[]): Promise<number> {
    const request = currentRequest();
    const body = readParts(this.registry, keys);
    try {
      const table = await this.files.bucket(row.table_name);
      // A create that committed in a process that died before it could record so: the file exists already.
      if (!(await this.files.anyRow(table, row.record_id))) {
        await this.files.upload(request.caller, row.table_name, {
          body,
          hint: null,
          fields: async () => ({ ...row.metadata }),
          address: request.address,
          counted: true,
          recordId: row.record_id,
          declaredLength: row.size,
        });
      }
    } catch (error) {
      body.destroy();
      if (error instanceof ApiError && error.status < 500) {
        await this.knex.raw(`DELETE FROM _basalt_file_uploads WHERE id = ?`, [row.id]);
        await this.removeParts(row);
      } else {
        await this.registry.remove(keys.slice(row.part_keys.length));
      }
      throw error;
    }
    body.destroy();
    await this.knex.raw(
      `UPDATE _basalt_file_uploads SET "offset" = size, parts = ?, part_keys = '{}', completed_record = record_id WHERE id = ?`,
      [keys.length, row.id],
    );
    await this.removeParts(row);
    request.completedRecord = row.record_id;
    return row.size;
  }

  private async row(id: string): Promise<UploadRow | null> {
    const result = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(`SELECT * FROM _basalt_file_uploads WHERE id = ?`, [id]);
    return result.rows[0] ? uploadRow(result.rows[0]) : null;
  }

  /** Every object registered as this upload's part, recorded or not (a part whose request lost the race). */
  private async removeParts(row: UploadRow): Promise<void> {
    const parts = await this.knex('_basalt_file_objects')
      .where({ table_name: row.table_name, record_id: row.record_id, variant: uploadPartsOf(row.id) })
      .select<Array<{ key: string }>>('key');
    await this.registry.remove(parts.map((part) => part.key));
  }
}
