import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders } from '../harness.js';
import { openStream, type TestStream } from '../sse.js';
import { DRIVERS, startFiles, type FilesHarness } from './support.js';

/**
 * A bucket is a table (API.md, Files): made and described by the admin API with its fixed, read-only file columns;
 * its rows are created by uploads alone, changed and deleted like any row; other tables reference and embed it;
 * realtime streams its rows.
 */
let f: FilesHarness;
const admin = () => f.h.request();

describe.each(DRIVERS)('buckets on the %s driver', (driver) => {
  beforeAll(async () => {
    f = await startFiles(driver);
    const mine = 'user_id = @auth.id';
    await f.bucket({ name: 'covers', policy: 'rules', rules: { read: 'true', create: mine, update: mine, delete: mine }, maxFileSize: 1024, allowedTypes: ['image/*', 'text/plain'], columns: [{ name: 'alt', type: 'text' }] });
    await admin().post('/admin/tables').set(f.owner.auth).send({ name: 'books', policy: 'public-read', columns: [{ name: 'title', type: 'text' }, { name: 'cover_id', type: 'text', references: { table: 'covers', onDelete: 'set-null' } }] });
  });
  afterAll(() => f.close());

  describe('the admin API', () => {
    it('describes a bucket: its kind, settings, file columns read-only, owner column user_id', async () => {
      const { body } = await admin().get('/admin/tables/covers').set(f.owner.auth);
      expect(body.data).toMatchObject({ kind: 'files', bucket: { maxFileSize: 1024, allowedTypes: ['image/*', 'text/plain'] }, ownerColumn: 'user_id', policy: 'rules' });
      const columns = Object.fromEntries((body.data.columns as Array<{ name: string; readOnly: boolean; type: string; nullable: boolean }>).map((column) => [column.name, [column.type, column.readOnly, column.nullable]]));
      expect(columns).toMatchObject({ name: ['text', true, false], type: ['text', true, false], size: ['integer', true, false], sha256: ['text', true, false], user_id: ['text', true, true], alt: ['text', false, true] });
      const books = await admin().get('/admin/tables/books').set(f.owner.auth);
      expect(books.body.data.kind).toBe('records');
      expect(books.body.data.bucket).toBeUndefined();
    });

    it('defaults a bucket to 50 MiB, every type, owner-scoped', async () => {
      await f.bucket({ name: 'plain' });
      const { body } = await admin().get('/admin/tables/plain').set(f.owner.auth);
      expect(body.data).toMatchObject({ kind: 'files', bucket: { maxFileSize: 50 * 1024 * 1024, allowedTypes: null }, policy: 'owner-scoped' });
    });

    it.each([
      [{ name: 'b1', kind: 'folders' }, 'kind'],
      [{ name: 'b1', kind: 'files', maxFileSize: 0 }, 'maxFileSize'],
      [{ name: 'b1', kind: 'files', maxFileSize: '10' }, 'maxFileSize'],
      [{ name: 'b1', kind: 'files', maxFileSize: 6 * 1024 ** 3 }, 'maxFileSize'],
      [{ name: 'b1', kind: 'files', allowedTypes: ['image'] }, 'allowedTypes.0'],
      [{ name: 'b1', kind: 'files', allowedTypes: ["image/*'; drop table x"] }, 'allowedTypes.0'],
      [{ name: 'b1', kind: 'files', allowedTypes: [] }, 'allowedTypes'],
      [{ name: 'b1', maxFileSize: 10 }, 'maxFileSize'],
      [{ name: 'b1', kind: 'files', columns: [{ name: 'sha256', type: 'text' }] }, 'columns.0.name'],
      [{ name: 'b1', kind: 'files', columns: [{ name: 'userId', type: 'text' }] }, 'columns.0.name'],
    ])('refuses %j naming %s', async (body, field) => {
      const response = await admin().post('/admin/tables').set(f.owner.auth).send(body);
      expect(response.status).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    });

    it('keeps the file columns: not dropped, not made writable (other columns come and go, under rules too)', async () => {
      expect((await admin().delete('/admin/tables/covers/columns/sha256').set(f.owner.auth)).status).toBe(400);
      expect((await admin().patch('/admin/tables/covers/columns/name').set(f.owner.auth).send({ readOnly: false })).status).toBe(400);
      expect((await admin().delete('/admin/tables/covers/columns/alt').set(f.owner.auth)).status).toBe(200);
      const added = await admin().post('/admin/tables/covers/columns').set(f.owner.auth).send({ name: 'alt', type: 'text' });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
    });
  });

  describe('rows of a bucket through the record API', () => {
    let cover: { id: string; sha256: string };
    beforeAll(async () => {
      cover = (await f.h.request().post('/files/covers?name=c.txt&alt=old').set(f.member.auth).send(Buffer.from('cover'))).body.data;
    });

    it('are created by uploads alone: POST in any form and PUT of a missing id are 400 naming the body', async () => {
      for (const response of [
        await f.h.request().post('/api/covers').set(f.member.auth).send({ alt: 'x' }),
        await f.h.request().post('/api/covers').set(f.member.auth).send([{ alt: 'x' }]),
        await f.h.request().post('/api/covers').set(f.member.auth).send({ name: 'n', type: 't', size: 1, sha256: 'a' }),
        await f.h.request().put('/api/covers/new-id').set(f.member.auth).send({ alt: 'x' }),
        await admin().post('/admin/tables/covers/records').set(f.owner.auth).send({ alt: 'x', name: 'n', type: 'text/plain', size: 1, sha256: 'a' }),
      ]) {
        expect(response.status).toBe(400);
        expect(response.body.error.details).toEqual({ field: 'body' });
      }
    });

    it('change their metadata by PUT, never their file columns nor the uploader', async () => {
      const changed = await f.h.request().put(`/api/covers/${cover.id}`).set(f.member.auth).send({ alt: 'new' });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ alt: 'new', sha256: cover.sha256, user_id: f.member.id });
      for (const field of ['name', 'type', 'size', 'sha256', 'user_id']) {
        const refused = await f.h.request().put(`/api/covers/${cover.id}`).set(f.member.auth).send({ [field]: field === 'size' ? 1 : field === 'user_id' ? f.member.id : 'x' });
        expect(refused.status, field).toBe(400);
        expect(refused.body.error.details, field).toEqual({ field });
      }
    });

    it("keep their content columns even on the owner's records route; the owner may rename and reassign", async () => {
      for (const [field, value] of [['size', 3], ['sha256', 'a'.repeat(64)], ['type', 'text/html']] as const) {
        const refused = await admin().put(`/admin/tables/covers/records/${cover.id}`).set(f.owner.auth).send({ [field]: value });
        expect([refused.status, refused.body.error?.details], field).toEqual([400, { field }]);
      }
      const renamed = await admin().put(`/admin/tables/covers/records/${cover.id}`).set(f.owner.auth).send({ name: 'renamed.txt' });
      expect([renamed.status, renamed.body.data.name]).toEqual([200, 'renamed.txt']);
    });

    it('are referenced and embedded like any row, filtered and counted', async () => {
      const book = await f.h.request().post('/api/books').set(f.owner.auth).send({ title: 'Dune', cover_id: cover.id });
      expect(book.status).toBe(201);
      const read = await f.h.request().get(`/api/books/${book.body.data.id}?select=title,cover(name,size,type)`).set(anonHeaders(f.h));
      expect(read.body.data, JSON.stringify(read.body)).toEqual({ title: 'Dune', cover: { name: 'renamed.txt', size: 5, type: 'text/plain' } });
      const listed = await f.h.request().get('/api/covers?type=text/plain&size[lte]=5&count=exact').set(anonHeaders(f.h));
      expect(listed.body.total).toBeGreaterThanOrEqual(1);
      await f.h.request().delete(`/api/covers/${cover.id}`).set(f.member.auth);
      expect((await f.h.request().get(`/api/books/${book.body.data.id}`).set(anonHeaders(f.h))).body.data.cover_id).toBeNull();
    });
  });

  describe('realtime', () => {
    let stream: TestStream;
    afterAll(() => stream?.close());

    it('streams a bucket\'s rows: uploads, replacements, deletes', async () => {
      stream = await openStream(`${f.h.url}/realtime/covers`, anonHeaders(f.h));
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const up = (await f.h.request().post('/files/covers?name=live.txt').set(f.member.auth).send(Buffer.from('live'))).body.data;
      await f.h.request().put(`/files/covers/${up.id}`).set(f.member.auth).send(Buffer.from('live 2'));
      await f.h.request().delete(`/api/covers/${up.id}`).set(f.member.auth);
      const events = await stream.waitFor(3, (event) => ['insert', 'update', 'delete'].includes(event.event));
      expect(events.map((event) => event.event)).toEqual(['insert', 'update', 'delete']);
      expect((events[0]!.data as { record: { name: string; size: number } }).record).toMatchObject({ name: 'live.txt', size: 4 });
      expect((events[1]!.data as { record: { size: number } }).record.size).toBe(6);
    });
  });
});
