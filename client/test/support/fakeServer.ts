/**
 * A stand-in for the service's auth endpoints, for unit tests of the client's token handling that need exact control
 * of time and of failures (the live-server suites in client/test cover the real thing). Tokens are JWT-shaped
 * (header.payload.signature, base64url JSON) but unsigned: the client only ever decodes them.
 */
export interface FakeServerOptions {
  /** Access token lifetime in seconds (default 3600). */
  accessTtl?: number;
  /** Milliseconds each response takes, so concurrent calls really overlap. */
  latencyMs?: number;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function fakeJwt(claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}.signature`;
}

/** An access token that expires `expInSeconds` from now (negative: expired) and was issued `lifetime` before that. */
export function fakeAccessToken(userId: string, expInSeconds: number, lifetime = 3600): string {
  const exp = Math.floor(Date.now() / 1000) + expInSeconds;
  return fakeJwt({ sub: userId, role: 'member', sid: 's', typ: 'access', iat: exp - lifetime, exp, n: Math.random() });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function error(status: number, code: string, message: string, details?: object): Response {
  return json(status, { error: { code, message, ...(details ? { details } : {}) } });
}

export class FakeServer {
  readonly refreshTokens = new Set<string>();
  /** Every request, as `METHOD /path` (with the Authorization header's token, if any). */
  readonly requests: { method: string; path: string; token: string | undefined; body: unknown }[] = [];
  /** When set, the next refresh responses fail this way. */
  failRefreshWith: 'network' | 'server-error' | undefined;
  private counter = 0;
  private readonly accessTtl: number;
  private readonly latencyMs: number;

  constructor(options: FakeServerOptions = {}) {
    this.accessTtl = options.accessTtl ?? 3600;
    this.latencyMs = options.latencyMs ?? 5;
  }

  get refreshCount(): number {
    return this.requests.filter((r) => r.path === '/auth/refresh').length;
  }

  /** Issues a pair as sign-in would, registering the refresh token. */
  issue(userId = 'u1'): { accessToken: string; refreshToken: string } {
    const refreshToken = fakeJwt({ sub: userId, typ: 'refresh', jti: `r${++this.counter}` });
    this.refreshTokens.add(refreshToken);
    return { accessToken: fakeAccessToken(userId, this.accessTtl, this.accessTtl), refreshToken };
  }

  readonly fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const method = init.method ?? 'GET';
    const headers = new Headers(init.headers);
    const token = headers.get('authorization')?.replace(/^Bearer /i, '');
    const body: unknown = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    this.requests.push({ method, path: url.pathname, token, body });
    await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (init.signal?.aborted) throw new DOMException('aborted', 'AbortError');

    if (url.pathname === '/auth/signin' && method === 'POST') {
      const email = (body as { email: string }).email;
      return json(200, { data: { user: { id: 'u1', email, role: 'member' }, ...this.issue('u1') } });
    }
    if (url.pathname === '/auth/refresh' && method === 'POST') {
      if (this.failRefreshWith === 'network') throw new TypeError('fetch failed');
      if (this.failRefreshWith === 'server-error') return error(503, 'UNAVAILABLE', 'database unreachable');
      const presented = (body as { refreshToken: string }).refreshToken;
      if (!this.refreshTokens.delete(presented)) return error(401, 'UNAUTHORIZED', 'Invalid refresh token');
      return json(200, { data: this.issue('u1') });
    }
    if (token) {
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number };
      if (claims.exp * 1000 <= Date.now()) return error(401, 'UNAUTHORIZED', 'Token expired', { reason: 'token_expired' });
    }
    if (url.pathname === '/auth/signout' && method === 'POST') {
      if (!token) return error(401, 'UNAUTHORIZED', 'Sign in first');
      this.refreshTokens.clear();
      return json(200, { data: { signedOut: true } });
    }
    if (url.pathname.startsWith('/api/')) return json(200, { data: [], total: 0 });
    return error(404, 'NOT_FOUND', 'Not found');
  };
}
