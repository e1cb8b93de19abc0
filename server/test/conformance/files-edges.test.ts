import sharp from 'sharp';
import type supertest from 'supertest';
import { DEFAULT_LIMITS } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, signUp, startHarness, type Harness } from '../harness.js';
import { checkAnswer, locate } from './answers.js';
import { createProject, PHOTOS_MAX_BYTES, type Project } from './fixture.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * The files' edges (issue 28), as mfa-edges.test.ts holds the second factor's: the transform parameters (in a query
 * and in a signing request), a file's `name`, the metadata as query parameters, `expiresIn` and a signed link's
 * `expires`, each in both directions; and the answers outside the envelope the Prism run gives one of each: ranges
 * (206, several, suffix, past the end: 416, If-Range), conditional requests (304 by ETag, weak or listed, and by date),
 * 413 past `maxFileSize` and `storageBytesPerUser`, 429 past `uploadsPerUser`, every answer and its headers checked
 * against the document.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let h: Harness;
let project: Project;
let document: Json;
let schemas: DocumentSchemas;
let image: { id: string; sha256: string };
let note: { id: string; sha256: string };

const NOTE = 'hello, edges';

beforeAll(async () => {
  h = await startHarness();
  project = await createProject(h);
  document = (await h.request().get('/openapi.json').set(project.owner.auth)).body as Json;
  schemas = new DocumentSchemas(document);
  const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 200, g: 80, b: 20 } } }).png().toBuffer();
  image = (await h.request().post('/files/photos?name=edge.png').set(project.owner.auth).set('content-type', 'image/png').send(png)).body.data;
  note = (await h.request().post('/files/photos?name=note.txt').set(project.owner.auth).set('content-type', 'text/plain').send(NOTE)).body.data;
}, 60_000);
afterAll(async () => h?.close());

const holds = <T>(edge: Case<T>): Promise<void> => holdsIn(schemas, edge);
const parameter = (path: string, method: string, name: string) => () => schemas.of((document.paths[path][method].parameters as Json[]).find((entry) => entry.name === name)!.schema);
const property = (schema: string, name: string) => () => schemas.of(document.components.schemas[schema].properties[name]);

/** The answer matches what the document says of its operation and status, headers included. */
function answers(method: string, path: string, response: supertest.Response, on: { document: Json; schemas: DocumentSchemas } = { document, schemas }): supertest.Response {
  const located = locate(on.document, method, new URL(path, h.url).pathname);
  expect(located, `${method} ${path}`).toBeDefined();
  const raw = { status: response.status, location: null, contentType: (response.headers['content-type'] as string | undefined) ?? '', text: response.text ?? '', header: (name: string) => (response.headers[name.toLowerCase()] as string | undefined) ?? null };
  checkAnswer(on.document, on.schemas, located!, raw, `${method} ${path}`);
  return response;
}
const get = (path: string, headers: Record<string, string> = {}, method: 'get' | 'head' = 'get') =>
  h.request()[method](path).set({ ...project.owner.auth, ...headers }).then((response) => answers(method.toUpperCase(), path, response));
const upload = (path: string, body: string, headers: Record<string, string> = project.member.auth) =>
  h.request().post(path).set(headers).set('content-type', 'text/plain').send(body).then((response) => answers('POST', path, response));

describe('the files\' edges: what the document admits the service takes, what it refuses the service refuses', () => {
  it('transform parameters: each named when refused, in a query and in a signing request', async () => {
    const cases: Array<[string, string[], string[]]> = [
      ['width', ['0', '00000', '4097', '1.5', '-1', '', ' 16', '1e2', '123456'], ['1', '4096', '016', '04096']],
      ['height', ['0', '4097', 'x'], ['15', '00001']],
      ['quality', ['0', '101', '50.5'], ['1', '100', '00100']],
      ['fit', ['stretch', 'COVER', ''], ['cover', 'contain', 'inside']],
      ['format', ['gif', 'jpg', 'WEBP'], ['webp', 'jpeg', 'png', 'avif']],
    ];
    for (const [name, refused, admitted] of cases) {
      const path = (value: string) => `/files/photos/${image.id}?${new URLSearchParams({ [name]: value })}`;
      await holds({ schema: parameter('/files/photos/{id}', 'get', name), send: (value: string) => get(path(value)), named: name, refused, admitted });
      // The same values in a signing request, named as its field.
      const sign = (value: string) => h.request().post(`/files/photos/${image.id}/sign`).set(project.owner.auth).send({ expiresIn: 60, transform: { [name]: value } });
      await holds({ schema: () => schemas.of(document.components.schemas.Transform.properties[name]), send: sign, named: `transform.${name}`, refused, admitted });
    }
    await holds({ schema: property('Transform', 'width'), send: (width: unknown) => h.request().post(`/files/photos/${image.id}/sign`).set(project.owner.auth).send({ expiresIn: 60, transform: { width } }), named: 'transform.width', refused: [0, 4097, 1.5, true, null], admitted: [16, 4096] });
    // What the document cannot know: the file is not an image.
    expect(errorOf(await get(`/files/photos/${note.id}?fit=cover&width=16`)).details).toEqual({ parameter: 'width' });
    expect(errorOf(await h.request().post(`/files/photos/${note.id}/sign`).set(project.owner.auth).send({ expiresIn: 60, transform: { width: 16 } })).details).toEqual({ field: 'transform' });
    // Any other parameter of a download is 400 naming it; each is given once.
    expect(errorOf(await get(`/files/photos/${image.id}?select=id`)).details).toEqual({ parameter: 'select' });
    expect(errorOf(await get(`/files/photos/${image.id}?width=16&width=32`)).details).toEqual({ parameter: 'width' });
  }, 60_000);

  it('a signing request: expiresIn 1 to 7 days in seconds, a transform object, nothing else', async () => {
    const sign = (body: unknown) => h.request().post(`/files/photos/${note.id}/sign`).set(project.member.auth).send(body as object);
    await holds({ schema: property('SignFile', 'expiresIn'), send: (expiresIn: unknown) => sign({ expiresIn }), named: 'expiresIn', refused: [0, -1, 604_801, 1.5, '60', null], admitted: [1, 604_800] });
    const shape = () => schemas.of({ $ref: '#/components/schemas/SignFile' });
    await holds({ schema: shape, send: sign, named: 'expiresIn', refused: [{}, { transform: {} }], admitted: [] });
    await holds({ schema: shape, send: sign, named: 'extra', refused: [{ expiresIn: 60, extra: 1 }], admitted: [] });
    await holds({ schema: shape, send: sign, named: 'transform', refused: [{ expiresIn: 60, transform: null }, { expiresIn: 60, transform: [16] }], admitted: [] });
    await holds({ schema: shape, send: sign, named: 'transform.size', refused: [{ expiresIn: 60, transform: { size: 16 } }], admitted: [] });
  });

  it('a signed link\'s expires: the document refuses what is no expiry; the service refuses it as no link (403)', async () => {
    const link = new URL((await h.request().post(`/files/photos/${note.id}/sign`).set(project.member.auth).send({ expiresIn: 600 })).body.data.url as string);
    const sig = link.searchParams.get('sig')!;
    const validate = parameter('/files/photos/{id}', 'get', 'expires')();
    for (const expires of ['', 'soon', '1'.repeat(13), '-1']) {
      expect(validate(expires), expires).toBe(false);
      const refused = await h.request().get(`/files/photos/${note.id}?${new URLSearchParams({ expires, sig })}`).then((response) => answers('GET', link.pathname, response));
      expect([refused.status, errorOf(refused).details?.reason], expires).toEqual([403, 'link']);
    }
    expect(validate(link.searchParams.get('expires')!)).toBe(true);
    expect(parameter('/files/photos/{id}', 'get', 'sig')()(sig)).toBe(true);
    const opened = await h.request().get(`${link.pathname}${link.search}`).then((response) => answers('GET', link.pathname, response));
    expect([opened.status, opened.text]).toEqual([200, NOTE]);
    // One without the other is 400 naming the missing one.
    expect(errorOf(await get(`/files/photos/${note.id}?expires=${link.searchParams.get('expires')}`)).details).toEqual({ parameter: 'sig' });
  });

  it('name and metadata as query parameters of an upload', async () => {
    await holds({
      schema: parameter('/files/docs', 'post', 'name'),
      send: (name: string) => upload(`/files/docs?${new URLSearchParams({ name })}`, 'x'),
      named: 'name',
      refused: ['', 'a/b', 'a\\b', 'a\u0000b', 'tab\there', 'bell\u0007', '\u0085', 'x'.repeat(256), '\u00e9'.repeat(128)],
      admitted: ['x'.repeat(255), '\u00e9'.repeat(127), '\u4e2d'.repeat(85), '\ud83d\ude00'.repeat(63), 'r\u00e9sum\u00e9 (final) v2.txt', ' .. '],
    });
    const metadata: Array<[string, string[], string[]]> = [
      ['pinned', ['maybe', ''], ['true', 'false']],
      ['weight', ['abc', '1e999', 'NaN'], ['2.5', '-1', '1e3']],
      ['due', ['2026-02-30', 'tomorrow'], ['2026-11-23T10:00:00Z', '2026-11-23', '0']],
      ['label', ['a\u0000b'], ['hello', '']],
    ];
    for (const [name, refused, admitted] of metadata) {
      await holds({ schema: parameter('/files/docs', 'post', name), send: (value: string) => upload(`/files/docs?${new URLSearchParams({ [name]: value })}`, 'x'), named: name, refused, admitted });
    }
    // A json column's value must parse: no pattern says so (the schema says `contentMediaType`).
    expect(parameter('/files/docs', 'post', 'tags')()('not json')).toBe(true);
    expect(errorOf(await upload('/files/docs?tags=not%20json', 'x')).details).toEqual({ field: 'tags' });
    expect((await upload('/files/docs?tags=%5B1%2C%22a%22%5D', 'x')).body.data.tags).toEqual([1, 'a']);
    // A file column, and a column the bucket does not have, are refused by name.
    for (const name of ['size', 'sha256', 'user_id', 'nope']) expect(errorOf(await upload(`/files/docs?${name}=1`, 'x')).details, name).toEqual({ field: name });
  }, 60_000);

  it('ranges: one honoured (206), several whole (200), past the end 416, If-Range; HEAD as GET', async () => {
    const size = NOTE.length;
    const range = async (header: string, status: number, body?: string, extra: Record<string, string> = {}) => {
      const response = await get(`/files/photos/${note.id}`, { range: header, ...extra });
      expect(response.status, header).toBe(status);
      if (body !== undefined) expect(response.text, header).toBe(body);
      return response;
    };
    expect((await range('bytes=0-0', 206, 'h')).headers['content-range']).toBe(`bytes 0-0/${size}`);
    expect((await range('bytes=-5', 206, 'edges')).headers['content-range']).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    await range('bytes=7-', 206, 'edges');
    await range(`bytes=0-${size + 100}`, 206, NOTE);
    await range('bytes=0-1,4-5', 200, NOTE);
    // An invalid byte range is 416 (RFC 9110 allows it: a SHOULD); another unit is ignored.
    await range('bytes=x-y', 416);
    await range('items=0-1', 200, NOTE);
    expect((await range(`bytes=${size}-`, 416, '')).headers['content-range']).toBe(`bytes */${size}`);
    await range('bytes=100-200', 416);
    await range('bytes=0-4', 206, 'hello', { 'if-range': `"${note.sha256}"` });
    await range('bytes=0-4', 200, NOTE, { 'if-range': '"another"' });
    const head = await get(`/files/photos/${note.id}`, { range: 'bytes=0-4' }, 'head');
    expect([head.status, head.headers['content-range'], head.text ?? '']).toEqual([206, `bytes 0-4/${size}`, '']);
    // A variant has its own ranges and ETag.
    const variant = await get(`/files/photos/${image.id}?width=16`, { range: 'bytes=0-3' });
    expect([variant.status, variant.headers.etag]).toEqual([206, `"${image.sha256}-w16h-cover-same-q80"`]);
  });

  it('conditional requests: 304 by ETag (strong, weak, listed, *) and by date; If-None-Match wins', async () => {
    const path = `/files/photos/${note.id}`;
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const earlier = new Date(0).toUTCString();
    for (const [headers, status] of [
      [{ 'if-none-match': `"${note.sha256}"` }, 304],
      [{ 'if-none-match': `W/"${note.sha256}"` }, 304],
      [{ 'if-none-match': `"other", "${note.sha256}"` }, 304],
      [{ 'if-none-match': '*' }, 304],
      [{ 'if-none-match': '"other"' }, 200],
      [{ 'if-modified-since': later }, 304],
      [{ 'if-modified-since': earlier }, 200],
      [{ 'if-modified-since': 'not a date' }, 200],
      [{ 'if-none-match': '"other"', 'if-modified-since': later }, 200],
      [{ 'if-none-match': `"${note.sha256}"`, range: 'bytes=0-1' }, 304],
    ] as const) {
      const response = await get(path, headers);
      expect(response.status, JSON.stringify(headers)).toBe(status);
      if (status === 304) expect(response.text ?? '').toBe('');
    }
    expect((await get(path, { 'if-none-match': `"${note.sha256}"` }, 'head')).status).toBe(304);
  });

  it('413 past maxFileSize (declared or streamed), past storageBytesPerUser; 429 past uploadsPerUser', async () => {
    expect(errorOf(await upload('/files/photos', 'x'.repeat(PHOTOS_MAX_BYTES + 1), project.owner.auth)).code).toBe('PAYLOAD_TOO_LARGE');
    const tus = await h.request().post('/files/photos/uploads').set(project.owner.auth).set({ 'tus-resumable': '1.0.0', 'upload-length': String(PHOTOS_MAX_BYTES + 1) });
    expect(answers('POST', '/files/photos/uploads', tus).status).toBe(413);
    // A harness whose accounts may hold 64 bytes and upload 3 files an hour.
    const limited = await startHarness({ limits: { ...DEFAULT_LIMITS, storageBytesPerUser: { max: 64 }, uploadsPerUser: { max: 3, windowSeconds: 3600 } } });
    try {
      const owner = await signUp(limited);
      expect((await limited.request().post('/admin/tables').set(owner.auth).send({ name: 'limited', kind: 'files' })).status).toBe(201);
      const own = { document: (await limited.request().get('/openapi.json').set(owner.auth)).body as Json, schemas: undefined as unknown as DocumentSchemas };
      own.schemas = new DocumentSchemas(own.document);
      const send = (account: { auth: Record<string, string> }, body: string) =>
        limited.request().post('/files/limited').set(account.auth).set('content-type', 'text/plain').send(body).then((response) => answers('POST', '/files/limited', response, own));
      const member = await signUp(limited);
      expect(errorOf(await send(member, 'x'.repeat(65))).code).toBe('PAYLOAD_TOO_LARGE');
      const other = await signUp(limited);
      for (let i = 0; i < 3; i++) expect((await send(other, 'ok')).status).toBe(201);
      const over = await send(other, 'ok');
      expect([over.status, errorOf(over).details?.limit, over.headers['retry-after']]).toEqual([429, 'uploadsPerUser', expect.stringMatching(/^[0-9]+$/)]);
    } finally {
      await limited.close();
    }
  }, 60_000);
});
