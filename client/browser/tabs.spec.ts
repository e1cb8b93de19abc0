import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../test-support/server.js';
import { PASSWORD, expiredCopy, uniqueEmail } from '../test/support/live.js';
import { STORAGE_KEY, startHarness, type Harness } from './support/harness.js';

/**
 * Five tabs of one origin, one stored session whose access token has expired, requests fired in every tab at once:
 * no tab may be signed out, the server must see one refresh per rotation, and every tab must end with the same valid
 * tokens. This is the failure supabase auth-js#213 and directus#22360 shipped, and the hang of supabase-js#2013.
 */

interface TabApi {
  events: string[];
  fire(count: number): Promise<string[]>;
  signInAndList(email: string, password: string): Promise<{ email: string; total: number; after: unknown }>;
  tokens(): Promise<{ accessToken: string; refreshToken: string } | null>;
}
type TabWindow = Window & { basalt: TabApi };

const TABS = 5;
const REQUESTS_PER_TAB = 5;

let api: SpawnedServer;
let harness: Harness;
let member: { user: { id: string; email: string; role: string }; accessToken: string; refreshToken: string };

async function call(path: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

test.beforeAll(async () => {
  api = await spawnServer();
  harness = await startHarness(api.url, api.anonKey);
  const owner = await call('/auth/signup', { email: uniqueEmail('owner'), password: PASSWORD });
  await call('/admin/tables', { name: 'todos', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] }, owner.accessToken as string);
  member = (await call('/auth/signup', { email: uniqueEmail('member'), password: PASSWORD })) as typeof member;
});

test.afterAll(async () => {
  await harness?.close();
  await api?.stop();
});

/** Writes a session with an expired access token into the origin's localStorage, from a page without the client. */
async function plantExpired(context: BrowserContext, refreshToken: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${harness.url}/blank.html`);
  const stored = { user: member.user, accessToken: expiredCopy(member.accessToken), refreshToken, expiresAt: Date.now() - 60_000 };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, JSON.stringify(stored)] as const);
  await page.close();
}

async function openTabs(context: BrowserContext, query: string): Promise<Page[]> {
  const pages = await Promise.all(Array.from({ length: TABS }, () => context.newPage()));
  await Promise.all(pages.map((page) => page.goto(`${harness.url}/?${query}`)));
  await Promise.all(pages.map((page) => page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })));
  return pages;
}

/** Every tab fires its requests at the same moment. */
async function fireEverywhere(pages: Page[]): Promise<string[][]> {
  return Promise.all(pages.map((page) => page.evaluate((count) => (window as unknown as TabWindow).basalt.fire(count), REQUESTS_PER_TAB)));
}

/** Every tab's tokens are the same as each other's and as storage's; the access token works on the server. */
async function expectOneValidSession(pages: Page[]): Promise<{ accessToken: string; refreshToken: string }> {
  const tokens = await Promise.all(pages.map((page) => page.evaluate(() => (window as unknown as TabWindow).basalt.tokens())));
  const stored = await pages[0]!.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null') as { accessToken: string; refreshToken: string } | null, STORAGE_KEY);
  expect(stored).not.toBeNull();
  for (const tabTokens of tokens) expect(tabTokens).toEqual({ accessToken: stored!.accessToken, refreshToken: stored!.refreshToken });
  const me = await fetch(`${api.url}/auth/me`, { headers: { authorization: `Bearer ${stored!.accessToken}` } });
  expect(me.status).toBe(200);
  return stored!;
}

async function expectNobodySignedOut(pages: Page[]): Promise<void> {
  for (const page of pages) {
    const events = await page.evaluate(() => (window as unknown as TabWindow).basalt.events);
    expect(events).not.toContain('signed_out');
  }
}

test('five tabs with an expired access token: one refresh per rotation, nobody signed out, same tokens', async ({ browser }) => {
  const context = await browser.newContext();
  await plantExpired(context, member.refreshToken);
  const pages = await openTabs(context, 'auto=0');

  // Rotation 1: the tabs load the expired session and all fire at once.
  const first = await fireEverywhere(pages);
  expect(first.flat()).toEqual(Array(TABS * REQUESTS_PER_TAB).fill('ok'));
  expect(harness.refreshes).toEqual([200]);
  await expectNobodySignedOut(pages);
  const afterFirst = await expectOneValidSession(pages);
  expect(afterFirst.refreshToken).not.toBe(member.refreshToken);

  // Rotation 2: expire the access token again while the tabs are open; they learn it through storage events.
  await plantExpired(context, afterFirst.refreshToken);
  await expect
    .poll(() => Promise.all(pages.map((page) => page.evaluate(() => (window as unknown as TabWindow).basalt.events.length))))
    .toEqual(Array(TABS).fill(2));
  const second = await fireEverywhere(pages);
  expect(second.flat()).toEqual(Array(TABS * REQUESTS_PER_TAB).fill('ok'));
  expect(harness.refreshes).toEqual([200, 200]);
  await expectNobodySignedOut(pages);
  const afterSecond = await expectOneValidSession(pages);
  expect(afterSecond.refreshToken).not.toBe(afterFirst.refreshToken);
  await context.close();
});

test('a frozen tab that holds the lock neither hangs the others nor signs anyone out', async ({ browser }) => {
  harness.refreshes.length = 0;
  const context = await browser.newContext();
  const current = (await call('/auth/signin', { email: member.user.email, password: PASSWORD })) as typeof member;
  member = current;
  await plantExpired(context, current.refreshToken);
  // The frozen tab: takes the refresh lock and never lets go.
  const frozen = await context.newPage();
  await frozen.goto(`${harness.url}/blank.html`);
  await frozen.evaluate((name) => {
    void navigator.locks.request(name, () => new Promise(() => {}));
  }, `basalt.auth:${STORAGE_KEY}`);

  const started = Date.now();
  const pages = await openTabs(context, 'auto=1&lockTimeout=1000');
  const outcomes = await fireEverywhere(pages);
  expect(outcomes.flat()).toEqual(Array(TABS * REQUESTS_PER_TAB).fill('ok'));
  expect(Date.now() - started).toBeLessThan(15_000);
  // One tab stole the lock and refreshed; the others waited for it and adopted its tokens.
  expect(harness.refreshes).toEqual([200]);
  await expectNobodySignedOut(pages);
  await expectOneValidSession(pages);
  await context.close();
});

test('the built library works cross-origin against the API server, through its CORS headers', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${harness.url}/?auto=0&api=${encodeURIComponent(api.url)}`);
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
  const result = await page.evaluate(
    ([email, password]) => (window as unknown as TabWindow).basalt.signInAndList(email, password),
    [member.user.email, PASSWORD] as const,
  );
  expect(result).toEqual({ email: member.user.email, total: 0, after: null });
  await context.close();
});
