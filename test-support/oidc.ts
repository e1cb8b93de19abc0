import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider on loopback (npm oidc-provider: discovery, the authorization code flow with PKCE,
 * RS256 id tokens from its own key, its own login page) for the tests of auth/providers. Its login page is a form
 * (Playwright types into it); `autoLogin` scripts it (the next authorization signs that account in without a form).
 * `sign` mints id tokens with the provider's key, or another, for the attacks on the native endpoint.
 */
export interface OidcAccount {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  /** The Basalt client: id and secret. */
  clientId: string;
  clientSecret: string;
  /** A public client (a native app) whose id tokens Basalt accepts through `audiences`. */
  nativeClientId: string;
  nativeRedirect: string;
  accounts: Map<string, OidcAccount>;
  /** The account the next authorization signs in without showing the form; null: show the form. */
  autoLogin: string | null;
  /** The user refuses at the provider: the next authorization ends with `error=access_denied`. */
  denyNext: boolean;
  /** An id token with these claims signed by the provider's key (or `key`, or unsigned with `alg: none`). */
  sign(claims: JWTPayload, options?: { key?: 'other' | 'none'; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

const LOGIN_PAGE = (uid: string) => `<!doctype html><html><head><title>Test provider: sign in</title></head><body>
<h1>Test provider</h1><form method="post" action="/interaction/${uid}/login">
<label>Account <input name="login" autocomplete="off"></label> <button type="submit">Sign in at the provider</button></form>
<form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form></body></html>`;

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startOidcProvider(options: { basaltCallbacks: string[]; port?: number }): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, OidcAccount>();
  const nativeRedirect = 'http://127.0.0.1/native-callback';
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'basalt', client_secret: 'basalt-test-secret', redirect_uris: options.basaltCallbacks, token_endpoint_auth_method: 'client_secret_post', response_types: ['code'], grant_types: ['authorization_code'] },
      { client_id: 'native-app', redirect_uris: [nativeRedirect], token_endpoint_auth_method: 'none', application_type: 'native', response_types: ['code'], grant_types: ['authorization_code'] },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: async () => ({ ...account }) } : undefined;
    },
    pkce: { required: () => true },
  } as never);
  provider.on('server_error', (_ctx: unknown, error: Error) => console.error('test provider:', error));
  const state: TestOidcProvider = {
    issuer,
    clientId: 'basalt',
    clientSecret: 'basalt-test-secret',
    nativeClientId: 'native-app',
    nativeRedirect,
    accounts,
    autoLogin: null,
    denyNext: false,
    async sign(claims, signOptions = {}) {
      if (signOptions.key === 'none') {
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
      }
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signOptions.kid ?? 'test-key' })
        .sign(signOptions.key === 'other' ? other.privateKey : privateKey);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };

  const finish = async (req: IncomingMessage, res: ServerResponse, login: string | null) => {
    const details = await provider.interactionDetails(req, res);
    if (login === null || !accounts.has(login)) {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user refused' }, { mergeWithLastSubmission: false });
    }
    const grant = new provider.Grant({ accountId: login, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { login: { accountId: login }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };
  const handler = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/([^/?]+)(\/login|\/abort)?/.exec(req.url ?? '');
    if (!match) return void handler(req, res);
    void (async () => {
      if (req.method === 'GET') {
        if (state.denyNext) {
          state.denyNext = false;
          return finish(req, res, null);
        }
        if (state.autoLogin !== null) return finish(req, res, state.autoLogin);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN_PAGE(match[1]!));
        return;
      }
      if (match[2] === '/abort') return finish(req, res, null);
      return finish(req, res, (await formOf(req)).get('login'));
    })().catch((error: unknown) => {
      console.error('test provider interaction:', error);
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  return state;
}

/**
 * Follows a browser's redirects with its cookies, from `start` until a Location on `stopAt`'s origin and path: what a
 * browser does between an app's "Sign in with" link and its return.
 */
export async function followRedirects(start: string, stopAt: string, init: RequestInit = {}): Promise<{ location: string; statuses: number[] }> {
  const cookies = new Map<string, string>();
  const statuses: number[] = [];
  let url = start;
  let request: RequestInit = init;
  for (let hop = 0; hop < 20; hop += 1) {
    const headers = new Headers(request.headers);
    const jar = cookieHeader(cookies, url);
    if (jar) headers.set('cookie', jar);
    const response = await fetch(url, { ...request, headers, redirect: 'manual' });
    statuses.push(response.status);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(`${new URL(url).host} ${pair!.slice(0, at)}`, pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw Object.assign(new Error(`no redirect from ${url}: ${response.status} ${await response.text()}`), { status: response.status });
    url = new URL(location, url).href;
    if (url.startsWith(stopAt)) return { location: url, statuses };
    request = {};
  }
  throw new Error('too many redirects');
}

function cookieHeader(cookies: Map<string, string>, url: string): string {
  const host = new URL(url).host;
  return [...cookies].filter(([key]) => key.startsWith(`${host} `)).map(([key, value]) => `${key.slice(host.length + 1)}=${value}`).join('; ');
}
