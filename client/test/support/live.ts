import { createHmac } from 'node:crypto';
import { spawnServer, type SpawnOptions, type SpawnedServer } from '../../../test-support/server.js';
import { createClient, isMfaPending, type BasaltClient, type ClientOptions, type FetchLike, type MfaPending, type Session, type UntypedDatabase } from '../../src/index.js';

/** The secret spawnServer gives the server, so tests can sign tokens the server accepts (or finds expired). */
export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-0123456789';

export const PASSWORD = 'correct horse battery';

/** HS256, as the server signs: for crafting access tokens that are valid but already past `exp`. */
export function signJwt(claims: Record<string, unknown>, secret = TEST_JWT_SECRET): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The same access token, but expired an hour ago. */
export function expiredCopy(accessToken: string): string {
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  return signJwt({ ...claims, iat: now - 7200, exp: now - 3600 });
}

/** A fetch that records what the client sent, to count refreshes. */
export function countingFetch(): FetchLike & { calls: { method: string; path: string }[]; count(path: string): number } {
  const calls: { method: string; path: string }[] = [];
  const fetchImpl = (input: string, init?: RequestInit) => {
    calls.push({ method: init?.method ?? 'GET', path: new URL(input).pathname });
    return fetch(input, init);
  };
  return Object.assign(fetchImpl, { calls, count: (path: string) => calls.filter((call) => call.path === path).length });
}

/** The session a sign-in answered; throws when it answered the second-factor step instead. */
export async function sessionOf(answer: Promise<Session | MfaPending>): Promise<Session> {
  const result = await answer;
  if (isMfaPending(result)) throw new Error('expected a session, the sign-in asked for the second factor');
  return result;
}

let emailCounter = 0;
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}${++emailCounter}.${Date.now().toString(36)}@example.test`;
}

export interface Live {
  server: SpawnedServer;
  /** A fresh client with memory storage; closed by `stop`. */
  client<DB = UntypedDatabase>(options?: ClientOptions, anonKey?: string): BasaltClient<DB>;
  stop(): Promise<void>;
}

/** A server on a fresh database, and clients of it that are closed when the suite ends. */
export async function startLive(options?: SpawnOptions): Promise<Live> {
  const server = await spawnServer(options);
  const clients: { close(): void }[] = [];
  return {
    server,
    client<DB>(clientOptions: ClientOptions = {}, anonKey = server.anonKey) {
      const client = createClient<DB>(server.url, anonKey, { storage: false, ...clientOptions });
      clients.push(client);
      return client;
    },
    async stop() {
      clients.forEach((client) => client.close());
      await server.stop();
    },
  };
}
