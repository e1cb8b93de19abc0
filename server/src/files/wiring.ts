import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Limits } from '@basalt/contract';
import type { AbuseLimiter } from '../auth/limits.js';
import { Housekeeping } from '../db/housekeeping.js';
import type { SchemaCache } from '../db/schemaCache.js';
import type { RecordDeps } from '../records/index.js';
import { Downloads } from './download.js';
import { LinkSigner } from './links/signedLinks.js';
import { FileService } from './service.js';
import { ObjectRegistry } from './storage/objects.js';
import { openStore, type StorageSettings } from './storage/settings.js';
import { ImageTransformer } from './transform/images.js';
import { createUploads } from './tus/handler.js';

/** The files part of one process (issue 28): storage, the registry of objects, uploads, downloads and the sweep. */
export interface Files {
  service: FileService;
  downloads: Downloads;
  /** Resumable uploads (tus, files/tus/): mounted at `/files/:table/uploads` once the caller is known. */
  uploads: RequestHandler;
  sweep: FileSweep;
  close(): Promise<void>;
}

export interface FilesOptions {
  knex: Knex;
  cache: SchemaCache;
  records: RecordDeps;
  limiter: AbuseLimiter;
  limits: Limits | false;
  jwtSecret: string;
  storage: StorageSettings;
  /** PUBLIC_URL as it stands (signed links are absolute); null in production when it is not set. */
  publicUrl(): string | null;
  onError?: (error: unknown) => void;
}

/** Objects no row holds, an hour after they were written (storage/objects.ts), every five minutes. */
export class FileSweep extends Housekeeping {
  constructor(
    private readonly registry: ObjectRegistry,
    knex: Knex,
    onError?: (error: unknown) => void,
  ) {
    super(['_basalt_file_objects', '_basalt_file_uploads'], 10_000, (sql) => knex.raw(sql), onError);
  }

  protected clean(): Promise<number> {
    return this.registry.sweep();
  }
}

export const FILE_SWEEP_INTERVAL_MS = 5 * 60_000;

export async function createFiles(options: FilesOptions): Promise<Files> {
  const store = await openStore(options.storage);
  const registry = new ObjectRegistry(options.knex, store, (error) => options.onError?.(error));
  const service = new FileService({ knex: options.knex, cache: options.cache, records: options.records, registry, limiter: options.limiter, limits: options.limits });
  const downloads = new Downloads(service, new LinkSigner(options.jwtSecret), new ImageTransformer(), options.publicUrl);
  const sweep = new FileSweep(registry, options.knex, options.onError);
  // Without PUBLIC_URL in production, tus's Location is relative: clients resolve it against the URL they used.
  const uploads = createUploads({ knex: options.knex, registry, files: service, publicUrl: () => options.publicUrl() ?? '', onError: options.onError });
  sweep.start(FILE_SWEEP_INTERVAL_MS);
  return { service, downloads, uploads, sweep, close: () => sweep.stop() };
}
