import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';
import { spawnServer, type SpawnOptions, type SpawnedServer } from '../test-support/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Where screenshots go: the README's pictures in docs/screenshots when asked for (`npm run screenshots`), else
 * test-results/screenshots, so an ordinary test run takes them (and fails if it cannot) without changing tracked files.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(root, 'docs/screenshots') : path.join(root, 'test-results/screenshots');

export const PASSWORD = 'correct-horse-battery';
export const OWNER_EMAIL = 'owner@example.test';

/** The real server on a fresh database, serving the built console; refuses to run against a missing build. */
export async function startServer(options: SpawnOptions = {}): Promise<SpawnedServer> {
  if (!fs.existsSync(path.join(root, 'console/dist/index.html'))) {
    throw new Error('console/dist is missing: run `npm run build` before the e2e suite');
  }
  return spawnServer(options);
}

export interface HttpAnswer {
  status: number;
  body: { data?: unknown; total?: number; error?: { code: string; message: string; details?: Record<string, unknown> } };
}

/** A call to the API as an app makes it: the anon key in `apikey`, or a user's token as Bearer. */
export async function http(
  server: SpawnedServer,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  pathAndQuery: string,
  options: { apikey?: string; token?: string; body?: unknown } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (options.apikey) headers.apikey = options.apikey;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${pathAndQuery}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as HttpAnswer['body'] };
}

export interface Account {
  id: string;
  email: string;
  role: string;
  accessToken: string;
}

export async function signUp(server: SpawnedServer, email: string, password = PASSWORD): Promise<Account> {
  const answer = await http(server, 'POST', '/auth/signup', { body: { email, password } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const data = answer.body.data as { user: { id: string; email: string; role: string }; accessToken: string };
  return { ...data.user, accessToken: data.accessToken };
}

export async function signInOverHttp(server: SpawnedServer, email: string, password = PASSWORD): Promise<Account> {
  const answer = await http(server, 'POST', '/auth/signin', { body: { email, password } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const data = answer.body.data as { user: { id: string; email: string; role: string }; accessToken: string };
  return { ...data.user, accessToken: data.accessToken };
}

/** A screenshot of a main screen for the README (see SCREENSHOTS). */
export async function screenshot(page: Page, name: string): Promise<void> {
  // Spinners and caret blinks must not land in the picture.
  await expect(page.getByRole('status').filter({ hasText: /Loading|Updating|Saving/ })).toHaveCount(0);
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
}

/**
 * The elements that stick out to the right of the viewport and make the whole page scroll sideways (tables may
 * scroll inside their own box; the page must not). Empty when the layout fits.
 */
export async function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const clips = (element: Element) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(element).overflowX);
    /** Whether a scrolling or clipping box contains the element, as CSS decides it: an absolutely positioned one is
     * contained only by boxes from its nearest positioned ancestor outwards. */
    const contained = (element: Element) => {
      let parent = element.parentElement;
      if (['absolute', 'fixed'].includes(getComputedStyle(element).position)) {
        while (parent && getComputedStyle(parent).position === 'static') parent = parent.parentElement;
      }
      for (; parent; parent = parent.parentElement) if (clips(parent)) return true;
      return false;
    };
    const offenders = [...document.body.querySelectorAll('*')]
      .filter((element) => element.getBoundingClientRect().right > width + 1 && !contained(element))
      .map((element) => `${element.tagName.toLowerCase()}.${element.className} (right edge ${Math.round(element.getBoundingClientRect().right)} px)`);
    const scrollWidth = document.documentElement.scrollWidth;
    if (offenders.length === 0 && scrollWidth > width + 1) offenders.push(`the page is ${scrollWidth} px wide`);
    return offenders;
  });
}

/** Collects every CSP report the page's console prints (a test expects none, or some on purpose). */
export function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/** Signs the owner (OWNER_EMAIL, PASSWORD) in to the console and waits for its first screen. */
export async function signInAsOwner(page: Page, server: SpawnedServer): Promise<void> {
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Email').fill(OWNER_EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
}
