import { expect } from 'vitest';
import type { Traffic } from './traffic.js';

/**
 * Resumable uploads (tus 1.0, issue 28) through the Prism proxy, on the fixture's buckets: discovery, a creation with
 * metadata, its status, chunks, the record it makes, a creation that carries the whole file, termination, and the
 * documented refusals (an offset that does not match, another caller, a length past the bucket's, metadata that names
 * no column, a caller the bucket refuses). 412 cannot pass Prism (the document requires `Tus-Resumable: 1.0.0`): it is
 * sent to the service directly and checked against the document here.
 */

type Headers = Record<string, string>;

const TUS = { 'tus-resumable': '1.0.0' };
const metadata = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
const bytes = (data: string) => ({ raw: { type: 'application/offset+octet-stream', data } });
const pathOf = (location: string | null) => new URL(location!).pathname;

export async function tusTraffic({ t, owner, member, anon }: { t: Traffic; owner: Headers; member: Headers; anon: Headers }): Promise<void> {
  for (const [table, uploader, other] of [['docs', member, owner], ['photos', owner, member]] as const) {
    const me = { ...uploader, ...TUS };
    const offered = await t.call('OPTIONS', `/files/${table}/uploads`, { headers: uploader, status: 204 });
    expect(offered.headers.get('tus-extension')?.split(',')).toEqual(expect.arrayContaining(['creation', 'termination']));
    const created = await t.call('POST', `/files/${table}/uploads`, { headers: { ...me, 'upload-length': '11', 'upload-metadata': metadata({ name: 'resumed.txt', filetype: 'text/plain' }) }, status: 201 });
    const upload = pathOf(created.headers.get('location'));
    expect(created.headers.get('upload-expires')).toMatch(/ GMT$/);
    expect((await t.call('HEAD', upload, { headers: me, status: 200 })).headers.get('upload-offset')).toBe('0');
    expect((await t.call('PATCH', upload, { headers: { ...me, 'upload-offset': '0' }, ...bytes('hello '), status: 204 })).headers.get('upload-offset')).toBe('6');
    await t.call('PATCH', upload, { headers: { ...me, 'upload-offset': '0' }, ...bytes('again'), status: 409 });
    await t.call('PATCH', upload, { headers: { ...other, ...TUS, 'upload-offset': '6' }, ...bytes('world'), status: 404 });
    const done = await t.call('PATCH', upload, { headers: { ...me, 'upload-offset': '6' }, ...bytes('world'), status: 204 });
    const id = done.headers.get('basalt-record-id');
    expect((await t.call('HEAD', upload, { headers: me, status: 200 })).headers.get('basalt-record-id')).toBe(id);
    const file = await t.call('GET', `/files/${table}/${id}`, { headers: uploader, status: 200 });
    expect(file.body).toBe('hello world');
    await t.call('DELETE', `/api/${table}/${id}`, { headers: uploader, status: 200 });

    // The whole file with the creation; then an upload abandoned.
    const whole = await t.call('POST', `/files/${table}/uploads`, { headers: { ...me, 'upload-length': '4' }, ...bytes('tiny'), status: 201 });
    expect(whole.headers.get('upload-offset')).toBe('4');
    await t.call('DELETE', `/api/${table}/${whole.headers.get('basalt-record-id')}`, { headers: uploader, status: 200 });
    const abandoned = pathOf((await t.call('POST', `/files/${table}/uploads`, { headers: { ...me, 'upload-length': '100' }, status: 201 })).headers.get('location'));
    await t.call('DELETE', abandoned, { headers: { ...other, ...TUS }, status: 404 });
    await t.call('DELETE', abandoned, { headers: me, status: 204 });
    await t.call('PATCH', abandoned, { headers: { ...me, 'upload-offset': '0' }, ...bytes('x'), status: 404 });
  }

  // Refusals at the creation: the bucket's decision, its size, metadata naming no column or a file column.
  const memberTus = { ...member, ...TUS };
  await t.call('POST', '/files/photos/uploads', { headers: { ...memberTus, 'upload-length': '1' }, status: 403 });
  await t.call('POST', '/files/photos/uploads', { headers: { ...anon, ...TUS, 'upload-length': '1' }, status: 403 });
  await t.call('POST', '/files/photos/uploads', { headers: { ...owner, ...TUS, 'upload-length': String(64 * 1024 + 1) }, status: 413 });
  expect((await t.call('POST', '/files/docs/uploads', { headers: { ...memberTus, 'upload-length': '1', 'upload-metadata': metadata({ nope: 'x' }) }, status: 400 })).body.error.details).toEqual({ field: 'nope' });
  expect((await t.call('POST', '/files/docs/uploads', { headers: { ...memberTus, 'upload-length': '1', 'upload-metadata': metadata({ size: '1' }) }, status: 400 })).body.error.details).toEqual({ field: 'size' });
  await t.refusedByDocument('POST', '/files/docs/uploads', { headers: { ...memberTus, 'upload-length': 'ten' } });
  await t.refusedByDocument('POST', '/files/docs/uploads', { headers: { ...member, 'tus-resumable': '0.2.2', 'upload-length': '1' } });
  await t.refusedByDocument('POST', '/files/docs/uploads', { headers: { ...memberTus, 'upload-length': '1', 'upload-metadata': 'name not base64!' } });
  const open = pathOf((await t.call('POST', '/files/docs/uploads', { headers: { ...memberTus, 'upload-length': '3' }, status: 201 })).headers.get('location'));
  await t.refusedByDocument('PATCH', open, { headers: { ...memberTus, 'upload-offset': '0' }, raw: { type: 'text/plain', data: 'abc' } });
  await t.refusedByDocument('PATCH', open, { headers: memberTus, ...bytes('abc') });
  const unversioned = await t.direct('POST', '/files/docs/uploads', { headers: { ...member, 'upload-length': '1' }, status: 412 });
  expect([unversioned.body.error.details, unversioned.headers.get('tus-version')]).toEqual([{ parameter: 'Tus-Resumable' }, '1.0.0']);
  await t.call('DELETE', open, { headers: memberTus, status: 204 });
}
