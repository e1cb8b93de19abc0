import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from '../harness.js';
import { DRIVERS, png, startFiles, type FilesHarness } from './support.js';

/**
 * Signed links over HTTP (API.md, Files): made by whoever may read the file (not a read key), anyone may use them
 * until they expire, for the file's content and the transform they name only; other parameters are 400; a replaced
 * file or another JWT_SECRET ends them.
 */
let f: FilesHarness;
let file: { id: string; sha256: string };
let picture: { id: string };
const sign = (id: string, body: Record<string, unknown>, headers = f.member.auth) => f.h.request().post(`/files/private/${id}/sign`).set(headers).send(body);
const open = (url: string, extra = '') => {
  const parsed = new URL(url);
  return f.h.request().get(`${parsed.pathname}${parsed.search}${extra}`);
};

describe.each(DRIVERS)('signed links on the %s driver', (driver) => {
  beforeAll(async () => {
    f = await startFiles(driver);
    await f.bucket({ name: 'private', policy: 'owner-scoped' });
    file = (await f.h.request().post('/files/private?name=secret.txt').set(f.member.auth).send(Buffer.from('secret'))).body.data;
    picture = (await f.h.request().post('/files/private?name=p.png').set(f.member.auth).send(await png(100, 100))).body.data;
  });
  afterAll(() => f.close());

  describe('signed links', () => {
    it('open the file without credentials until they expire, saying how long they may be kept', async () => {
      const signed = await sign(file.id, { expiresIn: 120 });
      expect(signed.status).toBe(200);
      const { url, expiresAt } = signed.body.data;
      expect(url).toMatch(new RegExp(`^http://localhost:\\d+/files/private/${file.id}\\?expires=\\d+&sig=`));
      expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(100_000);
      const response = await open(url);
      expect([response.status, response.text]).toEqual([200, 'secret']);
      expect(response.headers['cache-control']).toMatch(/^private, max-age=1[0-2][0-9]$/);
      // Credentials of somebody who may not read the file do not spoil the link.
      expect((await open(url).set(f.other.auth)).status).toBe(200);
    });

    it('are refused when tampered with, expired, or carrying other parameters', async () => {
      const { url } = (await sign(file.id, { expiresIn: 60 })).body.data;
      const parsed = new URL(url);
      const sig = parsed.searchParams.get('sig')!;
      const tampered = url.replace(`sig=${sig}`, `sig=${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`);
      expect((await open(tampered)).status).toBe(403);
      const later = url.replace(/expires=\d+/, `expires=${Number(parsed.searchParams.get('expires')) + 1000}`);
      expect((await open(later)).status).toBe(403);
      const past = `${f.h.url}/files/private/${file.id}?expires=1&sig=${sig}`;
      expect((await open(past)).status).toBe(403);
      const extra = await open(url, '&download=1');
      expect([extra.status, extra.body.error.details]).toEqual([400, { parameter: 'download' }]);
      expect((await open(url.replace(file.id, picture.id))).status).toBe(403);
      const halfLink = await f.h.request().get(`/files/private/${file.id}?sig=${sig}`);
      expect([halfLink.status, halfLink.body.error.details]).toEqual([400, { parameter: 'expires' }]);
    });

    it('name one variant: the link opens it and no other', async () => {
      const signed = await sign(picture.id, { expiresIn: 60, transform: { width: 32, format: 'webp' } });
      expect(signed.status).toBe(200);
      const url: string = signed.body.data.url;
      const variant = await open(url);
      expect([variant.status, variant.headers['content-type']]).toEqual([200, 'image/webp']);
      expect((await open(url.replace('width=32', 'width=48'))).status).toBe(403);
      expect((await open(url.replace('width=32&', ''))).status).toBe(403);
      expect((await sign(file.id, { expiresIn: 60, transform: { width: 32 } })).status).toBe(400);
    });

    it('stop when the file is replaced', async () => {
      const own = (await f.h.request().post('/files/private?name=v.txt').set(f.member.auth).send(Buffer.from('v1'))).body.data;
      const { url } = (await sign(own.id, { expiresIn: 60 })).body.data;
      expect((await open(url)).status).toBe(200);
      await f.h.request().put(`/files/private/${own.id}`).set(f.member.auth).send(Buffer.from('v2'));
      expect((await open(url)).status).toBe(403);
    });

    it('stop when JWT_SECRET changes', async () => {
      const { url } = (await sign(file.id, { expiresIn: 60 })).body.data;
      const rotated = await startHarness({ database: f.h.database, storage: f.storage, jwtSecret: 'another-secret-that-is-long-enough-9876543210' });
      try {
        const parsed = new URL(url);
        expect((await rotated.request().get(`${parsed.pathname}${parsed.search}`)).status).toBe(403);
      } finally {
        await rotated.close();
      }
    });

    it('need PUBLIC_URL in production: 503 naming it rather than a link to localhost', async () => {
      const production = await startHarness({ database: f.h.database, storage: f.storage, production: true });
      try {
        const response = await production.request().post(`/files/private/${file.id}/sign`).set(f.member.auth).send({ expiresIn: 60 });
        expect(response.status).toBe(503);
        expect(response.body.error.message).toMatch(/PUBLIC_URL/);
      } finally {
        await production.close();
      }
    });

    it('are signed only by who may read the file, for at most 7 days', async () => {
      expect((await sign(file.id, { expiresIn: 60 }, f.other.auth)).status).toBe(404);
      expect((await sign(file.id, { expiresIn: 60 }, {} as never)).status).toBe(401);
      for (const body of [{}, { expiresIn: 0 }, { expiresIn: 7 * 24 * 3600 + 1 }, { expiresIn: 1.5 }, { expiresIn: '60' }]) {
        const response = await sign(file.id, body);
        expect([response.status, response.body.error.details], JSON.stringify(body)).toEqual([400, { field: 'expiresIn' }]);
      }
      expect((await sign(file.id, { expiresIn: 60, extra: 1 })).body.error.details).toEqual({ field: 'extra' });
      expect((await sign(file.id, { expiresIn: 60, transform: { colour: 'red' } })).body.error.details).toEqual({ field: 'transform.colour' });
    });
  });
});
