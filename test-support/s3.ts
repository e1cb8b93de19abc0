import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';

/**
 * A real S3-compatible server on loopback for the S3 driver's tests (@20minutes/s3rver 5.0.0: it checks request
 * signatures, so a wrong secret is refused), with one bucket, its data in a temporary folder.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where the server keeps its objects: tests look for what is left. */
  directory: string;
  close(): Promise<void>;
}

export async function startS3(bucket = 'basalt-test'): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    directory,
    // s3rver's one account.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async close() {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
