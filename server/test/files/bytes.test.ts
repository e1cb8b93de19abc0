import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, startFiles, type FilesHarness } from './support.js';

/**
 * Bytes in and out (API.md, Files), the same suite on both drivers: uploads raw and multipart, types from the bytes
 * whatever the claim, names, limits while streaming, Range, conditional requests, HEAD, replacement and deletion.
 */
describe.each(DRIVERS)('files on the %s driver', (driver) => {
  let f: FilesHarness;
  const upload = (body: Buffer | string, query = '', contentType = 'application/octet-stream', account = f.member) =>
    f.h.request().post(`/files/docs${query}`).set(account.auth).set('Content-Type', contentType).send(Buffer.isBuffer(body) ? body : Buffer.from(body));
  const get = (id: string, account = f.member) => f.h.request().get(`/files/docs/${id}`).set(account.auth).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

  beforeAll(async () => {
    f = await startFiles(driver);
    await f.bucket({ name: 'docs', maxFileSize: 64 * 1024, columns: [{ name: 'caption', type: 'text' }, { name: 'rank', type: 'integer' }, { name: 'tags', type: 'json' }] });
    await f.bucket({ name: 'pictures', allowedTypes: ['image/*'] });
    await f.bucket({ name: 'labelled', columns: [{ name: 'label', type: 'text', nullable: false }] });
  });
  afterAll(() => f.close());

  it('keeps the bytes, their sha256, size and type found from the bytes, the uploader and the metadata', async () => {
    const response = await upload('hello, world', '?name=greeting.txt&caption=hi&rank=3&tags=%5B%22a%22%5D', 'text/plain');
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'greeting.txt', type: 'text/plain', size: 12, caption: 'hi', rank: 3, tags: ['a'], user_id: f.member.id });
    expect(response.body.data.sha256).toBe('09ca7e4eaa6e8ae9c7d261167129184883644d07dfba7cbfbc4c8a2e08360d5b');
    const read = await get(response.body.data.id);
    expect(read.status).toBe(200);
    expect(read.body.toString()).toBe('hello, world');
    expect(read.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', etag: `"${response.body.data.sha256}"`, 'cache-control': 'private, max-age=0, must-revalidate', 'accept-ranges': 'bytes' });
    expect(read.headers['content-disposition']).toBe(`inline; filename="greeting.txt"; filename*=UTF-8''greeting.txt`);
    expect(await f.objects()).toContain(`docs/${response.body.data.id}/${response.body.data.sha256}`);
  });

  it('takes multipart/form-data: one file part, its name, fields before and after it', async () => {
    const response = await f.h.request().post('/files/docs').set(f.member.auth).field('caption', 'before').attach('file', Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n'), 'report é.pdf').field('rank', '7');
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'report é.pdf', type: 'application/pdf', caption: 'before', rank: 7 });
    const read = await get(response.body.data.id);
    expect(read.headers['content-disposition']).toBe(`inline; filename="report _.pdf"; filename*=UTF-8''report%20%C3%A9.pdf`);
    const two = await f.h.request().post('/files/docs').set(f.member.auth).attach('file', Buffer.from('a'), 'a.txt').attach('second', Buffer.from('b'), 'b.txt');
    expect(two.status).toBe(400);
  });

  it('finds the type in the bytes: HTML claimed as an image is text, SVG with script is never inline', async () => {
    const html = await upload('<html><script>alert(1)</script></html>', '?name=x.png', 'image/png');
    expect(html.body.data.type).toBe('text/plain');
    const svg = await upload('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', '?name=x.svg', 'image/svg+xml');
    expect(svg.body.data.type).toBe('image/svg+xml');
    const read = await get(svg.body.data.id);
    expect(read.headers['content-disposition']).toMatch(/^attachment;/);
    expect(read.headers['content-security-policy']).toContain('sandbox');
    const json = await upload('{"a":1}', '?name=a.json', 'application/json');
    expect(json.body.data.type).toBe('application/json');
    expect((await get(json.body.data.id)).headers['content-disposition']).toMatch(/^attachment;/);
    const binary = await upload(Buffer.from([0, 1, 2, 3, 255]), '?name=blob', 'text/html');
    expect(binary.body.data.type).toBe('application/octet-stream');
    const refused = await f.h.request().post('/files/pictures?name=a.txt').set(f.member.auth).set('Content-Type', 'image/png').send(Buffer.from('not an image'));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ field: 'type' });
  });

  it('refuses names that could escape or break a header, and metadata that is no column', async () => {
    for (const name of ['../../etc/passwd', 'a\\b', 'line\nbreak', '', 'x'.repeat(256)]) {
      const response = await upload('x', `?name=${encodeURIComponent(name)}`);
      expect(response.status, name).toBe(400);
      expect(response.body.error.details).toEqual({ field: 'name' });
    }
    for (const [query, field] of [['?id=chosen', 'id'], ['?nope=1', 'nope'], ['?size=1', 'size'], ['?sha256=ab', 'sha256'], ['?user_id=' + f.other.id, 'user_id'], ['?rank=x', 'rank'], ['?tags={', 'tags']] as const) {
      const response = await upload('x', query);
      expect(response.status, query).toBe(400);
      expect(response.body.error.details).toEqual({ field });
    }
    const unlabelled = await f.h.request().post('/files/labelled?name=x').set(f.member.auth).send(Buffer.from('x'));
    expect([unlabelled.status, unlabelled.body.error.details]).toEqual([400, { field: 'label' }]);
    const tusUnlabelled = await f.h.request().post('/files/labelled/uploads').set(f.member.auth).set('Tus-Resumable', '1.0.0').set('Upload-Length', '1');
    expect([tusUnlabelled.status, tusUnlabelled.body.error.details]).toEqual([400, { field: 'label' }]);
    const traversal = await f.h.request().get('/files/docs/..%2F..%2Fetc%2Fpasswd').set(f.member.auth);
    expect(traversal.status).toBe(404);
  });

  it('stops a body past maxFileSize while it streams: 413, nothing kept', async () => {
    const before = await f.objects();
    const registered = (await f.registered()).length;
    const big = Buffer.alloc(64 * 1024 + 1, 7);
    const response = await upload(big, '?name=big');
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // Without a declared length the limit is found while streaming.
    const chunked = await fetch(`${f.h.url}/files/docs?name=big`, {
      method: 'POST',
      headers: { ...f.member.auth, 'Content-Type': 'application/octet-stream' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(8 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await f.objects()).toEqual(before);
    expect((await f.registered()).length).toBe(registered);
  });

  it('answers one Range, several whole, past the end 416, with If-Range; HEAD without a body', async () => {
    const { body } = await upload('0123456789', '?name=digits.txt', 'text/plain');
    const id = body.data.id;
    const range = (value: string, extra: Record<string, string> = {}) => get(id).set('Range', value).set(extra);
    const first = await range('bytes=2-5');
    expect([first.status, first.body.toString(), first.headers['content-range']]).toEqual([206, '2345', 'bytes 2-5/10']);
    const suffix = await range('bytes=-3');
    expect([suffix.status, suffix.body.toString()]).toEqual([206, '789']);
    const open = await range('bytes=8-');
    expect(open.body.toString()).toBe('89');
    const clipped = await range('bytes=5-100');
    expect([clipped.status, clipped.body.toString()]).toEqual([206, '56789']);
    const several = await range('bytes=0-1,3-4');
    expect([several.status, several.body.toString()]).toEqual([200, '0123456789']);
    const overlapping = await range('bytes=0-5,1-6,2-7');
    expect(overlapping.status).toBe(200);
    const many = await range(`bytes=${Array.from({ length: 500 }, (_, i) => `${i}-${i}`).join(',')}`);
    expect([many.status, many.body.length]).toEqual([200, 10]);
    const past = await range('bytes=10-20');
    expect([past.status, past.headers['content-range']]).toEqual([416, 'bytes */10']);
    const garbage = await range('pages=1-2');
    expect(garbage.status).toBe(200);
    const staleIfRange = await range('bytes=0-1', { 'If-Range': '"other"' });
    expect(staleIfRange.status).toBe(200);
    const goodIfRange = await range('bytes=0-1', { 'If-Range': `"${body.data.sha256}"` });
    expect(goodIfRange.status).toBe(206);
    const head = await f.h.request().head(`/files/docs/${id}`).set(f.member.auth);
    expect([head.status, head.headers['content-length'], head.text]).toEqual([200, '10', undefined]);
  });

  it('answers 304 to a matching If-None-Match or an If-Modified-Since not older than the file', async () => {
    const { body } = await upload('cache me', '?name=c.txt', 'text/plain');
    const tag = await get(body.data.id).set('If-None-Match', `"x", "${body.data.sha256}"`);
    expect(tag.status).toBe(304);
    const since = await get(body.data.id).set('If-Modified-Since', new Date(Date.now() + 60_000).toUTCString());
    expect(since.status).toBe(304);
    const older = await get(body.data.id).set('If-Modified-Since', new Date(Date.parse(body.data.updatedAt) - 60_000).toUTCString());
    expect(older.status).toBe(200);
  });

  it('replaces the content under update: new bytes, the old ones and their links gone', async () => {
    const { body } = await upload('first version', '?name=v.txt&caption=keep', 'text/plain');
    const id = body.data.id;
    const link = await f.h.request().post(`/files/docs/${id}/sign`).set(f.member.auth).send({ expiresIn: 600 });
    const replaced = await f.h.request().put(`/files/docs/${id}`).set(f.member.auth).set('Content-Type', 'text/plain').send(Buffer.from('second'));
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.data).toMatchObject({ id, name: 'v.txt', caption: 'keep', size: 6 });
    expect((await get(id)).body.toString()).toBe('second');
    const objects = await f.objects();
    expect(objects).toContain(`docs/${id}/${replaced.body.data.sha256}`);
    expect(objects).not.toContain(`docs/${id}/${body.data.sha256}`);
    const url = new URL(link.body.data.url);
    const stale = await f.h.request().get(url.pathname + url.search);
    expect(stale.status).toBe(403);
    const renamed = await f.h.request().put(`/files/docs/${id}?name=w.txt`).set(f.member.auth).send(Buffer.from('third'));
    expect(renamed.body.data.name).toBe('w.txt');
    const missing = await f.h.request().put('/files/docs/nope').set(f.member.auth).send(Buffer.from('x'));
    expect(missing.status).toBe(404);
    const others = await f.h.request().put(`/files/docs/${id}`).set(f.other.auth).send(Buffer.from('x'));
    expect(others.status).toBe(404);
  });

  it('deletes the bytes with the row, through /api and the owner\'s records route', async () => {
    const one = (await upload('delete me', '?name=d.txt')).body.data;
    const two = (await upload('and me', '?name=e.txt')).body.data;
    expect((await f.h.request().delete(`/api/docs/${one.id}`).set(f.member.auth)).status).toBe(200);
    expect((await f.h.request().delete(`/admin/tables/docs/records/${two.id}`).set(f.owner.auth)).status).toBe(200);
    await expect.poll(async () => (await f.objects()).filter((key) => key.includes(one.id) || key.includes(two.id))).toEqual([]);
    expect((await get(one.id)).status).toBe(404);
  });

  it('serves the owner any file through the admin route, and nobody else', async () => {
    const { body } = await upload('for the console', '?name=o.txt');
    const owner = await f.h.request().get(`/admin/tables/docs/files/${body.data.id}`).set(f.owner.auth);
    expect([owner.status, owner.text]).toEqual([200, 'for the console']);
    expect((await f.h.request().get(`/admin/tables/docs/files/${body.data.id}`).set(f.member.auth)).status).toBe(403);
    expect((await f.h.request().get(`/admin/tables/docs/files/${body.data.id}`)).status).toBe(401);
  });
});
