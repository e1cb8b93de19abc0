import { TOKEN_EXPIRED_REASON, type DataResponse } from '@basalt/contract';
import { ApiError } from './errors.js';
import type { Http, HttpRequest } from './http.js';
import type { SessionManager } from './session/sessionManager.js';

export type SendRequest = Omit<HttpRequest, 'accessToken' | 'credentials'>;

/** Sends a request with the caller's credentials and returns the parsed body. */
export type Send = <T>(request: SendRequest) => Promise<T>;

/** A request whose answer is `{ data }`: the data. */
export async function sendForData<T>(send: Send, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await send<DataResponse<T>>({ method, path, body })).data;
}

/** A 401 that says the access token expired: worth one shared refresh and one retry. */
export function isTokenExpired(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.details?.reason === TOKEN_EXPIRED_REASON;
}

/**
 * Requests on behalf of whoever is signed in: the Bearer token when there is a session (refreshed first if it is
 * due), else the anon key alone. A 401 that says the token expired (clock skew, a sleeping laptop) triggers the one
 * shared refresh and a single retry; a second 401 is the caller's to see.
 */
export function authorizedSender(http: Http, sessions: SessionManager): Send {
  return async <T>(request: SendRequest): Promise<T> => {
    const session = await sessions.getSession();
    try {
      return (await http.send<T>({ ...request, accessToken: session?.accessToken })).body;
    } catch (error) {
      if (!session || !isTokenExpired(error)) throw error;
      const next = await sessions.refresh(session);
      if (!next) throw error;
      return (await http.send<T>({ ...request, accessToken: next.accessToken })).body;
    }
  };
}

/** Requests that carry no credentials at all: the auth endpoints, where the server ignores them anyway. */
export function publicSender(http: Http): Send {
  return async <T>(request: SendRequest): Promise<T> => (await http.send<T>({ ...request, credentials: false })).body;
}

/**
 * Requests with an API key (`bsk_...`) as the Bearer credential: a script's or server's fixed credential, nothing to
 * refresh. The server refuses keys on /auth and /admin (401).
 */
export function keySender(http: Http, apiKey: string): Send {
  return async <T>(request: SendRequest): Promise<T> => (await http.send<T>({ ...request, accessToken: apiKey })).body;
}
