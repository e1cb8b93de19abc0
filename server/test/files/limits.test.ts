import { DEFAULT_LIMITS } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, startFiles, type FilesHarness } from './support.js';

/** `limits.uploadsPerUser` (429 with Retry-After) and `limits.storageBytesPerUser` (413), in the Postgres limiter. */
let f: FilesHarness;

describe.each(DRIVERS)('upload limits on the %s driver', (driver) => {
  beforeAll(async () => {
    f = await startFiles(driver, { limits: { ...DEFAULT_LIMITS, uploadsPerUser: { max: 3, windowSeconds: 600 }, storageBytesPerUser: { max: 100 } } });
    await f.bucket({ name: 'quota', policy: 'owner-scoped' });
  });
  afterAll(() => f.close());

  const upload = (bytes: number, account = f.member) => f.h.request().post('/files/quota?name=q').set(account.auth).send(Buffer.alloc(bytes, 1));

  describe('upload limits', () => {
    it('refuses bytes past the account\'s storage with 413, counting every bucket, keeping nothing', async () => {
      expect((await upload(60)).status).toBe(201);
      const over = await upload(41);
      expect(over.status).toBe(413);
      expect(over.body.error.message).toMatch(/storageBytesPerUser/);
      expect((await upload(40)).status).toBe(201);
      expect((await f.objects()).length).toBe(2);
    });

    it('counts uploads per account and window: past it 429 with Retry-After; others unaffected', async () => {
      const refused = await upload(0);
      expect(refused.status).toBe(429);
      expect(refused.body.error.details).toMatchObject({ limit: 'uploadsPerUser' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await upload(1, f.other)).status).toBe(201);
    });

    it('frees storage when files go', async () => {
      const [first] = (await f.h.request().get('/api/quota').set(f.other.auth)).body.data as Array<{ id: string }>;
      expect(first).toBeDefined();
      await f.h.request().delete(`/api/quota/${first!.id}`).set(f.other.auth);
      expect((await upload(100, f.other)).status).toBe(201);
    });
  });
});
