import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, memoryStorage, type BasaltClient, type Session } from '../src/index.js';
import { PASSWORD, countingFetch, expiredCopy, sessionOf, startLive, uniqueEmail, type Live } from './support/live.js';

/**
 * Files through the client (API.md, "Files: a bucket is a table whose rows are files"), against the built server:
 * uploads in one request and resumable, progress, downloads, variants, signed links and `url()`.
 */
interface Database {
  avatars: {
    Row: { id: string; name: string; type: string; size: number; sha256: string; user_id: string | null; caption: string | null; tags: unknown; createdAt: string; updatedAt: string };
    Insert: { id?: string; caption?: string | null; tags?: unknown };
    Update: { caption?: string | null; tags?: unknown };
  };
  gallery: {
    Row: { id: string; name: string; type: string; size: number; sha256: string; user_id: string | null; createdAt: string; updatedAt: string };
    Insert: { id?: string };
    Update: Record<string, never>;
  };
}

let live: Live;
let storageDir: string;
let owner: BasaltClient<Database>;
let member: BasaltClient<Database>;
let memberSession: Session;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** Bytes compared by digest: vitest's deep equality walks a large array element by element (minutes for MiBs). */
const digestOf = async (body: Blob | Response) => sha256(new Uint8Array(await body.arrayBuffer()));

/** Pseudo-random bytes (no file signature, not UTF-8): stored as application/octet-stream. */
function noise(size: number, seed = 7): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  bytes[0] = 0xff;
  bytes[1] = 0x00;
  return bytes;
}

async function png(width: number, height: number): Promise<Uint8Array<ArrayBuffer>> {
  const buffer = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  return new Uint8Array(buffer);
}

beforeAll(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-files-'));
  live = await startLive({ env: { STORAGE_URL: `file://${storageDir}` } });
  owner = live.client<Database>();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  await owner.admin.tables.create({
    name: 'avatars',
    kind: 'files',
    policy: 'owner-scoped',
    maxFileSize: 20 * 1024 * 1024,
    columns: [
      { name: 'caption', type: 'text' },
      { name: 'tags', type: 'json' },
    ],
  });
  await owner.admin.tables.create({ name: 'gallery', kind: 'files', policy: 'public-read', columns: [] });
  await owner.admin.tables.create({ name: 'pictures', kind: 'files', policy: 'owner-scoped', allowedTypes: ['image/*'], maxFileSize: 1024, columns: [] });
  const email = uniqueEmail('member');
  member = live.client<Database>();
  await member.auth.signUp({ email, password: PASSWORD });
  memberSession = await sessionOf(member.auth.signIn({ email, password: PASSWORD }));
}, 90_000);

afterAll(async () => {
  await live?.stop();
  if (storageDir) await fs.rm(storageDir, { recursive: true, force: true });
});

describe('upload in one request', () => {
  it('sends bytes with a name and metadata and returns the typed row', async () => {
    const bytes = noise(5000);
    const row = await member.from('avatars').upload(bytes, { name: 'noise.bin', metadata: { caption: 'hi', tags: ['a', 'b'] } });
    expect(row).toMatchObject({ name: 'noise.bin', type: 'application/octet-stream', size: 5000, sha256: sha256(bytes), user_id: memberSession.user.id, caption: 'hi', tags: ['a', 'b'] });
    const caption: string | null = row.caption;
    expect(caption).toBe('hi');
    // A row like any other: the record API lists it.
    const { data } = await member.from('avatars').list({ filter: { id: row.id } });
    expect(data).toHaveLength(1);
  });

  it("takes a File's name and type, a Blob, an ArrayBuffer and a ReadableStream", async () => {
    const file = new File(['hello world'], 'hello.txt', { type: 'text/plain' });
    await expect(member.from('avatars').upload(file)).resolves.toMatchObject({ name: 'hello.txt', type: 'text/plain', size: 11 });
    await expect(member.from('avatars').upload(new Blob(['a,b\n1,2\n'], { type: 'text/csv' }))).resolves.toMatchObject({ name: 'file', type: 'text/csv', size: 8 });
    await expect(member.from('avatars').upload(noise(10).buffer as ArrayBuffer, { name: 'x.bin' })).resolves.toMatchObject({ name: 'x.bin', size: 10 });
    const bytes = noise(200_000, 3);
    const stream = new Blob([bytes]).stream();
    const row = await member.from('avatars').upload(stream, { name: 'streamed.bin' });
    expect(row).toMatchObject({ name: 'streamed.bin', size: bytes.length, sha256: sha256(bytes) });
  });

  it('reports progress that only grows and ends once at the total', async () => {
    const bytes = noise(3 * 1024 * 1024, 11);
    const calls: [number, number | null][] = [];
    const row = await member.from('avatars').upload(bytes, { name: 'big.bin', onProgress: (sent, total) => calls.push([sent, total]) });
    expect(row.size).toBe(bytes.length);
    expect(calls.length).toBeGreaterThan(2);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThan(calls[i - 1]![0]);
    expect(calls.every(([, total]) => total === bytes.length)).toBe(true);
    expect(calls.at(-1)).toEqual([bytes.length, bytes.length]);
    expect(calls.filter(([sent]) => sent === bytes.length)).toHaveLength(1);
  });

  it('reports a stream with an unknown total, and ends at its size', async () => {
    const bytes = noise(300_000, 5);
    const calls: [number, number | null][] = [];
    await member.from('avatars').upload(new Blob([bytes]).stream(), { onProgress: (sent, total) => calls.push([sent, total]) });
    expect(calls.slice(0, -1).every(([, total]) => total === null)).toBe(true);
    expect(calls.at(-1)).toEqual([bytes.length, bytes.length]);
  });

  it('answers the server refusals as ApiErrors: too large, a type outside allowedTypes, no such bucket', async () => {
    const big = await member
      .from('pictures' as 'avatars')
      .upload(new Uint8Array([...(await png(64, 64)), ...noise(2000)]))
      .catch((error: unknown) => error);
    expect(big).toBeInstanceOf(ApiError);
    expect(big).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    const wrongType = await member
      .from('pictures' as 'avatars')
      .upload(new Blob(['plain words']), { name: 'a.txt' })
      .catch((error: unknown) => error);
    expect(wrongType).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'type' } });
    const missing = await member
      .from('nothing' as 'avatars')
      .upload(noise(4))
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('replaces a file: new bytes, new name, and the old signed links stop', async () => {
    const row = await member.from('avatars').upload(new Blob(['first version']), { name: 'v1.txt' });
    const oldLink = await member.from('avatars').sign(row.id, 600);
    expect((await fetch(oldLink)).status).toBe(200);
    const replaced = await member.from('avatars').replace(row.id, new Blob(['second version, longer']), { name: 'v2.txt', metadata: { caption: 'two' } });
    expect(replaced).toMatchObject({ id: row.id, name: 'v2.txt', size: 22, caption: 'two' });
    expect(await (await member.from('avatars').download(row.id)).text()).toBe('second version, longer');
    const stale = await fetch(oldLink);
    expect(stale.status).toBe(403);
    await stale.body?.cancel();
    await expect(member.from('avatars').replace('no-such-id', new Blob(['x']))).rejects.toMatchObject({ status: 404 });
  });
});

describe('download', () => {
  it('answers the bytes, a range, and the response itself', async () => {
    const bytes = noise(70_000, 21);
    const row = await member.from('avatars').upload(bytes, { name: 'd.bin' });
    expect(await digestOf(await member.from('avatars').download(row.id))).toBe(sha256(bytes));
    expect(await digestOf(await member.from('avatars').download(row.id, { range: { start: 100, end: 199 } }))).toBe(sha256(bytes.slice(100, 200)));
    expect(await digestOf(await member.from('avatars').download(row.id, { range: { start: 69_990 } }))).toBe(sha256(bytes.slice(69_990)));
    const response = await member.from('avatars').downloadResponse(row.id);
    expect(response.headers.get('etag')).toBe(`"${row.sha256}"`);
    expect(response.headers.get('cache-control')).toMatch(/^private/);
    await response.body?.cancel();
  });

  it("is another member's 404 and an unknown id's 404", async () => {
    const row = await member.from('avatars').upload(noise(10), { name: 'mine.bin' });
    const other = live.client<Database>();
    await other.auth.signUp({ email: uniqueEmail('other'), password: PASSWORD });
    await expect(other.from('avatars').download(row.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(member.from('avatars').download('missing')).rejects.toBeInstanceOf(ApiError);
  });

  it('makes an image variant with transform', async () => {
    const image = await png(64, 48);
    const row = await member.from('avatars').upload(image, { name: 'pic.png' });
    expect(row.type).toBe('image/png');
    const variant = await member.from('avatars').download(row.id, { transform: { width: 32, height: 32, fit: 'cover', format: 'webp' } });
    expect(variant.type).toBe('image/webp');
    const meta = await sharp(Buffer.from(await variant.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 32, height: 32 });
    await expect(member.from('avatars').download(row.id, { transform: { width: 5000 } })).rejects.toMatchObject({ status: 400, details: { parameter: 'width' } });
  });

  it('refreshes an expired token once and retries, for uploads and downloads alike', async () => {
    const session = await sessionOf(live.client().auth.signIn({ email: memberSession.user.email, password: PASSWORD }));
    const storage = memoryStorage();
    // The local clock believes the token has an hour left: only the server's 401 token_expired can say otherwise.
    storage.setItem('files.expired', JSON.stringify({ ...session, accessToken: expiredCopy(session.accessToken), expiresAt: Date.now() + 3600_000 }));
    const fetch = countingFetch();
    const client = live.client<Database>({ storage, storageKey: 'files.expired', fetch, autoRefresh: false });
    const row = await client.from('avatars').upload(new Blob(['after a refresh']), { name: 'r.txt' });
    expect(row.user_id).toBe(memberSession.user.id);
    expect(fetch.count('/auth/refresh')).toBe(1);
    expect(await (await client.from('avatars').download(row.id)).text()).toBe('after a refresh');
    expect(fetch.count('/auth/refresh')).toBe(1);
  });
});

describe('links', () => {
  it('sign: a link anyone may open until it expires, for the file or one variant', async () => {
    const image = await png(40, 40);
    const row = await member.from('avatars').upload(image, { name: 'signed.png' });
    const link = await member.from('avatars').sign(row.id, 120);
    expect(link).toMatch(/[?&]expires=\d+&sig=/);
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(await digestOf(opened)).toBe(sha256(image));
    const variantLink = await member.from('avatars').sign(row.id, 120, { width: 16, format: 'jpeg' });
    const variant = await fetch(variantLink);
    expect(variant.headers.get('content-type')).toBe('image/jpeg');
    await variant.body?.cancel();
    await expect(member.from('avatars').sign(row.id, 8 * 24 * 3600)).rejects.toMatchObject({ status: 400, details: { field: 'expiresIn' } });
  });

  it('url: a signed link for a bucket anon may not read, opened without credentials', async () => {
    const row = await member.from('avatars').upload(new Blob(['private bytes']), { name: 'p.txt' });
    const link = await member.from('avatars').url(row.id);
    expect(link).toContain('sig=');
    const expires = Number(new URL(link).searchParams.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(3500);
    expect(await (await fetch(link)).text()).toBe('private bytes');
    const short = await member.from('avatars').url(row.id, { expiresIn: 60 });
    expect(Number(new URL(short).searchParams.get('expires')) - Date.now() / 1000).toBeLessThanOrEqual(60);
    // `public: true` trusts the caller: a plain URL, which anon cannot open here.
    const plain = await member.from('avatars').url(row.id, { public: true });
    expect(plain).toBe(`${live.server.url}/files/avatars/${row.id}`);
  });

  it('url: the plain URL for a public-read bucket, opened without credentials; the answer is asked once per bucket', async () => {
    const image = await png(32, 32);
    const first = await owner.from('gallery').upload(image, { name: 'one.png' });
    const second = await owner.from('gallery').upload(image, { name: 'two.png' });
    const fetch = countingFetch();
    const reader = live.client<Database>({ fetch });
    const url = await reader.from('gallery').url(first.id);
    expect(url).toBe(`${live.server.url}/files/gallery/${first.id}`);
    const opened = await globalThis.fetch(url);
    expect(opened.status).toBe(200);
    expect(await digestOf(opened)).toBe(sha256(image));
    const variant = await reader.from('gallery').url(second.id, { transform: { width: 16, format: 'png' } });
    expect(variant).toBe(`${live.server.url}/files/gallery/${second.id}?width=16&format=png`);
    const small = await globalThis.fetch(variant);
    expect(small.headers.get('content-type')).toBe('image/png');
    await small.body?.cancel();
    expect(fetch.calls.filter((call) => call.method === 'HEAD')).toHaveLength(1);
    // Signed on request all the same.
    await expect(reader.from('gallery').url(first.id, { public: false })).resolves.toContain('sig=');
  });
});

describe('resumable upload (tus)', () => {
  it('uploads above the threshold by tus, in chunks, with progress, and returns the row', async () => {
    const bytes = noise(7 * 1024 * 1024, 33);
    const calls: [number, number | null][] = [];
    const fetch = countingFetch();
    const client = live.client<Database>({ storage: memoryStorage(), fetch });
    await client.auth.signIn({ email: memberSession.user.email, password: PASSWORD });
    const row = await client.from('avatars').upload(new Blob([bytes]), {
      name: 'resumable.bin',
      metadata: { caption: 'by tus', tags: { big: true } },
      chunkSize: 2 * 1024 * 1024,
      onProgress: (sent, total) => calls.push([sent, total]),
    });
    expect(row).toMatchObject({ name: 'resumable.bin', size: bytes.length, sha256: sha256(bytes), caption: 'by tus', tags: { big: true }, user_id: memberSession.user.id });
    const patches = fetch.calls.filter((call) => call.method === 'PATCH');
    expect(patches.length).toBe(4);
    expect(patches.every((call) => call.path.startsWith('/files/avatars/uploads/'))).toBe(true);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThan(calls[i - 1]![0]);
    expect(calls.at(-1)).toEqual([bytes.length, bytes.length]);
    expect(await digestOf(await client.from('avatars').download(row.id))).toBe(sha256(bytes));
  });

  it('takes resumable: true below the threshold, and aborts with the signal', async () => {
    const row = await member.from('avatars').upload(new Blob(['small but resumable']), { name: 's.txt', resumable: true });
    expect(row).toMatchObject({ name: 's.txt', size: 19 });
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = member.from('avatars').upload(new Blob([noise(8 * 1024 * 1024, 9)]), {
      name: 'never.bin',
      chunkSize: 1024 * 1024,
      onProgress: (sent) => {
        if (sent > 0) controller.abort(reason);
      },
      signal: controller.signal,
    });
    await expect(pending).rejects.toBe(reason);
    const { data } = await member.from('avatars').list({ filter: { name: 'never.bin' } });
    expect(data).toHaveLength(0);
  });

  it('refreshes an expired token once and carries on', async () => {
    const session = await sessionOf(live.client().auth.signIn({ email: memberSession.user.email, password: PASSWORD }));
    const storage = memoryStorage();
    storage.setItem('files.tus', JSON.stringify({ ...session, accessToken: expiredCopy(session.accessToken), expiresAt: Date.now() + 3600_000 }));
    const fetch = countingFetch();
    const client = live.client<Database>({ storage, storageKey: 'files.tus', fetch, autoRefresh: false });
    const bytes = noise(100_000, 41);
    const row = await client.from('avatars').upload(new Blob([bytes]), { name: 'late.bin', resumable: true });
    expect(row).toMatchObject({ name: 'late.bin', sha256: sha256(bytes), user_id: memberSession.user.id });
    expect(fetch.count('/auth/refresh')).toBe(1);
  });

  it('answers a refusal at creation as an ApiError', async () => {
    const refused = await member
      .from('avatars')
      .upload(new Blob(['x']), { resumable: true, metadata: { nope: 'x' } as never })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});
