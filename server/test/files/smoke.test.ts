import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startHarness, type Account, type Harness } from '../harness.js';

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  const created = await h.request().post('/admin/tables').set(owner.auth).send({ name: 'avatars', kind: 'files', columns: [{ name: 'caption', type: 'text' }] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});
afterAll(() => h.close());

describe('smoke', () => {
  it('uploads, reads, replaces, deletes', async () => {
    const up = await h.request().post('/files/avatars?name=hello.txt&caption=hi').set(member.auth).set('Content-Type', 'text/plain').send('hello world');
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const row = up.body.data;
    expect(row).toMatchObject({ name: 'hello.txt', type: 'text/plain', size: 11, caption: 'hi', user_id: member.id });
    const down = await h.request().get(`/files/avatars/${row.id}`).set(member.auth).buffer(true);
    expect(down.status).toBe(200);
    expect(down.text).toBe('hello world');
    expect(down.headers.etag).toBe(`"${row.sha256}"`);
    const range = await h.request().get(`/files/avatars/${row.id}`).set(member.auth).set('Range', 'bytes=0-4').buffer(true);
    expect(range.status).toBe(206);
    expect(range.text).toBe('hello');
    const other = await h.request().get(`/files/avatars/${row.id}`).set(owner.auth);
    expect(other.status).toBe(404);
    const replaced = await h.request().put(`/files/avatars/${row.id}`).set(member.auth).set('Content-Type', 'text/plain').send('bye');
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.data.size).toBe(3);
    const signed = await h.request().post(`/files/avatars/${row.id}/sign`).set(member.auth).send({ expiresIn: 60 });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const url = new URL(signed.body.data.url);
    const viaLink = await h.request().get(`${url.pathname}${url.search}`).buffer(true);
    expect(viaLink.status).toBe(200);
    expect(viaLink.text).toBe('bye');
    const deleted = await h.request().delete(`/api/avatars/${row.id}`).set(member.auth);
    expect(deleted.status).toBe(200);
    const multipart = await h.request().post('/files/avatars').set(member.auth).field('caption', 'c').attach('file', Buffer.from('%PDF-1.4\n'), 'doc.pdf');
    expect(multipart.status, JSON.stringify(multipart.body)).toBe(201);
    expect(multipart.body.data).toMatchObject({ name: 'doc.pdf', caption: 'c' });
  });
});
