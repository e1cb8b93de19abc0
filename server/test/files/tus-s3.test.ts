import { createHash, randomBytes } from 'node:crypto';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEmailSettings } from '../../src/auth/email/settings.js';
import { freePort, startHarness, type Harness } from '../harness.js';
import type { S3Store } from '../../src/files/storage/s3Store.js';
import { startFiles, type FilesHarness } from './support.js';

/**
 * Resumable uploads on the S3 driver (the tus suite runs on a directory, tus.test.ts): parts are objects in the
 * store, so an upload begun through one process is continued through another with nothing on local disk, and
 * nothing but the file is left in the bucket once it is done.
 */
let f: FilesHarness;
let second: Harness;

beforeAll(async () => {
  const port = await freePort();
  f = await startFiles('s3', { port, email: defaultEmailSettings(`http://127.0.0.1:${port}`) });
  await f.bucket({ name: 'docs', policy: 'owner-scoped' });
  const storage = f.h.services.files.service.registry.store;
  const secondPort = await freePort();
  // The same database and the same S3 bucket: another process of the same deployment.
  second = await startHarness({ database: f.h.database, port: secondPort, email: defaultEmailSettings(`http://127.0.0.1:${secondPort}`), storage: { driver: 's3', ...(storage as S3Store).settings } });
});
afterAll(async () => {
  await second?.close();
  await f?.close();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function send(file: Buffer, endpointOf: Harness, options: Partial<tus.UploadOptions> & { abortAfter?: number } = {}): Promise<{ url: string; recordId: string | null }> {
  const { abortAfter, ...rest } = options;
  return new Promise((resolve, reject) => {
    const upload: tus.Upload = new tus.Upload(file, {
      endpoint: `${endpointOf.url}/files/docs/uploads`,
      headers: f.member.auth,
      retryDelays: null,
      chunkSize: 64 * 1024,
      metadata: { filename: 'big.bin' },
      onChunkComplete: (_chunk, accepted) => {
        if (abortAfter !== undefined && accepted >= abortAfter) void upload.abort().then(() => resolve({ url: upload.url!, recordId: null }), reject);
      },
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, recordId: lastResponse.getHeader('Basalt-Record-Id') ?? null }),
      onError: reject,
      ...rest,
    });
    upload.start();
  });
}

describe('tus on the S3 driver', () => {
  it('uploads in 64 KiB chunks, resumes through another process, and leaves only the file', async () => {
    const file = randomBytes(300 * 1024);
    const begun = await send(file, f.h, { abortAfter: 64 * 1024 });
    expect((await f.objects()).some((key) => key.includes('/upload-'))).toBe(true);
    // The other process continues from the stored offset (its origin, as a load balancer would pick it).
    const resumedUrl = begun.url.replace(f.h.url, second.url);
    const done = await send(file, second, { uploadUrl: resumedUrl });
    expect(done.recordId).toBeTruthy();
    const row = await f.h.request().get(`/api/docs/${done.recordId}`).set(f.member.auth);
    expect(row.body.data).toMatchObject({ size: file.length, sha256: sha256(file), name: 'big.bin' });
    const bytes = await f.h.request().get(`/files/docs/${done.recordId}`).set(f.member.auth).buffer(true).parse((res, callback) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => callback(null, Buffer.concat(chunks)));
    });
    expect(sha256(bytes.body as Buffer)).toBe(sha256(file));
    expect(await f.objects()).toEqual([`docs/${done.recordId}/${sha256(file)}`]);
  });
});
