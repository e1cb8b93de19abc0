import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startS3, type TestS3 } from '../../../test-support/s3.js';
import { signUp, startHarness, type Account, type Harness, type HarnessOptions } from '../harness.js';
import type { StorageSettings } from '../../src/files/storage/settings.js';

/** The files suites run on both drivers: a real directory, and a real S3-compatible server that checks signatures. */
export type Driver = 'file' | 's3';
export const DRIVERS: Driver[] = ['file', 's3'];

export interface FilesHarness {
  h: Harness;
  owner: Account;
  member: Account;
  other: Account;
  /** Where its bytes are: another harness on the same database and store is another process of the deployment. */
  storage: StorageSettings;
  /** Every object the store holds now (file names under the folder, or s3rver's object files). */
  objects(): Promise<string[]>;
  /** Rows of the registry of stored objects. */
  registered(): Promise<Array<{ key: string; sha256: string | null; variant: string | null }>>;
  bucket(body: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

async function walk(directory: string): Promise<string[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}

export async function startFiles(driver: Driver, options: HarnessOptions = {}): Promise<FilesHarness> {
  let s3: TestS3 | undefined;
  let storage: StorageSettings;
  let objects: () => Promise<string[]>;
  if (driver === 's3') {
    s3 = await startS3();
    storage = { driver: 's3', bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    // s3rver keeps an object as `<key>._S3rver_object` plus metadata files beside it.
    objects = async () => (await walk(path.join(s3!.directory, s3!.bucket))).filter((name) => name.endsWith('._S3rver_object')).map((name) => name.replace(/\._S3rver_object$/, ''));
  } else {
    const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-files-'));
    storage = { driver: 'file', directory };
    objects = async () => walk(directory);
  }
  const h = await startHarness({ ...options, storage });
  const owner = await signUp(h);
  const member = await signUp(h);
  const other = await signUp(h);
  return {
    h,
    owner,
    member,
    other,
    storage,
    objects,
    async registered() {
      const client = await h.sql();
      const rows = (await client.query('SELECT key, sha256, variant FROM _basalt_file_objects ORDER BY key')).rows;
      return rows;
    },
    async bucket(body) {
      const response = await h.request().post('/admin/tables').set(owner.auth).send({ kind: 'files', ...body });
      if (response.status !== 201) throw new Error(`bucket not created: ${JSON.stringify(response.body)}`);
    },
    async close() {
      await h.close();
      if (storage.driver === 'file') await fs.rm(storage.directory, { recursive: true, force: true });
      await s3?.close();
    },
  };
}

/** A real PNG of the given size (a gradient, so it compresses like a picture). */
export async function png(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i += 3) {
    const x = (i / 3) % width;
    pixels[i] = x % 256;
    pixels[i + 1] = (i / 3 / width) % 256;
    pixels[i + 2] = 128;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
}
