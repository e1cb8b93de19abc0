import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type TestS3 } from '../../../../test-support/s3.js';
import { LocalStore } from './localStore.js';
import { S3Store } from './s3Store.js';
import type { ObjectStore } from './store.js';

/** Both drivers keep the same promises: one suite, against a folder and against a real S3-compatible server. */

let s3: TestS3;
let folder: string;
const stores: Record<string, () => ObjectStore> = {};

beforeAll(async () => {
  s3 = await startS3();
  folder = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-files-'));
  stores.file = () => new LocalStore(folder);
  stores.s3 = () => new S3Store({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
});
afterAll(async () => {
  await s3?.close();
  await fs.rm(folder, { recursive: true, force: true });
});

const read = async (stream: Readable | null) => (stream ? text(stream) : null);

describe('the S3 driver', () => {
  it('is refused by the server with a wrong secret (the test server checks signatures)', async () => {
    const wrong = new S3Store({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' });
    await expect(wrong.put('t/1/abc', Readable.from(['x']))).rejects.toThrow();
    wrong.close();
  });
});

describe('the file driver', () => {
  it('leaves no empty folder behind a deleted key, and no temporary file behind a failed write', async () => {
    const store = stores.file!();
    await store.put('gone/g1/h', Readable.from(['x']));
    await store.delete('gone/g1/h');
    await expect(fs.readdir(path.join(folder, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
    const broken = new Readable({
      read() {
        this.destroy(new Error('cut'));
      },
    });
    await expect(store.put('cut/c1/h', broken)).rejects.toThrow();
    expect(await fs.readdir(path.join(folder, 'cut', 'c1'))).toEqual([]);
  });
});

describe.each(['file', 's3'])('the %s driver', (driver) => {
  it('writes a stream, reads it whole and by range, deletes it', async () => {
    const store = stores[driver]!();
    const bytes = 'a'.repeat(1000) + 'b'.repeat(1000);
    await store.put('photos/f1/sha', Readable.from([bytes.slice(0, 700), bytes.slice(700)]));
    expect(await read(await store.get('photos/f1/sha'))).toBe(bytes);
    expect(await read(await store.get('photos/f1/sha', { start: 995, end: 1004 }))).toBe('aaaaabbbbb');
    await store.delete('photos/f1/sha');
    expect(await store.get('photos/f1/sha')).toBeNull();
    await store.delete('photos/f1/sha');
  });

  it('moves an object to another key, replacing what was there', async () => {
    const store = stores[driver]!();
    await store.put('docs/m1/upload-1', Readable.from(['staged']));
    await store.put('docs/m1/final', Readable.from(['old']));
    await store.move('docs/m1/upload-1', 'docs/m1/final');
    expect(await read(await store.get('docs/m1/final'))).toBe('staged');
    expect(await store.get('docs/m1/upload-1')).toBeNull();
    await store.delete('docs/m1/final');
  });

  it('replaces an object of the same key whole, and a failed stream leaves the old one', async () => {
    const store = stores[driver]!();
    await store.put('docs/d1/v', Readable.from(['first']));
    await store.put('docs/d1/v', Readable.from(['second']));
    expect(await read(await store.get('docs/d1/v'))).toBe('second');
    const broken = new Readable({
      read() {
        this.push('partial');
        this.destroy(new Error('the client went away'));
      },
    });
    await expect(store.put('docs/d1/v', broken)).rejects.toThrow();
    expect(await read(await store.get('docs/d1/v'))).toBe('second');
    await store.delete('docs/d1/v');
  });

  it('refuses keys that are not Basalt’s (no path tricks)', async () => {
    const store = stores[driver]!();
    for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', 'a/ b', '']) {
      await expect(store.put(key, Readable.from(['x']))).rejects.toThrow(/not a storage key/);
    }
    await expect(store.get('a/..')).rejects.toThrow(/not a storage key/);
  });
});
