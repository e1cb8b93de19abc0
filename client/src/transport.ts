import { TOKEN_EXPIRED_REASON, type DataResponse } from '@basalt/contract';
import { ApiError } from './errors.js';
import type { Http, HttpRequest, HttpResponse } from './http.js';
import type { SessionManager } from './session/sessionManager.js';

export type SendRequest = Omit<HttpRequest, 'accessToken' | 'credentials'>;

/**
 * Sends a request with the caller's credentials and returns the whole answer: status, headers and the body (parsed
 * JSON, or the text when the request `accept`s another type). For the calls that need more than the body.
 */
export type Exchange = <T>(request: SendRequest) => Promise<HttpResponse<T>>;

/** Sends a request with the caller's credentials and returns the parsed body. */
export type Send = <T>(request: SendRequest) => Promise<T>;

/** The bodies of an exchange's answers. */
export function bodiesOf(exchange: Exchange): Send {
  return async <T>(request: SendRequest): Promise<T> => (await exchange<T>(request)).body;
}

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
export function authorizedExchange(http: Http, sessions: SessionManager): Exchange {
  return async <T>(request: SendRequest): Promise<HttpResponse<T>> => {
    const session = await sessions.getSession();
    try {
      return await http.send<T>({ ...request, accessToken: session?.accessToken });
    } catch (error) {
      if (!session || !isTokenExpired(error)) throw error;
      const next = await sessions.refresh(session);
      if (!next) throw error;
      return http.send<T>({ ...request, accessToken: next.accessToken });
    }
  };
}

/** Requests that carry no credentials at all: the auth endpoints, where the server ignores them anyway. */
export function publicSender(http: Http): Send {
  return async <T>(request: SendRequest): Promise<T> => (await http.send<T>({ ...request, credentials: false })).body;
}

/**
 * Requests with one fixed Bearer credential, nothing to refresh: an API key (`bsk_...`, a script's or server's; the
 * server refuses keys on /auth and /admin with 401), or the access token of a session already forgotten here
 * (sign-out tells the server after the fact).
 */
export function bearerExchange(http: Http, token: string): Exchange {
  return <T>(request: SendRequest): Promise<HttpResponse<T>> => http.send<T>({ ...request, accessToken: token });
}
