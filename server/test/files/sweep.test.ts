import http from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, startFiles, type FilesHarness } from './support.js';

/**
 * Nothing is left behind for good (API.md, Part 2 in detail, Files): an upload killed midway, a create refused after
 * the bytes, a crash between the bytes and the row, and rows gone any way (psql, a cascade, TRUNCATE, a dropped
 * table) leave objects the sweep deletes once they are an hour old. Objects younger than that may be uploads in
 * flight and are kept.
 */
describe.each(DRIVERS)('the sweep on the %s driver', (driver) => {
  let f: FilesHarness;
  beforeAll(async () => {
    f = await startFiles(driver);
    await f.bucket({ name: 'keep', policy: 'rules', rules: { read: 'true', create: "user_id = @auth.id and label != 'refused'", update: 'false', delete: 'false' }, columns: [{ name: 'label', type: 'text' }] });
  });
  afterAll(() => f.close());

  const upload = async (label = 'x', body = 'bytes') => f.h.request().post(`/files/keep?name=f&label=${label}`).set(f.member.auth).send(Buffer.from(body));
  const age = async () => (await f.h.sql()).query(`UPDATE _basalt_file_objects SET created_at = now() - interval '61 minutes'`);
  const sweep = () => f.h.services.files.sweep.run();

  it('keeps what rows hold, and objects younger than an hour', async () => {
    const kept = (await upload()).body.data;
    const sql = await f.h.sql();
    await sql.query(`INSERT INTO _basalt_file_objects (key, table_name, record_id, sha256) VALUES ('keep/in-flight/upload-x', 'keep', 'in-flight', NULL)`);
    await f.h.services.files.service.registry.store.put('keep/in-flight/upload-x', Readable.from([Buffer.from('partial')]));
    await sweep();
    expect(await f.objects()).toEqual(expect.arrayContaining([`keep/${kept.id}/${kept.sha256}`, 'keep/in-flight/upload-x']));
    await age();
    await sweep();
    const left = await f.objects();
    expect(left).toContain(`keep/${kept.id}/${kept.sha256}`);
    expect(left).not.toContain('keep/in-flight/upload-x');
  });

  it('leaves nothing of a create the rule refuses after the bytes', async () => {
    const before = await f.objects();
    const refused = await upload('refused');
    expect(refused.status).toBe(403);
    expect(await f.objects()).toEqual(before);
  });

  it('leaves nothing of an upload killed midway', async () => {
    const before = await f.objects();
    const url = new URL(`${f.h.url}/files/keep?name=killed`);
    await new Promise<void>((resolve) => {
      const request = http.request(url, { method: 'POST', headers: { ...f.member.auth, 'Content-Length': String(1024 * 1024) } });
      request.on('error', () => resolve());
      request.write(Buffer.alloc(256 * 1024, 1));
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 200);
    });
    await expect.poll(async () => (await f.registered()).filter((row) => row.sha256 === null).length, { timeout: 5000 }).toBe(0);
    // The same as multipart/form-data: the file part fails with the connection.
    await new Promise<void>((resolve) => {
      const boundary = 'basaltboundary';
      const request = http.request(url, { method: 'POST', headers: { ...f.member.auth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(1024 * 1024) } });
      request.on('error', () => resolve());
      request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="k.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      request.write(Buffer.alloc(256 * 1024, 2));
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 200);
    });
    await expect.poll(async () => (await f.registered()).filter((row) => row.sha256 === null).length, { timeout: 5000 }).toBe(0);
    await age();
    await sweep();
    expect(await f.objects()).toEqual(before);
  });

  it('deletes the objects of rows gone by psql, by a cascade, by TRUNCATE and with a dropped table', async () => {
    const sql = await f.h.sql();
    const byPsql = (await upload('psql', 'one')).body.data;
    await sql.query('DELETE FROM keep WHERE id = $1', [byPsql.id]);
    const cascaded = await f.h.request().post('/auth/signup').send({ email: `gone-${Date.now()}@example.test`, password: 'correct horse' });
    const goner = cascaded.body.data;
    const theirs = (await f.h.request().post('/files/keep?name=g&label=c').set({ Authorization: `Bearer ${goner.accessToken}` }).send(Buffer.from('two'))).body.data;
    await sql.query('DELETE FROM users WHERE id = $1', [goner.user.id]);
    await f.bucket({ name: 'scratch', policy: 'owner-scoped' });
    const truncated = (await f.h.request().post('/files/scratch?name=t').set(f.member.auth).send(Buffer.from('three'))).body.data;
    await sql.query('TRUNCATE scratch');
    await f.bucket({ name: 'dropped', policy: 'owner-scoped' });
    const inDropped = (await f.h.request().post('/files/dropped?name=d').set(f.member.auth).send(Buffer.from('four'))).body.data;
    expect((await f.h.request().delete('/admin/tables/dropped').set(f.owner.auth)).status).toBe(200);
    await f.bucket({ name: 'psqldrop', policy: 'owner-scoped' });
    const inPsqlDrop = (await f.h.request().post('/files/psqldrop?name=d').set(f.member.auth).send(Buffer.from('five'))).body.data;
    await sql.query('DROP TABLE psqldrop');
    const gone = [`keep/${byPsql.id}/`, `keep/${theirs.id}/`, `scratch/${truncated.id}/`, `dropped/${inDropped.id}/`, `psqldrop/${inPsqlDrop.id}/`];
    const present = async () => (await f.objects()).filter((key) => gone.some((prefix) => key.startsWith(prefix)));
    expect(await present()).toHaveLength(5);
    await age();
    await sweep();
    expect(await present()).toEqual([]);
    expect((await f.registered()).filter((row) => gone.some((prefix) => row.key.startsWith(prefix)))).toEqual([]);
  });
});
