import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './errors.js';
import { Bucket, transformQuery, uploadFields, type FilesContext } from './files.js';
import { Http, type FetchLike } from './http.js';
import { counted, progressReporter } from './progress.js';

function context(fetch: FetchLike = async () => new Response(null, { status: 500 })): FilesContext {
  const http = new Http('http://api.test', 'anon-key', fetch);
  return {
    http,
    send: async <T>(request: { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown }) => (await http.send<T>({ ...request, accessToken: 'tok' })).body,
    credentials: { token: async () => 'tok', refresh: async () => false },
    resumableAbove: 6 * 1024 * 1024,
    publicity: new Map(),
  };
}

/** A browser's XMLHttpRequest, as far as an upload uses it: progress events, then the answer. */
class FakeXhr {
  static last: FakeXhr | undefined;
  static answer = { status: 201, body: '{"data":{"id":"f1","size":300000}}', headers: { 'basalt-lsn': '0/16' } as Record<string, string> };
  method = '';
  url = '';
  headers: Record<string, string> = {};
  upload: { onprogress: ((event: { loaded: number }) => void) | null } = { onprogress: null };
  status = 0;
  responseText = '';
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader(name: string) {
    return FakeXhr.answer.headers[name.toLowerCase()] ?? null;
  }
  abort() {
    this.onabort?.();
  }
  send(body: Blob) {
    setTimeout(() => {
      for (const loaded of [0, 65536, 65536, 200000, body.size]) this.upload.onprogress?.({ loaded });
      this.status = FakeXhr.answer.status;
      this.responseText = FakeXhr.answer.body;
      this.onload?.();
    }, 1);
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('uploads in one request', () => {
  it('go through XMLHttpRequest where it exists and progress is asked, with credentials and fields', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const ctx = context();
    const calls: [number, number | null][] = [];
    const row = await new Bucket(ctx, 'avatars').upload(new Blob([new Uint8Array(300000)], { type: 'image/png' }), {
      name: 'a b.png',
      metadata: { caption: 'x', when: new Date(0), tags: ['a'], none: null },
      onProgress: (sent, total) => calls.push([sent, total]),
    });
    expect(row).toEqual({ id: 'f1', size: 300000 });
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('http://api.test/files/avatars?caption=x&when=1970-01-01T00%3A00%3A00.000Z&tags=%5B%22a%22%5D&name=a+b.png');
    expect(xhr.headers).toMatchObject({ apikey: 'anon-key', authorization: 'Bearer tok', 'content-type': 'image/png' });
    expect(calls).toEqual([
      [0, 300000],
      [65536, 300000],
      [200000, 300000],
      [300000, 300000],
    ]);
    // The write's position is remembered for the next reads, as for every other write.
    expect(ctx.http.minLsn).toBe('0/16');
  });

  it('turn an error answer through XMLHttpRequest into the ApiError', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    FakeXhr.answer = { status: 413, body: '{"error":{"code":"PAYLOAD_TOO_LARGE","message":"too big"}}', headers: { 'x-request-id': 'r1' } };
    const error = await new Bucket(context(), 'avatars').upload(new Blob(['x']), { onProgress: () => undefined }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', requestId: 'r1' });
  });

  it('go through fetch without progress asked, the Blob as the body', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    FakeXhr.last = undefined;
    const seen: { url: string; init?: RequestInit }[] = [];
    const ctx = context(async (url, init) => {
      seen.push({ url, init });
      return new Response('{"data":{"id":"f2","size":1}}', { status: 200 });
    });
    const body = new Blob(['y']);
    await expect(new Bucket(ctx, 'avatars').replace('f2', body)).resolves.toEqual({ id: 'f2', size: 1 });
    expect(FakeXhr.last).toBeUndefined();
    expect(seen[0]).toMatchObject({ url: 'http://api.test/files/avatars/f2', init: { method: 'PUT', body } });
  });
});

describe('url', () => {
  it("asks the bucket's publicity once (concurrent calls share the HEAD) and builds plain URLs with the transform", async () => {
    let heads = 0;
    const ctx = context(async (_url, init) => {
      if (init?.method === 'HEAD') heads++;
      return new Response(null, { status: 200, headers: { 'cache-control': 'public, max-age=0, must-revalidate' } });
    });
    const bucket = new Bucket(ctx, 'gallery');
    const urls = await Promise.all([bucket.url('a'), bucket.url('b', { transform: { width: 64, quality: 50, format: 'webp' } })]);
    expect(urls).toEqual(['http://api.test/files/gallery/a', 'http://api.test/files/gallery/b?width=64&format=webp&quality=50']);
    expect(heads).toBe(1);
  });

  it('signs for a private bucket, and asks again after a failed question', async () => {
    let heads = 0;
    const ctx = context(async (_url, init) => {
      if (init?.method === 'HEAD') return ++heads === 1 ? new Response(null, { status: 404 }) : new Response(null, { status: 200, headers: { 'cache-control': 'private, max-age=0' } });
      return new Response(JSON.stringify({ data: { url: 'http://api.test/files/p/a?expires=1&sig=s', expiresAt: 'x' } }), { status: 200 });
    });
    const bucket = new Bucket(ctx, 'p');
    await expect(bucket.url('a')).rejects.toMatchObject({ status: 404 });
    await expect(bucket.url('a')).resolves.toBe('http://api.test/files/p/a?expires=1&sig=s');
    expect(heads).toBe(2);
  });
});

describe('pieces', () => {
  it('fields: name wins; Dates as ISO, objects as JSON, null and undefined left out', () => {
    expect(uploadFields('n', { name: 'm', a: 1, b: true, c: { x: 1 }, d: null, e: undefined })).toEqual({ name: 'n', a: '1', b: 'true', c: '{"x":1}' });
    expect(uploadFields(undefined, undefined)).toEqual({});
  });

  it("transformQuery keeps the contract's order and leaves out what is not given", () => {
    expect(transformQuery({ quality: 10, width: 5, height: undefined })).toEqual({ width: 5, quality: 10 });
    expect(Object.keys(transformQuery({ quality: 10, fit: 'cover', width: 5 }))).toEqual(['width', 'fit', 'quality']);
  });

  it('progress never goes back and ends once at the total', () => {
    const calls: [number, number | null][] = [];
    const report = progressReporter((sent, total) => calls.push([sent, total]), 10);
    [3, 3, 2, 7, 12].forEach(report.sent);
    report.done(10);
    expect(calls).toEqual([
      [3, 10],
      [7, 10],
      [10, 10],
    ]);
    const open: [number, number | null][] = [];
    const stream = progressReporter((sent, total) => open.push([sent, total]), null);
    stream.sent(4);
    stream.done(4);
    expect(open).toEqual([
      [4, null],
      [4, 4],
    ]);
  });

  it('counted hands on the bytes in pieces of at most 64 KiB, counting each', async () => {
    const seen: number[] = [];
    const source = new Blob([new Uint8Array(150_000).fill(7)]).stream();
    const out = new Uint8Array(await new Response(counted(source, (sent) => seen.push(sent))).arrayBuffer());
    expect(out.length).toBe(150_000);
    expect(out.every((byte) => byte === 7)).toBe(true);
    expect(seen).toEqual([65_536, 131_072, 150_000]);
  });
});
