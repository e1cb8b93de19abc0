import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders } from '../harness.js';
import type { Account } from '../harness.js';
import { DRIVERS, startFiles, type FilesHarness } from './support.js';

/**
 * The bytes obey the rows (API.md, Files): a caller can download a file iff it can GET its row, with the same status
 * (403 when the rule is false whatever the row, 404 per row), under every preset and under rules; uploads,
 * replacements and signing ask the write decision the same way. A `read` key writes nothing.
 */
let f: FilesHarness;
let readKey: { Authorization: string };
const buckets = {
  'owner-scoped': { policy: 'owner-scoped' },
  'public-read': { policy: 'public-read' },
  private: { policy: 'private' },
  'rules-shared': { policy: 'rules', rules: { read: "user_id = @auth.id or shared = true", create: 'user_id = @auth.id', update: 'user_id = @auth.id', delete: 'user_id = @auth.id' } },
  'rules-anon': { policy: 'rules', rules: { read: 'true', create: 'true', update: 'false', delete: 'false' } },
} as const;
const names = Object.keys(buckets) as Array<keyof typeof buckets>;
const publicBuckets = new Set<string>(['public-read', 'rules-anon']);
const tableOf = (policy: string) => `b_${policy.replace(/-/g, '_')}`;
const files: Record<string, string[]> = {};

describe.each(DRIVERS)('access to files on the %s driver', (driver) => {
  beforeAll(async () => {
    f = await startFiles(driver);
    for (const name of names) await f.bucket({ name: tableOf(name), ...buckets[name], columns: [{ name: 'shared', type: 'boolean', default: false }] });
    const key = await f.h.request().post('/auth/keys').set(f.member.auth).send({ name: 'reader', access: 'read' });
    readKey = { Authorization: `Bearer ${key.body.data.key}` };
    for (const name of names) {
      files[name] = [];
      for (const [account, shared] of [[f.member, false], [f.member, true], [f.owner, false]] as Array<[Account, boolean]>) {
        const response = await f.h.request().post(`/files/${tableOf(name)}?name=f.txt&shared=${shared}`).set(account.auth).send(Buffer.from(`${name}:${account.id}`));
        if (response.status === 201) files[name]!.push(response.body.data.id);
      }
    }
  });
  afterAll(() => f.close());

  const callers = (): Record<string, Record<string, string>> => ({ anon: anonHeaders(f.h), none: {}, member: f.member.auth, other: f.other.auth, owner: f.owner.auth, readKey });

  describe('downloads answer exactly what reading the row answers', () => {
    it.each(names)('under %s, for every caller and file (and a missing one)', async (name) => {
      const table = tableOf(name);
      for (const [who, headers] of Object.entries(callers())) {
        for (const id of [...files[name]!, 'missing-id']) {
          // No credentials at all is anon where anon reads every row (plain URLs for <img>), else the 401 of /api.
          const row = await f.h.request().get(`/api/${table}/${id}`).set(who === 'none' && publicBuckets.has(name) ? anonHeaders(f.h) : headers);
          const bytes = await f.h.request().get(`/files/${table}/${id}`).set(headers);
          const head = await f.h.request().head(`/files/${table}/${id}`).set(headers);
          expect([bytes.status, head.status], `${who} ${id}`).toEqual([row.status, row.status]);
          if (row.status !== 200) expect(bytes.body.error.code, `${who} ${id}`).toBe(row.body.error.code);
        }
      }
    });

    it('serves a bucket anon reads whole without any credentials (a plain URL), and no other', async () => {
      const open = await f.h.request().get(`/files/${tableOf('public-read')}/${files['public-read']![0]}?width=16`);
      expect(open.status).toBe(400);
      expect((await f.h.request().get(`/files/${tableOf('public-read')}/${files['public-read']![0]}`)).status).toBe(200);
      const closed = await f.h.request().get(`/files/${tableOf('rules-shared')}/${files['rules-shared']![1]}`);
      expect([closed.status, closed.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    });

    it('says public for a bucket anon reads whole, private otherwise', async () => {
      const id = files['public-read']![0]!;
      expect((await f.h.request().get(`/files/${tableOf('public-read')}/${id}`).set(anonHeaders(f.h))).headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      const own = files['owner-scoped']![0]!;
      expect((await f.h.request().get(`/files/${tableOf('owner-scoped')}/${own}`).set(f.member.auth)).headers['cache-control']).toBe('private, max-age=0, must-revalidate');
    });
  });

  describe('writes ask the write decision', () => {
    it('uploads are refused exactly where a create is', async () => {
      for (const name of names) {
        const table = tableOf(name);
        for (const [who, headers] of Object.entries(callers())) {
          // A create through /api that passes the decision meets the bucket's own refusal (400 body): there, an upload is 201.
          const row = await f.h.request().post(`/api/${table}`).set(headers).send({});
          const bytes = await f.h.request().post(`/files/${table}?name=x`).set(headers).send(Buffer.from('x'));
          if (row.status === 400) expect(row.body.error.details, `${name} ${who}`).toEqual({ field: 'body' });
          expect(bytes.status, `${name} ${who}`).toBe(row.status === 400 ? 201 : row.status);
          if (who === 'readKey') expect(bytes.status).toBe(403);
        }
      }
      const anon = await f.h.request().post(`/files/${tableOf('rules-anon')}?name=x`).set(anonHeaders(f.h)).send(Buffer.from('x'));
      expect(anon.body.data.user_id).toBeNull();
      const ownerScopedAnon = await f.h.request().post(`/files/${tableOf('owner-scoped')}?name=x`).set(anonHeaders(f.h)).send(Buffer.from('x'));
      expect([401, 403]).toContain(ownerScopedAnon.status);
    });

    it('a read key may not replace or sign, even where its user may', async () => {
      const id = files['owner-scoped']![0]!;
      expect((await f.h.request().put(`/files/${tableOf('owner-scoped')}/${id}`).set(readKey).send(Buffer.from('x'))).status).toBe(403);
      expect((await f.h.request().post(`/files/${tableOf('owner-scoped')}/${id}/sign`).set(readKey).send({ expiresIn: 60 })).status).toBe(403);
    });

    it("another member's file is 404 to replace, sign or delete, whatever the rule", async () => {
      for (const name of ['owner-scoped', 'rules-shared'] as const) {
        const id = files[name]![0]!;
        const table = tableOf(name);
        expect((await f.h.request().put(`/files/${table}/${id}`).set(f.other.auth).send(Buffer.from('x'))).status, name).toBe(404);
        expect((await f.h.request().post(`/files/${table}/${id}/sign`).set(f.other.auth).send({ expiresIn: 60 })).status, name).toBe(404);
        expect((await f.h.request().delete(`/api/${table}/${id}`).set(f.other.auth)).status, name).toBe(404);
      }
      // Shared under the rule: readable (and signable) by the other member, still not replaceable.
      const shared = files['rules-shared']![1]!;
      expect((await f.h.request().get(`/files/${tableOf('rules-shared')}/${shared}`).set(f.other.auth)).status).toBe(200);
      expect((await f.h.request().post(`/files/${tableOf('rules-shared')}/${shared}/sign`).set(f.other.auth).send({ expiresIn: 60 })).status).toBe(200);
      expect((await f.h.request().put(`/files/${tableOf('rules-shared')}/${shared}`).set(f.other.auth).send(Buffer.from('x'))).status).toBe(403);
    });
  });
});
