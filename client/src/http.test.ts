import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from './errors.js';
import { Http, segment, type FetchLike } from './http.js';

function recorder(response: () => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return response();
  };
  return { calls, fetch };
}

const ok = () => new Response(JSON.stringify({ data: { ok: true } }), { status: 200 });

describe('Http', () => {
  it('joins the base URL, encodes the query, and sends JSON with the anon key and Bearer token', async () => {
    const { calls, fetch } = recorder(ok);
    const http = new Http('http://api.test/base///', 'anon-key', fetch);
    await http.send({ method: 'POST', path: `/api/${segment('a/b?')}`, query: { when: new Date(0), done: false, skip: undefined }, body: { x: 1 }, accessToken: 'tok' });
    expect(calls[0]?.url).toBe('http://api.test/base/api/a%2Fb%3F?when=1970-01-01T00%3A00%3A00.000Z&done=false');
    const headers = calls[0]?.init?.headers as Record<string, string>;
    expect(headers).toMatchObject({ apikey: 'anon-key', authorization: 'Bearer tok', 'content-type': 'application/json' });
    expect(calls[0]?.init?.body).toBe('{"x":1}');
  });

  it('sends no credentials when told, and no content-type without a body', async () => {
    const { calls, fetch } = recorder(ok);
    await new Http('http://api.test', 'anon-key', fetch).send({ method: 'GET', path: '/auth/settings', accessToken: 'tok', credentials: false });
    expect(calls[0]?.init?.headers).toEqual({ accept: 'application/json' });
  });

  it('throws the error envelope as an ApiError with status, code, message, details and request id', async () => {
    const { fetch } = recorder(
      () =>
        new Response(JSON.stringify({ error: { code: 'CONFLICT', message: 'taken', details: { constraint: 'unique', column: 'users.email' } } }), {
          status: 409,
          headers: { 'x-request-id': 'req-1' },
        }),
    );
    const error = await new Http('http://api.test', undefined, fetch).send({ method: 'GET', path: '/' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', message: 'taken', details: { constraint: 'unique', column: 'users.email' }, requestId: 'req-1' });
  });

  it('turns a response that is not the envelope into an ApiError with the code its status means', async () => {
    const { fetch } = recorder(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    const error = await new Http('http://api.test', undefined, fetch).send({ method: 'GET', path: '/' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 502, code: 'UNAVAILABLE' });
  });

  it('sends a text body with its own type, and answers a body asked in another type as text with its headers', async () => {
    const { calls, fetch } = recorder(() => new Response('id,title\n1,a\n', { status: 200, headers: { 'content-type': 'text/csv', link: '<x?after=1>; rel="next"' } }));
    const http = new Http('http://api.test', 'anon-key', fetch);
    const answer = await http.send<string>({ method: 'POST', path: '/api/t', content: { type: 'text/csv', text: 'title\na\n' }, body: { ignored: true }, accept: 'text/csv' });
    expect(answer).toMatchObject({ status: 200, body: 'id,title\n1,a\n' });
    expect(answer.headers.get('link')).toBe('<x?after=1>; rel="next"');
    expect(calls[0]?.init?.headers).toMatchObject({ accept: 'text/csv', 'content-type': 'text/csv' });
    expect(calls[0]?.init?.body).toBe('title\na\n');
  });

  it('reads an error answer to a text request as the JSON envelope', async () => {
    const { fetch } = recorder(() => new Response(JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'no', details: { parameter: 'select' } } }), { status: 400 }));
    const error = await new Http('http://api.test', undefined, fetch).send({ method: 'GET', path: '/api/t', accept: 'text/csv' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 400, details: { parameter: 'select' } });
  });

  it('turns a failed fetch into a NetworkError that keeps the cause', async () => {
    const cause = new TypeError('fetch failed');
    const error = await new Http('http://api.test', undefined, () => Promise.reject(cause)).send({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as NetworkError).cause).toBe(cause);
  });
});

describe('Retry-After', () => {
  it('reads whole seconds and HTTP dates, and ignores anything else', async () => {
    const { parseRetryAfter } = await import('./errors.js');
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(' 7 ')).toBe(7);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 1, 0)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-5')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('sends back the latest Basalt-Lsn a write answered as Basalt-Min-Lsn, never an older one', async () => {
    const answers = ['1/A0', '0/FFFFFFFF', null, '2/0'];
    let next = 0;
    const { calls, fetch } = recorder(() => {
      const lsn = answers[next++];
      return new Response(JSON.stringify({ data: {} }), { status: 200, headers: lsn ? { 'basalt-lsn': lsn } : {} });
    });
    const http = new Http('http://api.test', undefined, fetch);
    for (let i = 0; i < 5; i++) await http.send({ method: 'GET', path: '/api/t' });
    const sent = calls.map((call) => (call.init?.headers as Record<string, string>)['basalt-min-lsn']);
    // Numerically compared: 1/A0 stays ahead of 0/FFFFFFFF; a malformed or missing header changes nothing.
    expect(sent).toEqual([undefined, '1/A0', '1/A0', '1/A0', '2/0']);
    expect(http.minLsn).toBe('2/0');
  });
});
