import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageTransformer, MAX_WAITING } from '../../src/files/transform/images.js';
import { DRIVERS, png, startFiles, type FilesHarness } from './support.js';

/**
 * Image transforms with sharp on real images (API.md, Files): sizes rounded up to 16, formats, variants cached in
 * storage and deleted with their file (at most 20, least recently used first), refusals naming the parameter
 * (non-images, SVG, a 50-megapixel decompression bomb), and a bounded number at once.
 */
let f: FilesHarness;
let image: { id: string; sha256: string };
const bytesOf = (path: string, headers: Record<string, string>) =>
  f.h.request().get(path).set(headers).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe.each(DRIVERS)('transforms on the %s driver', (driver) => {
  beforeAll(async () => {
    f = await startFiles(driver);
    await f.bucket({ name: 'photos', policy: 'owner-scoped' });
    image = (await f.h.request().post('/files/photos?name=p.png').set(f.member.auth).send(await png(640, 480))).body.data;
  });
  afterAll(() => f.close());

  it('resizes and converts, rounding sides up to 16, and caches the variant', async () => {
    const first = await bytesOf(`/files/photos/${image.id}?width=100&format=webp`, f.member.auth);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/webp');
    expect(first.headers.etag).toMatch(new RegExp(`^"${image.sha256}-`));
    const meta = await sharp(first.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 112, 84]);
    const variants = (await f.registered()).filter((row) => row.variant !== null);
    expect(variants).toHaveLength(1);
    const again = await bytesOf(`/files/photos/${image.id}?width=100&format=webp`, f.member.auth);
    expect(Buffer.compare(again.body as Buffer, first.body as Buffer)).toBe(0);
    expect((await f.registered()).filter((row) => row.variant !== null)).toHaveLength(1);
    const conditional = await f.h.request().get(`/files/photos/${image.id}?width=100&format=webp`).set(f.member.auth).set('If-None-Match', first.headers.etag!);
    expect(conditional.status).toBe(304);
    const cover = await bytesOf(`/files/photos/${image.id}?width=64&height=64&fit=cover&format=jpeg&quality=50`, f.member.auth);
    expect(await sharp(cover.body as Buffer).metadata()).toMatchObject({ format: 'jpeg', width: 64, height: 64 });
    const same = await bytesOf(`/files/photos/${image.id}?width=4096`, f.member.auth);
    expect(await sharp(same.body as Buffer).metadata()).toMatchObject({ format: 'png', width: 640 });
  });

  it('answers a variant only to who may read the file', async () => {
    expect((await f.h.request().get(`/files/photos/${image.id}?width=100&format=webp`).set(f.other.auth)).status).toBe(404);
  });

  it.each([
    ['width=0', 'width'],
    ['width=4097', 'width'],
    ['width=1e3', 'width'],
    ['height=-5', 'height'],
    ['fit=fill', 'fit'],
    ['format=gif', 'format'],
    ['format=webp&quality=101', 'quality'],
    ['width=10&width=20', 'width'],
    ['widht=10', 'widht'],
    ['width=10&sig=x', 'expires'],
  ])('refuses %s naming %s', async (query, parameter) => {
    const response = await f.h.request().get(`/files/photos/${image.id}?${query}`).set(f.member.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({ parameter });
  });

  it('refuses transforms of what is not a raster image, and a decompression bomb, naming the parameter', async () => {
    const text = (await f.h.request().post('/files/photos?name=t.txt').set(f.member.auth).send(Buffer.from('just text'))).body.data;
    const svg = (await f.h.request().post('/files/photos?name=s.svg').set(f.member.auth).send(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'))).body.data;
    for (const id of [text.id, svg.id]) {
      const response = await f.h.request().get(`/files/photos/${id}?format=png&width=10`).set(f.member.auth);
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual({ parameter: 'width' });
    }
    // 50 megapixels of one colour: a few kilobytes as PNG, 150 MB decoded. Refused from its header.
    const bomb = await sharp({ create: { width: 10_000, height: 5_000, channels: 3, background: '#fff' } }).png({ compressionLevel: 9 }).toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const uploaded = (await f.h.request().post('/files/photos?name=bomb.png').set(f.member.auth).send(bomb)).body.data;
    expect(uploaded.type).toBe('image/png');
    const response = await f.h.request().get(`/files/photos/${uploaded.id}?format=webp`).set(f.member.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({ parameter: 'format' });
    expect(response.body.error.message).toMatch(/megapixels/);
    // The original itself is still served as it is.
    expect((await f.h.request().head(`/files/photos/${uploaded.id}`).set(f.member.auth)).status).toBe(200);
  });

  it('keeps at most 20 variants per file, and deletes them with it', async () => {
    const own = (await f.h.request().post('/files/photos?name=q.png').set(f.member.auth).send(await png(64, 64))).body.data;
    for (let width = 16; width <= 16 * 22; width += 16) {
      expect((await f.h.request().get(`/files/photos/${own.id}?width=${width}&format=png`).set(f.member.auth)).status).toBe(200);
    }
    const variantsOf = async () => (await f.registered()).filter((row) => row.variant !== null && row.key.includes(own.id));
    expect(await variantsOf()).toHaveLength(20);
    const keys = (await variantsOf()).map((row) => row.key);
    expect(keys.some((key) => key.includes('w16h-'))).toBe(false);
    expect((await f.objects()).filter((key) => key.includes(own.id))).toHaveLength(21);
    await f.h.request().delete(`/api/photos/${own.id}`).set(f.member.auth);
    await expect.poll(async () => (await f.objects()).filter((key) => key.includes(own.id))).toEqual([]);
    expect(await variantsOf()).toEqual([]);
  });
});

describe('the transformer', () => {
  it('runs a bounded number at once; past 32 waiting, 503 with a retry hint', async () => {
    const transformer = new ImageTransformer(1);
    const picture = await png(32, 32);
    // A source that never ends holds the only slot.
    const stuck = new Readable({ read() {} });
    const holding = transformer.transform(stuck, 'image/png', { width: 16, height: null, fit: 'cover', format: 'webp', quality: 80 }, 'width');
    const waiting = Array.from({ length: MAX_WAITING }, () => transformer.transform(Readable.from([picture]), 'image/png', { width: 16, height: null, fit: 'cover', format: 'webp', quality: 80 }, 'width'));
    await expect(transformer.transform(Readable.from([picture]), 'image/png', { width: 16, height: null, fit: 'cover', format: 'webp', quality: 80 }, 'width')).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { retryAfter: 2 } });
    stuck.push(picture);
    stuck.push(null);
    await holding;
    expect((await Promise.all(waiting)).every((variant) => variant.type === 'image/webp')).toBe(true);
  });
});
