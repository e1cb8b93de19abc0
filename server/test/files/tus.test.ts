import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEmailSettings } from '../../src/auth/email/settings.js';
import { anonHeaders, errorOf, freePort, signUp, startHarness, type Account, type Harness, type HarnessOptions } from '../harness.js';
import { png } from './support.js';

/**
 * Resumable uploads (tus 1.0, API.md, Files and Part 2 in detail): tus-js-client against real harnesses on one
 * database and one storage directory, so a second process continues what the first began; and the protocol's edges
 * by hand (supertest), where the exact answers matter.
 */

const MiB = 1024 * 1024;
let directory: string;
let h: Harness;
let h2: Harness;
let owner: Account;
let member: Account;
let other: Account;

/** A harness whose PUBLIC_URL is its own address: `Location` is absolute under it. */
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const port = await freePort();
  return startHarness({ ...options, port, email: defaultEmailSettings(`http://127.0.0.1:${port}`), storage: { driver: 'file', directory } });
}

async function bucket(body: Record<string, unknown>): Promise<void> {
  const response = await h.request().post('/admin/tables').set(owner.auth).send({ kind: 'files', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

beforeAll(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-tus-'));
  h = await harness();
  h2 = await harness({ database: h.database });
  owner = await signUp(h);
  member = await signUp(h);
  other = await signUp(h);
  await bucket({ name: 'docs', policy: 'owner-scoped', columns: [{ name: 'caption', type: 'text' }] });
  await bucket({ name: 'small', policy: 'owner-scoped', maxFileSize: MiB });
  await bucket({ name: 'drop', policy: 'rules', rules: { read: 'true', create: 'true', update: 'false', delete: 'false' } });
  await bucket({ name: 'closed', policy: 'rules', rules: { read: 'true', create: 'false', update: 'false', delete: 'false' } });
  await bucket({
    name: 'checked',
    policy: 'rules',
    columns: [{ name: 'caption', type: 'text' }],
    rules: { read: 'user_id = @auth.id', create: "caption = 'ok' and user_id = @auth.id", update: 'false', delete: 'false' },
  });
  // The second process learns of the buckets from its schema notifications.
  for (let tries = 0; (await h2.request().get('/api/checked').set(member.auth)).status !== 200; tries += 1) {
    if (tries > 100) throw new Error('the second process never saw the buckets');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

afterAll(async () => {
  await h2?.close();
  await h?.close();
  await fs.rm(directory, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const endpoint = (target: Harness, table: string) => `${target.url}/files/${table}/uploads`;

interface Sent {
  url: string;
  recordId: string | null;
  /** Upload-Offset of every PATCH, in order. */
  patches: number[];
}

type UploadOptions = Partial<tus.UploadOptions> & { target?: Harness; table?: string; auth?: Record<string, string> };

/** One tus-js-client upload to its end (or its error). */
function upload(file: Buffer, options: UploadOptions = {}): Promise<Sent> {
  const { target = h, table = 'docs', auth = member.auth, ...rest } = options;
  const patches: number[] = [];
  return new Promise((resolve, reject) => {
    const sending: tus.Upload = new tus.Upload(file, {
      endpoint: endpoint(target, table),
      headers: auth,
      retryDelays: null,
      metadata: { filename: 'data.bin', filetype: 'application/x-anything' },
      onBeforeRequest(request) {
        if (request.getMethod() === 'PATCH') patches.push(Number(request.getHeader('Upload-Offset')));
      },
      onSuccess({ lastResponse }) {
        resolve({ url: sending.url!, recordId: lastResponse.getHeader('Basalt-Record-Id') ?? null, patches });
      },
      onError: reject,
      ...rest,
    });
    sending.start();
  });
}

/** Starts an upload and aborts it once `after` bytes were accepted: its URL, for resuming. */
function uploadUntil(file: Buffer, after: number, options: UploadOptions = {}): Promise<string> {
  const { target = h, table = 'docs', auth = member.auth, ...rest } = options;
  return new Promise((resolve, reject) => {
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      void sending.abort().then(() => resolve(sending.url!), reject);
    };
    const sending: tus.Upload = new tus.Upload(file, {
      endpoint: endpoint(target, table),
      headers: auth,
      retryDelays: null,
      metadata: { name: 'resumed.bin' },
      onChunkComplete: (_chunk, accepted) => accepted >= after && stop(),
      onSuccess: () => reject(new Error('the upload finished before it was aborted')),
      onError: reject,
      ...rest,
    });
    sending.start();
  });
}

/** The row and the bytes as the API serves them, checked against what was sent. */
async function expectFile(recordId: string | null | undefined, sent: Buffer, table = 'docs', auth = member.auth, target = h): Promise<Record<string, unknown>> {
  expect(recordId).toBeTruthy();
  const row = await target.request().get(`/api/${table}/${recordId}`).set(auth);
  expect(row.status, JSON.stringify(row.body)).toBe(200);
  expect(row.body.data).toMatchObject({ id: recordId, size: sent.length, sha256: sha256(sent) });
  const bytes = await target.request().get(`/files/${table}/${recordId}`).set(auth).buffer(true).parse((response, done) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => done(null, Buffer.concat(chunks)));
  });
  expect(bytes.status).toBe(200);
  expect(Buffer.compare(bytes.body as Buffer, sent)).toBe(0);
  return row.body.data as Record<string, unknown>;
}

async function sql<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = await h.sql();
  return (await client.query(text, values)).rows as T[];
}

/** Every file under the storage directory (temporary files included). */
async function stored(): Promise<string[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}

const idOf = (url: string) => url.split('/').pop()!;
const partsOf = async (id: string) => sql(`SELECT key FROM _basalt_file_objects WHERE variant = $1`, [`tus:${id}`]);

/** A raw creation: the answer (supertest), for the protocol's edges. */
function create(length: number, metadata: Record<string, string> = {}, auth: Record<string, string> = member.auth, table = 'docs', target = h) {
  const encoded = Object.entries(metadata).map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',');
  const request = target.request().post(`/files/${table}/uploads`).set(auth).set('Tus-Resumable', '1.0.0').set('Upload-Length', String(length));
  return encoded ? request.set('Upload-Metadata', encoded) : request;
}

function patch(url: string, offset: number, bytes: Buffer, auth: Record<string, string> = member.auth, target = h) {
  return target.request().patch(new URL(url).pathname).set(auth).set('Tus-Resumable', '1.0.0').set('Upload-Offset', String(offset)).set('Content-Type', 'application/offset+octet-stream').send(bytes);
}

function head(url: string, auth: Record<string, string> = member.auth, target = h) {
  return target.request().head(new URL(url).pathname).set(auth).set('Tus-Resumable', '1.0.0');
}

/** A PATCH that sends `sent` of its `length` bytes and stalls (a connection gone half-open); `answer` is its answer. */
async function stalledPatch(url: string, offset: number, sent: string | Buffer, length: number) {
  const id = idOf(url);
  const request = http.request(url, {
    method: 'PATCH',
    headers: { ...member.auth, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(length) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
  });
  request.write(sent);
  for (let tries = 0; (await sql(`SELECT 1 FROM _basalt_file_uploads WHERE id = $1 AND locked_by IS NOT NULL`, [id])).length === 0; tries += 1) {
    if (tries > 100) throw new Error('the PATCH never took the upload');
    await new Promise((done) => setTimeout(done, 20));
  }
  return { request, answer };
}

describe('tus-js-client uploads', () => {
  it('1-byte chunks: the row and the bytes, Basalt-Record-Id on the last PATCH and on HEAD afterwards', async () => {
    const file = Buffer.from('hello, resumable world\n');
    const sent = await upload(file, { chunkSize: 1, metadata: { filename: 'hello.txt', filetype: 'image/png', caption: 'one byte at a time' } });
    expect(sent.patches).toHaveLength(file.length);
    expect(sent.url.startsWith(`${h.url}/files/docs/uploads/`)).toBe(true);
    const row = await expectFile(sent.recordId, file);
    // `filetype` is ignored: the type is Basalt's own reading of the bytes.
    expect(row).toMatchObject({ name: 'hello.txt', type: 'text/plain', caption: 'one byte at a time', user_id: member.id });
    const after = await head(sent.url);
    expect(after.status).toBe(200);
    expect(after.headers['upload-offset']).toBe(String(file.length));
    expect(after.headers['basalt-record-id']).toBe(sent.recordId);
    expect(after.headers['tus-resumable']).toBe('1.0.0');
    expect(await partsOf(idOf(sent.url))).toEqual([]);
  });

  it('64 KiB chunks of a picture', async () => {
    const file = await png(600, 400);
    expect(file.length).toBeGreaterThan(3 * 64 * 1024);
    const sent = await upload(file, { chunkSize: 64 * 1024, metadata: { name: 'picture.png' } });
    expect(sent.patches.length).toBe(Math.ceil(file.length / (64 * 1024)));
    expect(await expectFile(sent.recordId, file)).toMatchObject({ name: 'picture.png', type: 'image/png' });
  });

  it('5 MiB chunks of 12 MiB', async () => {
    const file = randomBytes(12 * MiB);
    const sent = await upload(file, { chunkSize: 5 * MiB });
    expect(sent.patches).toEqual([0, 5 * MiB, 10 * MiB]);
    expect(await expectFile(sent.recordId, file)).toMatchObject({ name: 'data.bin', type: 'application/octet-stream' });
    expect(await stored()).toContain(`docs/${sent.recordId}/${sha256(file)}`);
  });

  it('creation-with-upload: the first bytes in the POST, or all of them (201 with Basalt-Record-Id)', async () => {
    const file = randomBytes(200 * 1024);
    const sent = await upload(file, { uploadDataDuringCreation: true, chunkSize: 64 * 1024 });
    expect(sent.patches).toEqual([64 * 1024, 128 * 1024, 192 * 1024]);
    await expectFile(sent.recordId, file);
    const small = Buffer.from('all at once');
    const whole = await upload(small, { uploadDataDuringCreation: true });
    expect(whole.patches).toEqual([]);
    await expectFile(whole.recordId, small);
  });

  it('an empty file is a file at its creation', async () => {
    const sent = await upload(Buffer.alloc(0));
    await expectFile(sent.recordId, Buffer.alloc(0));
  });
});

describe('resuming', () => {
  it('aborted after a chunk, resumed by its URL', async () => {
    const file = randomBytes(3 * MiB);
    const url = await uploadUntil(file, MiB, { chunkSize: MiB });
    expect((await head(url)).headers['upload-offset']).toBe(String(MiB));
    const sent = await upload(file, { uploadUrl: url, chunkSize: MiB });
    expect(sent.patches).toEqual([MiB, 2 * MiB]);
    expect(sent.url).toBe(url);
    await expectFile(sent.recordId, file);
  });

  it('found again by findPreviousUploads (the URL kept by the client)', async () => {
    const urls = new Map<string, tus.PreviousUpload & { urlStorageKey: string }>();
    const urlStorage: tus.UrlStorage = {
      findAllUploads: async () => [...urls.values()],
      findUploadsByFingerprint: async (fingerprint) => [...urls.values()].filter((entry) => entry.urlStorageKey === fingerprint),
      removeUpload: async (key) => void urls.delete(key),
      addUpload: async (fingerprint, entry) => {
        urls.set(fingerprint, { ...entry, urlStorageKey: fingerprint });
        return fingerprint;
      },
    };
    const file = randomBytes(2 * MiB + 17);
    const url = await uploadUntil(file, MiB, { chunkSize: MiB, urlStorage, storeFingerprintForResuming: true });
    const resumed = new Promise<Sent>((resolve, reject) => {
      const patches: number[] = [];
      const sending: tus.Upload = new tus.Upload(file, {
        endpoint: endpoint(h, 'docs'),
        headers: member.auth,
        chunkSize: MiB,
        retryDelays: null,
        urlStorage,
        onBeforeRequest: (request) => void (request.getMethod() === 'PATCH' && patches.push(Number(request.getHeader('Upload-Offset')))),
        onSuccess: ({ lastResponse }) => resolve({ url: sending.url!, recordId: lastResponse.getHeader('Basalt-Record-Id') ?? null, patches }),
        onError: reject,
      });
      void sending.findPreviousUploads().then((previous) => {
        expect(previous).toHaveLength(1);
        sending.resumeFromPreviousUpload(previous[0]!);
        sending.start();
      }, reject);
    });
    const sent = await resumed;
    expect(sent.url).toBe(url);
    expect(sent.patches[0]).toBe(MiB);
    await expectFile(sent.recordId, file);
  });

  it('cut off in the middle of a PATCH: the bytes that arrived are kept, the rest follows', async () => {
    const file = randomBytes(8 * MiB);
    const url = (await create(file.length)).headers.location as string;
    // One PATCH for the whole file, its connection cut after 3 MiB.
    const cut = await stalledPatch(url, 0, file.subarray(0, 3 * MiB), file.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    cut.request.destroy();
    await cut.answer.catch(() => undefined);
    // The cut request lets go of the upload once its part is stored.
    let offset = 0;
    for (let tries = 0; offset === 0 && tries < 100; tries += 1) {
      offset = Number((await head(url)).headers['upload-offset']);
      if (offset === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(3 * MiB);
    const sent = await upload(file, { uploadUrl: url });
    expect(sent.patches).toEqual([offset]);
    await expectFile(sent.recordId, file);
  });

  it('begun in one process, continued and finished in another', async () => {
    const file = randomBytes(3 * MiB + 5);
    const url = await uploadUntil(file, MiB, { chunkSize: MiB });
    // A load balancer would send the next request anywhere: here, to the second process.
    const there = url.replace(h.url, h2.url);
    expect((await head(there, member.auth, h2)).headers['upload-offset']).toBe(String(MiB));
    const sent = await upload(file, { target: h2, uploadUrl: there, chunkSize: MiB });
    expect(sent.patches).toEqual([MiB, 2 * MiB, 3 * MiB]);
    await expectFile(sent.recordId, file, 'docs', member.auth, h);
    await expectFile(sent.recordId, file, 'docs', member.auth, h2);
    expect((await head(url)).headers['basalt-record-id']).toBe(sent.recordId);
  });

  it('two PATCHes at one offset in two processes: one wins, the other is refused and leaves nothing', async () => {
    const created = await create(10);
    const url = created.headers.location as string;
    const answers = await Promise.all([patch(url, 0, Buffer.from('aaaaa')), patch(url, 0, Buffer.from('bbbbb'), member.auth, h2)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 409]);
    expect(errorOf(answers.find((answer) => answer.status === 409)!).code).toBe('CONFLICT');
    const won = answers.find((answer) => answer.status === 204)!;
    expect(won.headers['upload-offset']).toBe('5');
    expect(await partsOf(idOf(url))).toHaveLength(1);
    const last = await patch(url, 5, Buffer.from('ccccc'));
    expect(last.status).toBe(204);
    const first = won === answers[0] ? 'aaaaa' : 'bbbbb';
    await expectFile(last.headers['basalt-record-id'], Buffer.from(`${first}ccccc`));
  });
});

describe('one writer per offset', () => {
  it('a stalled PATCH in one process lets go when another process asks for the upload, keeping what it got', async () => {
    const url = (await create(10)).headers.location as string;
    const stalled = await stalledPatch(url, 0, 'aa', 5);
    // The HEAD asks the holder to let go (release_asked, read when it renews its lease); tus then ends its request.
    const asked = await head(url, member.auth, h2);
    expect(asked.status).toBe(200);
    expect(asked.headers['upload-offset']).toBe('2');
    stalled.request.destroy();
    await stalled.answer.catch(() => undefined);
    const last = await patch(url, 2, Buffer.from('cdefghij'), member.auth, h2);
    expect(last.status).toBe(204);
    await expectFile(last.headers['basalt-record-id'], Buffer.from('aacdefghij'));
  });

  it('a lease that lapsed mid-PATCH: the second writer wins the offset, the first is refused (409) and its part deleted', async () => {
    const url = (await create(10)).headers.location as string;
    const id = idOf(url);
    // The first PATCH sends 2 of its 5 bytes and stalls, holding the upload; then its process stalls past the lease.
    const first = await stalledPatch(url, 0, 'aa', 5);
    await sql(`UPDATE _basalt_file_uploads SET locked_until = now() - interval '1 second' WHERE id = $1`, [id]);
    const second = await patch(url, 0, Buffer.from('bbbbb'), member.auth, h2);
    expect(second.status).toBe(204);
    first.request.end('aaa');
    const answer = await first.answer;
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.body).error.code).toBe('CONFLICT');
    const parts = await partsOf(id);
    expect(parts).toHaveLength(1);
    expect((await sql<{ part_keys: string[] }>(`SELECT part_keys FROM _basalt_file_uploads WHERE id = $1`, [id]))[0]!.part_keys).toEqual([parts[0]!.key]);
    const last = await patch(url, 5, Buffer.from('ccccc'));
    expect(last.status).toBe(204);
    await expectFile(last.headers['basalt-record-id'], Buffer.from('bbbbbccccc'));
  });
});

describe('the protocol by hand', () => {
  it('creation: 201 with an absolute Location under PUBLIC_URL; the last PATCH 204 with Basalt-Record-Id and Upload-Offset', async () => {
    const created = await create(6, { name: 'six.txt', caption: 'by hand' });
    expect(created.status).toBe(201);
    expect(created.headers['tus-resumable']).toBe('1.0.0');
    const url = created.headers.location as string;
    expect(url).toMatch(new RegExp(`^${h.url}/files/docs/uploads/[A-Za-z0-9_-]{22}$`));
    expect(idOf(url)).not.toBe('uploads');
    expect(created.headers['upload-expires']).toBeTruthy();
    const first = await patch(url, 0, Buffer.from('abc'));
    expect(first.status).toBe(204);
    expect(first.headers['upload-offset']).toBe('3');
    expect(first.headers['basalt-record-id']).toBeUndefined();
    const stale = await patch(url, 0, Buffer.from('abc'));
    expect(stale.status).toBe(409);
    expect(errorOf(stale).code).toBe('CONFLICT');
    const last = await patch(url, 3, Buffer.from('def'));
    expect(last.status).toBe(204);
    expect(last.headers['upload-offset']).toBe('6');
    const row = await expectFile(last.headers['basalt-record-id'], Buffer.from('abcdef'));
    expect(row).toMatchObject({ name: 'six.txt', caption: 'by hand' });
    // Past its end nothing more is taken.
    expect((await patch(url, 6, Buffer.from('g'))).status).toBe(413);
  });

  it('Tus-Resumable missing or another version: 412 in the envelope, with Tus-Version', async () => {
    const missing = await h.request().post('/files/docs/uploads').set(member.auth).set('Upload-Length', '3');
    expect(missing.status).toBe(412);
    expect(errorOf(missing).details).toEqual({ parameter: 'Tus-Resumable' });
    expect(missing.headers['tus-version']).toBe('1.0.0');
    const other = await h.request().post('/files/docs/uploads').set(member.auth).set('Tus-Resumable', '0.2.2').set('Upload-Length', '3');
    expect(other.status).toBe(412);
    expect(other.headers['tus-version']).toBe('1.0.0');
  });

  it('errors are the envelope: no credentials 401, an unknown bucket 404, no Upload-Length 400, GET 404', async () => {
    const anonymous = await h.request().post('/files/docs/uploads').set('Tus-Resumable', '1.0.0').set('Upload-Length', '3');
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous).code).toBe('UNAUTHORIZED');
    const unknown = await create(3, {}, member.auth, 'nope');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).code).toBe('NOT_FOUND');
    const lengthless = await h.request().post('/files/docs/uploads').set(member.auth).set('Tus-Resumable', '1.0.0');
    expect(lengthless.status).toBe(400);
    expect(errorOf(lengthless).details).toEqual({ parameter: 'Upload-Length' });
    const deferred = await h.request().post('/files/docs/uploads').set(member.auth).set('Tus-Resumable', '1.0.0').set('Upload-Defer-Length', '1');
    expect(deferred.status).toBe(400);
    expect(errorOf(deferred).details).toEqual({ parameter: 'Upload-Defer-Length' });
    const listing = await h.request().get('/files/docs/uploads').set(member.auth);
    expect(listing.status).toBe(404);
    expect(errorOf(listing).code).toBe('NOT_FOUND');
    const created = await create(3);
    const read = await h.request().get(new URL(created.headers.location as string).pathname).set(member.auth);
    expect(read.status).toBe(404);
    const badType = await h.request().patch(new URL(created.headers.location as string).pathname).set(member.auth).set('Tus-Resumable', '1.0.0').set('Upload-Offset', '0').set('Content-Type', 'text/plain').send('abc');
    expect(badType.status).toBe(400);
    expect(errorOf(badType).details).toEqual({ parameter: 'content-type' });
  });

  it("OPTIONS is tus's discovery (versions, extensions, the largest size); a CORS preflight stays a preflight", async () => {
    const discovery = await h.request().options('/files/docs/uploads').set(member.auth);
    expect(discovery.status).toBe(204);
    expect(discovery.headers['tus-version']).toBe('1.0.0');
    expect(discovery.headers['tus-extension']?.split(',')).toEqual(expect.arrayContaining(['creation', 'termination']));
    const preflight = await h.request().options('/files/docs/uploads').set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'PATCH').set('Access-Control-Request-Headers', 'upload-offset, tus-resumable');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('PATCH');
    expect(preflight.headers['access-control-allow-headers']).toContain('upload-offset');
    expect(preflight.headers['tus-version']).toBeUndefined();
  });

  it('X-HTTP-Method-Override: PATCH through a POST', async () => {
    const created = await create(2);
    const url = created.headers.location as string;
    const overridden = await h.request().post(new URL(url).pathname).set(member.auth).set('X-HTTP-Method-Override', 'PATCH').set('Tus-Resumable', '1.0.0').set('Upload-Offset', '0').set('Content-Type', 'application/offset+octet-stream').send(Buffer.from('hi'));
    expect(overridden.status).toBe(204);
    await expectFile(overridden.headers['basalt-record-id'], Buffer.from('hi'));
  });
});

describe('who may', () => {
  it("another user's HEAD, PATCH and DELETE are 404, as for an upload that does not exist; the creator's still work", async () => {
    const created = await create(4);
    const url = created.headers.location as string;
    for (const answer of [await head(url, other.auth), await patch(url, 0, Buffer.from('zz'), other.auth), await h.request().delete(new URL(url).pathname).set(other.auth).set('Tus-Resumable', '1.0.0')]) {
      expect(answer.status).toBe(404);
    }
    const nowhere = await patch(url.replace(idOf(url), 'A'.repeat(22)), 0, Buffer.from('zz'), other.auth);
    expect(nowhere.status).toBe(404);
    expect(errorOf(nowhere).message).toBe(errorOf(await patch(url, 0, Buffer.from('zz'), other.auth)).message);
    // Nor through another bucket's path, nor as anon.
    expect((await head(url.replace('/docs/', '/small/'))).status).toBe(404);
    expect((await head(url, anonHeaders(h))).status).toBe(404);
    expect((await patch(url, 0, Buffer.from('wxyz'))).status).toBe(204);
  });

  it('anon: an upload of anon continues as anon (its id is its secret), never as a signed-in user; and the reverse', async () => {
    const anon = anonHeaders(h);
    const sent = await upload(Buffer.from('from nobody'), { table: 'drop', auth: anon, chunkSize: 4 });
    const row = await h.request().get(`/api/drop/${sent.recordId}`).set(anon);
    expect(row.body.data).toMatchObject({ user_id: null, name: 'data.bin', size: 11 });
    const created = await create(4, {}, anon, 'drop');
    expect(created.status).toBe(201);
    const url = created.headers.location as string;
    expect((await head(url, member.auth)).status).toBe(404);
    expect((await patch(url, 0, Buffer.from('ab'), member.auth)).status).toBe(404);
    expect((await patch(url, 0, Buffer.from('ab'), anon)).status).toBe(204);
    const mine = (await create(4, {}, member.auth, 'drop')).headers.location as string;
    expect((await head(mine, anon)).status).toBe(404);
  });

  it('metadata: name or filename, the columns; filetype and type ignored; any other key 400 naming it', async () => {
    const unknown = await create(3, { name: 'a.txt', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).details).toEqual({ field: 'colour' });
    const id = await create(3, { id: 'chosen' });
    expect(id.status).toBe(400);
    expect(errorOf(id).details).toEqual({ field: 'id' });
    const badName = await create(3, { name: 'a/b' });
    expect(badName.status).toBe(400);
    expect(errorOf(badName).details).toEqual({ field: 'name' });
    const fine = await create(3, { filename: 'via-filename.txt', type: 'x/y', filetype: 'x/z', caption: 'c' });
    expect(fine.status).toBe(201);
    const last = await patch(fine.headers.location as string, 0, Buffer.from('abc'));
    expect(await expectFile(last.headers['basalt-record-id'], Buffer.from('abc'))).toMatchObject({ name: 'via-filename.txt', caption: 'c', type: 'text/plain' });
  });

  it('create refused whatever the row: 403 at creation', async () => {
    const refused = await create(3, {}, member.auth, 'closed');
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('FORBIDDEN');
  });

  it('create refused by the row at the last byte: that answer, and nothing left behind', async () => {
    const before = await stored();
    const created = await create(2 * 64 * 1024, { caption: 'no' }, member.auth, 'checked');
    expect(created.status).toBe(201);
    const url = created.headers.location as string;
    expect((await patch(url, 0, randomBytes(64 * 1024))).status).toBe(204);
    expect(await partsOf(idOf(url))).toHaveLength(1);
    const last = await patch(url, 64 * 1024, randomBytes(64 * 1024));
    expect(last.status, JSON.stringify(last.body)).toBe(403);
    expect(errorOf(last).code).toBe('FORBIDDEN');
    expect(last.headers['basalt-record-id']).toBeUndefined();
    expect(await partsOf(idOf(url))).toEqual([]);
    expect(await sql(`SELECT key FROM _basalt_file_objects WHERE table_name = 'checked'`)).toEqual([]);
    expect(await sql(`SELECT id FROM _basalt_file_uploads WHERE id = $1`, [idOf(url)])).toEqual([]);
    expect(await stored()).toEqual(before);
    expect((await head(url)).status).toBe(404);
    // The row that passes becomes a file.
    const sent = await upload(Buffer.from('passes'), { table: 'checked', metadata: { caption: 'ok' } });
    await expectFile(sent.recordId, Buffer.from('passes'), 'checked');
  });

  it('Upload-Length past maxFileSize: 413 at creation, nothing created', async () => {
    const tooLarge = await create(MiB + 1, {}, member.auth, 'small');
    expect(tooLarge.status).toBe(413);
    expect(errorOf(tooLarge).code).toBe('PAYLOAD_TOO_LARGE');
    expect(await sql(`SELECT id FROM _basalt_file_uploads WHERE table_name = 'small'`)).toEqual([]);
    expect((await create(MiB, {}, member.auth, 'small')).status).toBe(201);
  });
});

describe('what is left behind', () => {
  it('termination (DELETE) removes the upload and its parts', async () => {
    const created = await create(10);
    const url = created.headers.location as string;
    expect((await patch(url, 0, Buffer.from('12345'))).status).toBe(204);
    const [part] = await partsOf(idOf(url));
    expect(await stored()).toContain(part!.key);
    const terminated = await h.request().delete(new URL(url).pathname).set(member.auth).set('Tus-Resumable', '1.0.0');
    expect(terminated.status).toBe(204);
    expect(await partsOf(idOf(url))).toEqual([]);
    expect(await stored()).not.toContain(part!.key);
    expect((await head(url)).status).toBe(404);
  });

  it("a killed upload's parts stay while the upload lives (24 h) and are swept after", async () => {
    const created = await create(10);
    const url = created.headers.location as string;
    const id = idOf(url);
    expect((await patch(url, 0, Buffer.from('12345'))).status).toBe(204);
    const [part] = await partsOf(id);
    // Older than the sweep's hour, but the upload holds them.
    await sql(`UPDATE _basalt_file_objects SET created_at = now() - interval '2 hours' WHERE variant = $1`, [`tus:${id}`]);
    await sql(`UPDATE _basalt_file_uploads SET created_at = now() - interval '23 hours' WHERE id = $1`, [id]);
    await h.services.files.sweep.run();
    expect(await partsOf(id)).toHaveLength(1);
    expect((await head(url)).status).toBe(200);
    await sql(`UPDATE _basalt_file_uploads SET created_at = now() - interval '25 hours' WHERE id = $1`, [id]);
    // Past its 24 h and before the sweep, the protocol's answer for an expired upload.
    expect((await head(url)).status).toBe(410);
    const expired = await patch(url, 5, Buffer.from('67890'));
    expect(expired.status).toBe(410);
    expect(errorOf(expired).code).toBe('NOT_FOUND');
    await h.services.files.sweep.run();
    expect(await partsOf(id)).toEqual([]);
    expect(await stored()).not.toContain(part!.key);
    expect((await head(url)).status).toBe(404);
  });
});
