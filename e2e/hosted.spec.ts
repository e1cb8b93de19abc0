import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, PASSWORD, signUp, startServer } from './support.js';

/**
 * The console built with VITE_API_URL and served by something other than the API, from another origin (as a CDN or
 * any static host would): it must reach its API across origins (CORS) and still work as a whole.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

let server: SpawnedServer;
let outDir: string;
let site: http.Server;
let siteUrl: string;

/** A static host with the one rule a single-page app needs: unknown paths under /console/ get index.html. */
function serveStatic(dir: string): Promise<http.Server> {
  const host = http.createServer(async (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://host').pathname;
    if (!pathname.startsWith('/console/')) {
      res.writeHead(404).end();
      return;
    }
    const file = path.join(dir, path.normalize(pathname.slice('/console/'.length)));
    const found = file.startsWith(dir) && (await fs.stat(file).then((stat) => stat.isFile(), () => false));
    const served = found ? file : path.join(dir, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[path.extname(served)] ?? 'application/octet-stream' });
    res.end(await fs.readFile(served));
  });
  return new Promise((resolve) => host.listen(0, '127.0.0.1', () => resolve(host)));
}

test.beforeAll(async () => {
  server = await startServer();
  await signUp(server, OWNER_EMAIL);
  outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-console-'));
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: path.join(root, 'console'),
    env: { ...process.env, VITE_API_URL: server.url },
    encoding: 'utf8',
  });
  expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
  site = await serveStatic(outDir);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
  await server?.stop();
});

test('a console built with VITE_API_URL works from another origin', async ({ page }) => {
  expect(siteUrl).not.toBe(server.url);
  await page.goto(`${siteUrl}/console/`);
  await expect(page.getByText(`API: ${server.url}`)).toBeVisible();
  await page.getByLabel('Email').fill(OWNER_EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('No tables yet')).toBeVisible();

  await page.getByRole('button', { name: 'Create your first table' }).click();
  await page.getByLabel('Table name').fill('todos');
  await page.getByRole('group', { name: 'Column 1' }).getByLabel('Name', { exact: true }).fill('title');
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'todos' })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(siteUrl);

  await page.getByRole('link', { name: 'API', exact: true }).click();
  await expect(page.getByTestId('api-url')).toHaveText(server.url);
  await expect(page.getByTestId('anon-key')).toHaveText(/^ey/);
});
