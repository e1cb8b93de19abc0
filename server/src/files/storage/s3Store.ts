import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkKey, type ByteRange, type ObjectStore } from './store.js';

/**
 * Bytes in any S3-compatible store (`STORAGE_URL=s3://<bucket>?endpoint=&region=&forcePathStyle=`, credentials from
 * `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`), through the AWS SDK: uploads stream as multipart parts
 * (@aws-sdk/lib-storage; an object appears only when its upload completes), reads ask for the range they serve.
 */
export interface S3Settings {
  bucket: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Parts of 8 MiB, two at once: what a stream holds in memory is bounded whatever the file's size. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_AT_ONCE = 2;

const missing = (error: unknown) => {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
};

export class S3Store implements ObjectStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    });
  }

  async put(key: string, body: Readable): Promise<void> {
    const upload = new Upload({ client: this.client, params: { Bucket: this.settings.bucket, Key: checkKey(key), Body: body }, partSize: PART_BYTES, queueSize: PARTS_AT_ONCE });
    await upload.done();
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return (answer.Body as Readable | undefined) ?? null;
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  /** A copy inside the store (no bytes through Basalt; one request up to 5 GiB, the largest maxFileSize), then a delete. */
  async move(from: string, to: string): Promise<void> {
    const { bucket } = this.settings;
    await this.client.send(new CopyObjectCommand({ Bucket: bucket, Key: checkKey(to), CopySource: `${bucket}/${checkKey(from)}` }));
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key) }));
  }

  close(): void {
    this.client.destroy();
  }
}
