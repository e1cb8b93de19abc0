import sharp from 'sharp';
import { expect } from 'vitest';
import { PHOTOS_MAX_BYTES } from './fixture.js';
import type { Traffic } from './traffic.js';

/**
 * Files (issue 28) through the Prism proxy (prism.test.ts), on the fixture's buckets (`photos` public-read, `docs`
 * owner-scoped): uploads as the body and as multipart/form-data, downloads with ranges, conditional requests and image
 * variants, HEAD, signed links opened without credentials, replacements, the buckets' records on `/api` and the owner's
 * tools, each with its documented refusals. Prism's proxy reads a request body as text and forwards what it decoded,
 * so files sent through it are text; an image is uploaded to the service directly and checked against the document
 * here (`Traffic.direct`), then read back through Prism like any file.
 */

type Headers = Record<string, string>;

export interface FilesRun {
  t: Traffic;
  owner: Headers;
  member: Headers;
  anon: Headers;
  /** The service itself: what the document leaves out is asked there. */
  upstream: string;
}

const text = (data: string, type = 'text/plain') => ({ raw: { type, data } });
const details = (answer: { body: { error: { details?: unknown } } }) => answer.body.error.details;

/** A real PNG (a gradient). */
async function png(width: number, height: number): Promise<Uint8Array> {
  const pixels = Buffer.alloc(width * height * 3, 0);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 256;
  return new Uint8Array(await sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer());
}

export async function filesTraffic({ t, owner, member, anon, upstream }: FilesRun): Promise<void> {
  // Uploads to photos: only the owner writes; text and images only, at most 64 KiB.
  const note = (await t.call('POST', '/files/photos?name=note.txt&caption=hello&rank=3', { headers: owner, ...text('hello, files'), status: 201 })).body.data;
  expect(note).toMatchObject({ name: 'note.txt', type: 'text/plain', size: 12, caption: 'hello', rank: 3, user_id: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  const picture = (await t.direct('POST', '/files/photos?name=picture.png', { headers: owner, raw: { type: 'image/png', data: await png(64, 48) }, status: 201 })).body.data;
  expect(picture).toMatchObject({ type: 'image/png', name: 'picture.png' });
  expect(details(await t.call('POST', '/files/photos', { headers: owner, ...text('%PDF-1.4\n%\u00e9\n', 'application/pdf'), status: 400 }))).toEqual({ field: 'type' });
  await t.call('POST', '/files/photos', { headers: owner, ...text('x'.repeat(PHOTOS_MAX_BYTES + 1)), status: 413 });
  await t.call('POST', '/files/photos', { headers: member, ...text('not mine to add'), status: 403 });
  await t.call('POST', '/files/photos', { headers: anon, ...text('nor mine'), status: 403 });
  expect(details(await t.call('POST', '/files/photos?type=image%2Fpng', { headers: owner, ...text('a file column'), status: 400 }))).toEqual({ field: 'type' });
  await t.refusedByDocument('POST', '/files/photos?rank=three', { headers: owner, ...text('x') });
  await t.refusedByDocument('POST', '/files/photos?name=a%2Fb.txt', { headers: owner, ...text('x') });
  await t.refusedByDocument('POST', `/files/photos?name=${'n'.repeat(256)}`, { headers: owner, ...text('x') });

  // Downloads (anon may read photos): the bytes, HEAD, one range, not modified, a range past the end, variants.
  const whole = await t.call('GET', `/files/photos/${note.id}`, { headers: anon, status: 200 });
  expect(whole.body).toBe('hello, files');
  expect(whole.headers.get('etag')).toBe(`"${note.sha256}"`);
  expect(whole.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
  expect(whole.headers.get('content-disposition')).toBe('inline; filename="note.txt"; filename*=UTF-8\'\'note.txt');
  expect((await t.call('HEAD', `/files/photos/${note.id}`, { headers: member, status: 200 })).body).toBe('');
  const part = await t.call('GET', `/files/photos/${note.id}`, { headers: { ...anon, range: 'bytes=0-4' }, status: 206 });
  expect([part.body, part.headers.get('content-range')]).toEqual(['hello', 'bytes 0-4/12']);
  await t.call('HEAD', `/files/photos/${note.id}`, { headers: { ...anon, range: 'bytes=7-' }, status: 206 });
  await t.call('GET', `/files/photos/${note.id}`, { headers: { ...anon, 'if-none-match': `"${note.sha256}"` }, status: 304 });
  await t.call('HEAD', `/files/photos/${note.id}`, { headers: { ...anon, 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() }, status: 304 });
  expect((await t.call('GET', `/files/photos/${note.id}`, { headers: { ...anon, range: 'bytes=12-' }, status: 416 })).headers.get('content-range')).toBe('bytes */12');
  const variant = await t.call('GET', `/files/photos/${picture.id}?width=20&height=20&fit=contain&format=webp&quality=70`, { headers: anon, status: 200 });
  expect(variant.headers.get('content-type')).toBe('image/webp');
  expect(variant.headers.get('etag')).toBe(`"${picture.sha256}-w32h32-contain-webp-q70"`);
  await t.call('GET', `/files/photos/${picture.id}?width=16`, { headers: { ...anon, range: 'bytes=0-9' }, status: 206 });
  expect(details(await t.call('GET', `/files/photos/${note.id}?format=png`, { headers: anon, status: 400 }))).toEqual({ parameter: 'format' });
  expect(details(await t.call('GET', `/files/photos/${note.id}?download=1`, { headers: anon, status: 400 }))).toEqual({ parameter: 'download' });
  await t.call('GET', '/files/photos/nothing-here', { headers: anon, status: 404 });
  // Without any credentials: anon where anon reads the whole bucket (a plain URL), else 401.
  expect((await t.call('GET', `/files/photos/${note.id}`, { status: 200 })).body).toBe('hello, files');
  for (const query of ['width=4097', 'height=0', 'fit=stretch', 'format=gif', 'quality=101', 'expires=soon&sig=x']) await t.refusedByDocument('GET', `/files/photos/${picture.id}?${query}`, { headers: anon });

  // Signed links: opened without credentials, for the variant they name; a forged or half link is refused.
  const link = new URL((await t.call('POST', `/files/photos/${picture.id}/sign`, { headers: anon, body: { expiresIn: 600, transform: { width: 16, format: 'png' } }, status: 200 })).body.data.url);
  const viaLink = await t.call('GET', `${link.pathname}${link.search}`, { status: 200 });
  expect([viaLink.headers.get('content-type'), viaLink.headers.get('cache-control')]).toEqual(['image/png', expect.stringMatching(/^private, max-age=[0-9]+$/)]);
  const forged = new URL(link);
  forged.searchParams.set('width', '32');
  expect(details(await t.call('GET', `${forged.pathname}${forged.search}`, { status: 403 }))).toMatchObject({ reason: 'link' });
  forged.searchParams.delete('sig');
  expect(details(await t.call('GET', `${forged.pathname}${forged.search}`, { status: 400 }))).toEqual({ parameter: 'sig' });
  const noteLink = new URL((await t.call('POST', `/files/photos/${note.id}/sign`, { headers: member, body: { expiresIn: 60 }, status: 200 })).body.data.url);
  expect((await t.call('GET', `${noteLink.pathname}${noteLink.search}`, { status: 200 })).body).toBe('hello, files');
  expect(details(await t.call('POST', `/files/photos/${note.id}/sign`, { headers: member, body: { expiresIn: 60, transform: { width: 16 } }, status: 400 }))).toEqual({ field: 'transform' });
  await t.call('POST', '/files/photos/nothing-here/sign', { headers: member, body: { expiresIn: 60 }, status: 404 });
  for (const body of [{ expiresIn: 0 }, { expiresIn: 604_801 }, { expiresIn: 1.5 }, {}, { expiresIn: 60, transform: { width: 0 } }, { expiresIn: 60, extra: true }]) {
    await t.refusedByDocument('POST', `/files/photos/${note.id}/sign`, { headers: member, body });
  }

  // Replacing: the owner's right on photos; the old content's links stop; a missing id is 404.
  const replaced = (await t.call('PUT', `/files/photos/${note.id}?caption=again`, { headers: owner, ...text('hello again'), status: 200 })).body.data;
  expect(replaced).toMatchObject({ id: note.id, name: 'note.txt', size: 11, caption: 'again' });
  expect(details(await t.call('GET', `${noteLink.pathname}${noteLink.search}`, { status: 403 }))).toMatchObject({ reason: 'link' });
  await t.call('PUT', '/files/photos/nothing-here', { headers: owner, ...text('x'), status: 404 });
  await t.call('PUT', `/files/photos/${note.id}`, { headers: member, ...text('x'), status: 403 });

  // docs: a member's own files, uploaded as a form with every kind of metadata; nobody else's to read.
  const form = new FormData();
  for (const [name, value] of Object.entries({ label: 'minutes', tags: '["team",1]', pinned: 'true', due: '2026-12-01T10:00:00Z', weight: '2.5' })) form.set(name, value);
  form.set('file', new Blob(['# Minutes\n\nAll well.\n'], { type: 'text/markdown' }), 'minutes.md');
  const doc = (await t.call('POST', '/files/docs', { headers: member, multipart: form, status: 201 })).body.data;
  expect(doc).toMatchObject({ name: 'minutes.md', type: 'text/plain', label: 'minutes', tags: ['team', 1], pinned: true, due: '2026-12-01T10:00:00.000Z', weight: 2.5 });
  const withName = new FormData();
  withName.set('name', 'named.txt');
  withName.set('file', new Blob(['named']), 'ignored.txt');
  await t.call('POST', '/files/docs?label=from%20the%20query', { headers: member, multipart: withName, status: 201 });
  const bad = new FormData();
  bad.set('tags', 'not json');
  bad.set('file', new Blob(['x']), 'x.txt');
  expect(details(await t.call('POST', '/files/docs', { headers: member, multipart: bad, status: 400 }))).toEqual({ field: 'tags' });
  const fileless = new FormData();
  fileless.set('label', 'no file');
  await t.refusedByDocument('POST', '/files/docs', { headers: member, multipart: fileless });
  // A field the document does not name (its form admits no other; Prism's reading of forms drops unknown fields).
  const extra = new FormData();
  extra.set('nope', '1');
  extra.set('file', new Blob(['x']), 'x.txt');
  expect(details(await t.call('POST', '/files/docs', { headers: member, multipart: extra, status: 400 }))).toEqual({ field: 'nope' });
  expect((await t.call('GET', `/files/docs/${doc.id}`, { headers: member, status: 200 })).headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
  await t.call('HEAD', `/files/docs/${doc.id}`, { headers: member, status: 200 });
  await t.call('GET', `/files/docs/${doc.id}`, { headers: owner, status: 404 });
  await t.call('GET', `/files/docs/${doc.id}`, { headers: anon, status: 403 });
  await t.call('GET', `/files/docs/${doc.id}`, { status: 401 });
  expect((await t.call('PUT', `/files/docs/${doc.id}?label=v2&name=minutes-v2.md`, { headers: member, ...text('# Minutes v2\n'), status: 200 })).body.data).toMatchObject({ name: 'minutes-v2.md', label: 'v2' });
  await t.call('POST', `/files/docs/${doc.id}/sign`, { headers: member, body: { expiresIn: 604_800 }, status: 200 });
  await t.call('POST', `/files/docs/${doc.id}/sign`, { headers: owner, body: { expiresIn: 60 }, status: 404 });

  // The buckets' records on /api: read, list, change metadata, delete; the file columns and creates are not for /api.
  await t.call('GET', `/api/docs?label=v2&pinned=true&select=id,name,size`, { headers: member, status: 200 });
  await t.call('GET', `/api/docs/${doc.id}`, { headers: member, status: 200 });
  await t.call('GET', '/api/photos?order=size.desc&size[gte]=1', { headers: anon, status: 200 });
  await t.call('GET', `/api/photos/${picture.id}`, { headers: anon, status: 200 });
  await t.call('PUT', `/api/docs/${doc.id}`, { headers: member, body: { label: 'renamed', tags: null }, status: 200 });
  expect(details(await t.call('PUT', '/api/docs/not-a-file-yet', { headers: member, body: { label: 'x' }, status: 400 }))).toEqual({ field: 'body' });
  await t.refusedByDocument('PUT', `/api/docs/${doc.id}`, { headers: member, body: { user_id: 'someone' } });
  await t.refusedByDocument('PUT', `/api/docs/${doc.id}`, { headers: member, body: { size: 1 } });
  // Not in the document at all: a create of a bucket's record through /api (asked of the service directly).
  const created = await fetch(`${upstream}/api/docs`, { method: 'POST', headers: { ...member, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'x' }) });
  expect([created.status, ((await created.json()) as { error: { details: unknown } }).error.details]).toEqual([400, { field: 'body' }]);
  await t.call('PUT', `/api/photos/${note.id}`, { headers: owner, body: { caption: 'set on /api' }, status: 200 });
  // PATCH of one record and changes by filter take a bucket's metadata as PUT does (issue 30).
  await t.call('PATCH', `/api/photos/${note.id}`, { headers: owner, body: { caption: 'patched' }, status: 200 });
  await t.call('PATCH', `/api/docs/${doc.id}`, { headers: member, body: { label: 'patched' }, status: 200 });
  await t.call('PATCH', `/api/photos?id=${note.id}`, { headers: owner, body: { caption: 'by filter' }, status: 200 });
  await t.call('PATCH', `/api/docs?label=patched`, { headers: member, body: { pinned: true }, status: 200 });
  await t.call('DELETE', '/api/photos?caption=nothing-matches', { headers: owner, status: 200 });
  await t.call('DELETE', '/api/docs?all=true&dryRun=true', { headers: member, status: 200 });
  await t.call('DELETE', `/api/docs/${doc.id}`, { headers: member, status: 200 });
  await t.call('GET', `/files/docs/${doc.id}`, { headers: member, status: 404 });

  // The owner's tools: any file's bytes, and the buckets' records without a policy (the file columns included).
  const consoleView = await t.call('GET', `/admin/tables/photos/files/${note.id}`, { headers: owner, status: 200 });
  expect(consoleView.body).toBe('hello again');
  await t.call('GET', `/admin/tables/photos/files/${picture.id}?width=16`, { headers: { ...owner, 'if-none-match': '"stale"' }, status: 200 });
  await t.call('GET', '/admin/tables/posts/files/anything', { headers: owner, status: 404 });
  await t.call('GET', `/admin/tables/photos/files/${note.id}`, { headers: member, status: 403 });
  for (const table of ['photos', 'docs']) {
    const file = (await t.call('POST', `/files/${table}?name=admin.txt`, { headers: owner, ...text('for the console'), status: 201 })).body.data;
    await t.call('GET', `/admin/tables/${table}/records?order=createdAt.desc&limit=5`, { headers: owner, status: 200 });
    await t.call('GET', `/admin/tables/${table}/records/${file.id}`, { headers: owner, status: 200 });
    await t.call('PUT', `/admin/tables/${table}/records/${file.id}`, { headers: owner, body: { name: 'renamed.txt' }, status: 200 });
    await t.call('PATCH', `/admin/tables/${table}/records/${file.id}`, { headers: owner, body: { name: 'patched.txt' }, status: 200 });
    await t.call('PATCH', `/admin/tables/${table}/records?id=${file.id}`, { headers: owner, body: {}, status: 200 });
    await t.call('DELETE', `/admin/tables/${table}/records?id=${file.id}&dryRun=true`, { headers: owner, status: 200 });
    await t.call('DELETE', `/admin/tables/${table}/records/${file.id}`, { headers: owner, status: 200 });
  }
  await t.call('DELETE', `/api/photos/${picture.id}`, { headers: owner, status: 200 });
  await t.call('DELETE', `/api/photos/${note.id}`, { headers: owner, status: 200 });

  // A bucket made and described by the admin API.
  const bucket = { name: 'scratch_files', kind: 'files', maxFileSize: 1024, allowedTypes: ['image/png', 'text/*'], columns: [{ name: 'note', type: 'text' }] };
  const made = (await t.call('POST', '/admin/tables', { headers: owner, body: bucket, status: 201 })).body.data;
  expect([made.kind, made.bucket]).toEqual(['files', { maxFileSize: 1024, allowedTypes: ['image/png', 'text/*'] }]);
  expect((await t.call('GET', '/admin/tables/posts', { headers: owner, status: 200 })).body.data.kind).toBe('records');
  await t.call('DELETE', '/admin/tables/scratch_files', { headers: owner, status: 200 });
  for (const body of [{ name: 'nokind', maxFileSize: 10 }, { name: 'records_kind', kind: 'records', allowedTypes: ['image/*'] }, { ...bucket, allowedTypes: ['image'] }, { ...bucket, maxFileSize: 0 }, { ...bucket, kind: 'blobs' }]) {
    await t.refusedByDocument('POST', '/admin/tables', { headers: owner, body });
  }
}
