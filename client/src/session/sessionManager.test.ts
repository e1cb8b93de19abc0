import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeServer, fakeAccessToken } from '../../test/support/fakeServer.js';
import { createClient, type BasaltClient, type ClientOptions } from '../client.js';
import { ApiError, NetworkError } from '../errors.js';
import type { AuthChangeEvent } from './session.js';
import { memoryStorage, type StorageAdapter } from './storage.js';

const KEY = 'test.session';
const clients: BasaltClient[] = [];
afterEach(() => clients.splice(0).forEach((client) => client.close()));

function clientOf(server: FakeServer, options: ClientOptions = {}): BasaltClient {
  const client = createClient('http://api.test', 'anon', { fetch: server.fetch, storageKey: KEY, ...options });
  clients.push(client);
  return client;
}

/** A stored session whose access token the given number of seconds from expiry (negative: expired). */
function plant(storage: StorageAdapter, server: FakeServer, expiresInSeconds: number, expiresAt?: number): string {
  const { refreshToken } = server.issue();
  const accessToken = fakeAccessToken('u1', expiresInSeconds);
  const stored = { user: { id: 'u1', email: 'a@x.test', role: 'member' }, accessToken, refreshToken, expiresAt };
  void storage.setItem(KEY, JSON.stringify(stored));
  return refreshToken;
}

function events(client: BasaltClient): AuthChangeEvent[] {
  const seen: AuthChangeEvent[] = [];
  client.auth.onChange((event) => seen.push(event));
  return seen;
}

describe('refresh in one client', () => {
  it('20 concurrent calls with an expired access token make exactly one refresh, then all succeed', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    plant(storage, server, -10);
    const client = clientOf(server, { storage });
    const seen = events(client);
    const results = await Promise.all(Array.from({ length: 20 }, () => client.from('todos').list()));
    expect(results).toHaveLength(20);
    expect(server.refreshCount).toBe(1);
    const session = await client.auth.getSession();
    const apiCalls = server.requests.filter((r) => r.path === '/api/todos');
    expect(apiCalls).toHaveLength(20);
    expect(apiCalls.every((r) => r.token === session?.accessToken)).toBe(true);
    expect(seen).toEqual(['refreshed']);
  });

  it('on a 401 token_expired the local clock did not foresee, refreshes once and retries each call once', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    // Stored as valid for another hour, but the token itself expired: a client clock that is behind.
    plant(storage, server, -10, Date.now() + 3600_000);
    const client = clientOf(server, { storage });
    await Promise.all(Array.from({ length: 20 }, () => client.from('todos').list()));
    expect(server.refreshCount).toBe(1);
    expect(server.requests.filter((r) => r.path === '/api/todos')).toHaveLength(40);
  });

  it('refreshes shortly before expiry, on a timer, without any call', async () => {
    const server = new FakeServer({ accessTtl: 2 });
    const client = clientOf(server, { storage: false, refreshMarginSeconds: 60 });
    const seen = events(client);
    const first = await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    // The margin is capped at half the 2 s lifetime: one refresh after about a second, not a loop.
    await new Promise((resolve) => setTimeout(resolve, 1400));
    expect(server.refreshCount).toBe(1);
    expect(seen).toEqual(['signed_in', 'refreshed']);
    expect((await client.auth.getSession())?.refreshToken).not.toBe(first.refreshToken);
  });

  it('a refresh the server refuses signs the client out cleanly: storage cleared, onChange fired, 401 thrown', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    const token = plant(storage, server, -10);
    server.refreshTokens.delete(token); // spent elsewhere
    const client = clientOf(server, { storage });
    const seen: [AuthChangeEvent, unknown][] = [];
    client.auth.onChange((event, session) => seen.push([event, session]));
    const outcomes = await Promise.allSettled([client.from('todos').list(), client.from('todos').list()]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
    expect(server.refreshCount).toBe(1);
    expect(seen).toEqual([['signed_out', null]]);
    expect(storage.getItem(KEY)).toBeNull();
    expect(await client.auth.getSession()).toBeNull();
    // Signed out, calls go on as anon: the anon key, no Bearer.
    await client.from('todos').list();
    expect(server.requests.at(-1)?.token).toBeUndefined();
  });

  it('getSession() answers null, not an error, when the stored session has ended on the server', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    server.refreshTokens.delete(plant(storage, server, -10));
    const client = clientOf(server, { storage });
    const seen = events(client);
    await expect(client.auth.getSession()).resolves.toBeNull();
    expect(seen).toEqual(['signed_out']);
  });

  it('keeps the session when the refresh fails for lack of a network or a server error, and retries later', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    plant(storage, server, -10);
    const client = clientOf(server, { storage });
    const seen = events(client);
    server.failRefreshWith = 'network';
    await expect(client.from('todos').list()).rejects.toBeInstanceOf(NetworkError);
    server.failRefreshWith = 'server-error';
    await expect(client.from('todos').list()).rejects.toMatchObject({ status: 503, code: 'UNAVAILABLE' });
    expect(await storage.getItem(KEY)).not.toBeNull();
    expect(seen).toEqual([]);
    server.failRefreshWith = undefined;
    await client.from('todos').list();
    expect(seen).toEqual(['refreshed']);
  });

  it('sends the still-valid token when a refresh ahead of expiry fails transiently', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    plant(storage, server, 30); // inside the 60 s margin, not yet expired
    const client = clientOf(server, { storage, autoRefresh: false });
    server.failRefreshWith = 'network';
    await expect(client.from('todos').list()).resolves.toEqual({ data: [], total: 0 });
    expect(server.refreshCount).toBe(1);
  });

  it('sends the anon key alone when nobody is signed in, and signs in and out', async () => {
    const server = new FakeServer();
    const client = clientOf(server, { storage: false });
    const seen = events(client);
    await client.from('todos').list();
    expect(server.requests[0]?.token).toBeUndefined();
    const session = await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await client.from('todos').list();
    expect(server.requests.at(-1)?.token).toBe(session.accessToken);
    await client.auth.signOut();
    expect(server.requests.at(-1)).toMatchObject({ path: '/auth/signout', token: session.accessToken });
    expect(await client.auth.getSession()).toBeNull();
    expect(seen).toEqual(['signed_in', 'signed_out']);
    // Signing out twice is a no-op.
    await client.auth.signOut();
    expect(server.requests.filter((r) => r.path === '/auth/signout')).toHaveLength(1);
  });

  it('signs out locally even when the server cannot be told, and says so with a NetworkError', async () => {
    const server = new FakeServer();
    const fetch = (url: string, init?: RequestInit) =>
      url.endsWith('/auth/signout') ? Promise.reject(new TypeError('offline')) : server.fetch(url, init);
    const client = clientOf(server, { storage: false, fetch });
    const seen = events(client);
    await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await expect(client.auth.signOut()).rejects.toBeInstanceOf(NetworkError);
    expect(await client.auth.getSession()).toBeNull();
    expect(seen).toEqual(['signed_in', 'signed_out']);
  });

  it('forgets the session here and in storage before the server is told, with the token it had', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    const fetch = async (url: string, init?: RequestInit) => {
      if (url.endsWith('/auth/signout')) {
        asked = true;
        await held;
      }
      return server.fetch(url, init);
    };
    const client = clientOf(server, { storage, fetch });
    const session = await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    const signingOut = client.auth.signOut();
    await vi.waitFor(() => expect(asked).toBe(true));
    // The server has not answered yet: a reload now finds no session.
    expect(await storage.getItem(KEY)).toBeNull();
    expect(await client.auth.getSession()).toBeNull();
    const reloaded = clientOf(server, { storage, fetch });
    expect(await reloaded.auth.getSession()).toBeNull();
    release();
    await signingOut;
    expect(server.requests.filter((r) => r.path === '/auth/signout')).toEqual([expect.objectContaining({ token: session.accessToken })]);
    expect(server.refreshTokens.size).toBe(0);
  });

  it('renews an expired access token once by the forgotten refresh token to sign out on the server', async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    const refreshToken = plant(storage, server, -10, Date.now() + 3600_000);
    const client = clientOf(server, { storage, autoRefresh: false });
    const seen = events(client);
    await client.auth.signOut();
    expect(await client.auth.getSession()).toBeNull();
    expect(seen).toEqual(['signed_out']);
    const calls = server.requests.map((r) => r.path);
    expect(calls).toEqual(['/auth/signout', '/auth/refresh', '/auth/signout']);
    expect(server.requests[1]?.body).toEqual({ refreshToken });
    expect(server.requests[2]?.token).not.toBe(server.requests[0]?.token);
    // The renewed pair was never kept: the server ended it with the rest.
    expect(server.refreshTokens.size).toBe(0);
    expect(await storage.getItem(KEY)).toBeNull();
  });

  it('treats a 401 from sign-out (the session had already ended) as signed out, not as an error', async () => {
    const server = new FakeServer();
    const fetch = async (url: string, init?: RequestInit) =>
      url.endsWith('/auth/signout')
        ? new Response(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'no' } }), { status: 401 })
        : server.fetch(url, init);
    const client = clientOf(server, { storage: false, fetch });
    await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    await expect(client.auth.signOut()).resolves.toBeUndefined();
    expect(await client.auth.getSession()).toBeNull();
  });

  it('throws ApiError for an error answer, and lets a second 401 through after one retry', async () => {
    const server = new FakeServer();
    const always401 = async (url: string, init?: RequestInit) =>
      url.includes('/api/')
        ? new Response(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'expired', details: { reason: 'token_expired' } } }), { status: 401 })
        : server.fetch(url, init);
    const client = clientOf(server, { storage: false, fetch: always401 });
    await client.auth.signIn({ email: 'a@x.test', password: 'password1' });
    const error = await client.from('todos').list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, details: { reason: 'token_expired' } });
    expect(server.refreshCount).toBe(1);
  });
});
