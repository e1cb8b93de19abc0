import { expect, test, type Locator, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, PASSWORD, http, horizontalOverflow, screenshot, signUp, startServer, watchCsp, type Account, signInAsOwner } from './support.js';

/**
 * The owner's operations screens (issue 15): the API reference, which renders the project's own OpenAPI document
 * (GET /openapi.json) with a renderer loaded only on that screen, and the overview, which charts the last hour of
 * traffic (GET /admin/overview). Both against the real server, under the console's Content-Security-Policy.
 */
let server: SpawnedServer;
let owner: Account;

test.beforeAll(async () => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  const created = await http(server, 'POST', '/admin/tables', {
    token: owner.accessToken,
    body: { name: 'notes', policy: 'owner-scoped', columns: [{ name: 'body', type: 'text' }, { name: 'user_id', type: 'text' }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});
test.afterAll(async () => {
  await server?.stop();
});

const signIn = (page: Page) => signInAsOwner(page, server);

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });

/** The whole-number part of a summary value ("1,234", "12.5% (3)" -> 3 in brackets when asked). */
async function numberIn(locator: Locator, inBrackets = false): Promise<number> {
  const text = (await locator.textContent()) ?? '';
  const match = inBrackets ? /\(([\d,]+)\)/.exec(text) : /^[\d,]+/.exec(text);
  expect(match, `a number in "${text}"`).not.toBeNull();
  return Number((inBrackets ? match![1]! : match![0]).replace(/,/g, ''));
}

test("the API reference renders the owner's document, and its renderer loads on that screen only", async ({ page }) => {
  const csp = watchCsp(page);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.url) && !/^(data|blob):/.test(request.url())) outside.push(request.url());
  });
  await signIn(page);
  await nav(page, 'Overview').click();
  await expect(page.getByRole('heading', { level: 2, name: 'Requests per second' })).toBeVisible();
  expect(scripts.filter((path) => path.includes('OpenApiViewer'))).toEqual([]);

  await nav(page, 'API reference').click();
  await expect(page.getByRole('heading', { level: 1, name: 'API reference' })).toBeVisible();
  await expect(nav(page, 'API reference')).toHaveAttribute('aria-current', 'page');
  const viewer = page.getByTestId('openapi-viewer');
  // The owner's table, with its operations, and the owner-only /admin routes.
  const notes = viewer.locator('.opblock').filter({ has: page.locator('[data-path="/api/notes"]') });
  await expect(notes.filter({ hasText: 'GET' })).toHaveCount(1);
  await expect(notes.filter({ hasText: 'POST' })).toHaveCount(1);
  await expect(viewer.locator('[data-path="/admin/tables"]').first()).toBeVisible();
  expect(scripts.filter((path) => path.includes('OpenApiViewer'))).toHaveLength(1);
  await screenshot(page, 'api-reference');

  // Trying a call from the reference reaches this project with the token given to Authorize.
  await viewer.getByRole('button', { name: 'Authorize' }).first().click();
  const bearer = page.locator('.auth-container').filter({ hasText: 'bearer (http, Bearer)' });
  await bearer.getByRole('textbox').fill(owner.accessToken);
  await bearer.getByRole('button', { name: 'Apply credentials' }).click();
  await bearer.getByRole('button', { name: 'Close' }).click();
  const list = notes.filter({ hasText: 'GET' });
  await list.locator('.opblock-summary-control').click();
  await list.getByRole('button', { name: 'Try it out' }).click();
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/notes');
  await list.getByRole('button', { name: 'Execute' }).click();
  const response = await answered;
  expect(response.url().startsWith(`${server.url}/api/notes`)).toBe(true);
  expect(await response.request().headerValue('authorization')).toBe(`Bearer ${owner.accessToken}`);
  expect(response.status()).toBe(200);
  await expect(list.locator('.live-responses-table tbody .response-col_status')).toHaveText('200');
  await expect(list.locator('.live-responses-table tbody')).toContainText('"total": 0');

  expect(outside).toEqual([]);
  expect(csp).toEqual([]);
});

test('the overview charts the last hour: requests, errors, p99 and sign-ins, refreshed while open', async ({ page }) => {
  const csp = watchCsp(page);
  // Some traffic before the owner looks: a refused and an accepted sign-in, a 4xx, and ordinary requests.
  expect((await http(server, 'POST', '/auth/signin', { body: { email: OWNER_EMAIL, password: 'not the password' } })).status).toBe(401);
  expect((await http(server, 'GET', '/api/notes')).status).toBe(401);
  for (let index = 0; index < 5; index++) expect((await http(server, 'GET', '/api/notes', { token: owner.accessToken })).status).toBe(200);

  await signIn(page);
  await nav(page, 'Overview').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  for (const title of ['Requests per second', 'Error rate', 'p99 latency', 'Sign-ins']) {
    const card = page.getByRole('region', { name: title });
    await expect(card.getByRole('heading', { level: 2, name: title })).toBeVisible();
    await expect(card.locator('canvas').first()).toBeVisible();
  }
  // The numbers are text, readable without the charts.
  expect(await numberIn(page.getByTestId('requests-total'))).toBeGreaterThanOrEqual(7);
  expect(await numberIn(page.getByTestId('client-errors'), true)).toBeGreaterThanOrEqual(2);
  expect(await numberIn(page.getByTestId('sign-ins-ok'))).toBeGreaterThanOrEqual(1);
  expect(await numberIn(page.getByTestId('sign-ins-failed'))).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId('latency-highest')).toHaveText(/^[\d.,]+ ms$/);
  await expect(page.getByRole('definition').filter({ hasText: /\/s$/ }).first()).toBeVisible();

  // Left open, it asks again every 10 s: a sign-in made meanwhile shows up without a reload.
  const before = await numberIn(page.getByTestId('sign-ins-ok'));
  await http(server, 'POST', '/auth/signin', { body: { email: OWNER_EMAIL, password: PASSWORD } });
  await expect.poll(() => numberIn(page.getByTestId('sign-ins-ok')), { timeout: 25_000 }).toBeGreaterThan(before);
  await screenshot(page, 'overview');

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('region', { name: 'Sign-ins' }).locator('canvas').first()).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'overview');
  expect(csp).toEqual([]);
});

test('each screen says when its data cannot be had, and asks again on request', async ({ page }) => {
  let failing = true;
  const fail = (path: string) =>
    page.route(`**${path}`, (route) =>
      failing
        ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'down' } }) })
        : route.fallback(),
    );
  await fail('/openapi.json');
  await fail('/admin/overview');
  await signIn(page);
  await nav(page, 'Overview').click();
  await expect(page.getByRole('alert')).toContainText('database is unavailable');
  await nav(page, 'API reference').click();
  await expect(page.getByRole('alert')).toContainText('database is unavailable');
  failing = false;
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('openapi-viewer').locator('[data-path="/api/notes"]').first()).toBeVisible();
  // The overview asks again by itself when it is opened again.
  await nav(page, 'Overview').click();
  await expect(page.getByTestId('requests-total')).toBeVisible();
});
