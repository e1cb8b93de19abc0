import { expect, it } from 'vitest';
import { spawnServer } from '../../test-support/server.js';

/**
 * A graceful stop does not wait on a stream whose client abandoned it: Node's fetch, aborted mid-stream, leaves the
 * connection open, and the stop must close it rather than sit out its drain timeout.
 */
it('stops at once after a client aborted a stream without closing its connection', async () => {
  const server = await spawnServer();
  const signup = (await (await fetch(`${server.url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'o@x.test', password: 'password1' }) })).json()) as { data: { accessToken: string } };
  const auth = { authorization: `Bearer ${signup.data.accessToken}`, 'content-type': 'application/json' };
  await fetch(`${server.url}/admin/tables`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'news', policy: 'public-read', columns: [{ name: 'h', type: 'text' }] }) });
  const controller = new AbortController();
  const response = await fetch(`${server.url}/realtime/news`, { headers: auth, signal: controller.signal });
  expect(response.status).toBe(200);
  void response.body!.getReader().read().catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  await server.stop();
  expect(Date.now() - started).toBeLessThan(3_000);
}, 30_000);
