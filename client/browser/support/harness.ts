import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const STATIC_ROOTS: Record<string, string> = {
  '/client/': path.join(root, 'client/dist'),
  '/contract/': path.join(root, 'contract/dist'),
};
const API_PREFIXES = ['/auth/', '/api/', '/admin/'];

export const STORAGE_KEY = 'basalt.browser-test';

/**
 * The app page: the built ESM library, loaded the way an app without a bundler would (an import map for the two
 * packages). Query parameters: `auto=0` turns the refresh timer off, `lockTimeout` shortens the lock wait, `api`
 * points the client at another origin (the API server itself, through CORS) instead of this one's proxy.
 */
function appPage(anonKey: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>basalt tab</title>
<script type="importmap">{ "imports": { "@basalt/client": "/client/index.js", "@basalt/contract": "/contract/index.js" } }</script>
</head><body>
<script type="module">
  import { createClient } from '@basalt/client';
  const params = new URLSearchParams(location.search);
  const client = createClient(params.get('api') ?? location.origin, ${JSON.stringify(anonKey)}, {
    storageKey: ${JSON.stringify(STORAGE_KEY)},
    autoRefresh: params.get('auto') !== '0',
    lockTimeoutMs: Number(params.get('lockTimeout') ?? 10000),
  });
  const events = [];
  client.auth.onChange((event) => events.push(event));
  window.basalt = {
    client,
    events,
    async fire(count) {
      const outcomes = await Promise.allSettled(Array.from({ length: count }, () => client.from('todos').list()));
      return outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : o.reason.name + ' ' + o.reason.status + ' ' + o.reason.message));
    },
    async signInAndList(email, password) {
      await client.auth.signIn({ email, password });
      const me = await client.auth.me();
      const list = await client.from('todos').list({ limit: 5, order: 'id.desc' });
      await client.auth.signOut();
      return { email: me.email, total: list.total, after: await client.auth.getSession() };
    },
    async tokens() {
      const session = await client.auth.getSession();
      return session && { accessToken: session.accessToken, refreshToken: session.refreshToken };
    },
  };
  document.body.dataset.ready = 'yes';
</script>
</body></html>`;
}

const BLANK = '<!doctype html><html><head><meta charset="utf-8"><title>blank</title></head><body>blank</body></html>';

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.map': 'application/json', '.html': 'text/html' };

export interface Harness {
  /** The origin the tabs load, e.g. http://127.0.0.1:40000 */
  url: string;
  /** Statuses of every POST /auth/refresh that passed through, in order. */
  refreshes: number[];
  close(): Promise<void>;
}

/**
 * One origin for the page and the API: static files from the built packages, and a proxy to the API server that
 * counts refresh requests (the server's view of how many refreshes the tabs made).
 */
export async function startHarness(apiUrl: string, anonKey: string): Promise<Harness> {
  const api = new URL(apiUrl);
  const refreshes: number[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://harness');
    if (API_PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) {
      const upstream = http.request(
        { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host } },
        (answer) => {
          if (req.method === 'POST' && url.pathname === '/auth/refresh') refreshes.push(answer.statusCode ?? 0);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
      return;
    }
    if (url.pathname === '/' || url.pathname === '/blank.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(url.pathname === '/' ? appPage(anonKey) : BLANK);
      return;
    }
    const prefix = Object.keys(STATIC_ROOTS).find((candidate) => url.pathname.startsWith(candidate));
    const base = prefix ? STATIC_ROOTS[prefix] : undefined;
    const file = prefix && base ? path.resolve(base, `.${url.pathname.slice(prefix.length - 1)}`) : undefined;
    if (!file || !base || !file.startsWith(base + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    fs.readFile(file).then(
      (content) => res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(content),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refreshes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
