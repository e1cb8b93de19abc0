import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, PASSWORD, http, screenshot, signUp, startServer, type Account } from './support.js';

/** Who may not use the console, and what the console says when it cannot go on: each test in a fresh browser. */
let server: SpawnedServer;
let owner: Account;
let member: Account;

test.beforeAll(async () => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  member = await signUp(server, 'member@example.test');
  expect([owner.role, member.role]).toEqual(['owner', 'member']);
});

test.afterAll(async () => {
  await server?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.url}/console/`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** What the console keeps in localStorage: its session, under its own key. */
function storedSessions(page: Page): Promise<string[]> {
  return page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('basalt.console.')).map((key) => localStorage.getItem(key) ?? ''));
}

test('a wrong password shows the server’s error', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, OWNER_EMAIL, 'not-the-password');
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await screenshot(page, 'sign-in-error');

  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
});

test('a member who signs in is told the console is for the owner, and signed out', async ({ page }) => {
  await signIn(page, member.email, PASSWORD);
  await expect(page.getByText('Only the project owner can use the console. You have been signed out.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Sections' })).toHaveCount(0);
  expect(await storedSessions(page)).toEqual([]);
  // Signed out on the server too: the member's refresh tokens were revoked, not merely forgotten here.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('a session that ends goes back to sign-in with a message', async ({ page }) => {
  await signIn(page, OWNER_EMAIL, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  const [stored] = await storedSessions(page);
  const { accessToken } = JSON.parse(stored ?? '{}') as { accessToken: string };

  // Elsewhere, the owner signs out everywhere: the console's refresh token dies with its session.
  expect((await http(server, 'POST', '/auth/signout', { token: accessToken })).status).toBe(200);
  // The access token is stateless and would work for its hour; the next call answers as if it had expired.
  await page.route(
    '**/admin/users*',
    (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        json: { error: { code: 'UNAUTHORIZED', message: 'The access token has expired; refresh it', details: { reason: 'token_expired' } } },
      }),
    { times: 1 },
  );
  await page.getByRole('link', { name: 'Users' }).click();
  // The client tries to refresh, the server refuses the revoked token, and the console starts over.
  await expect(page.getByText('Your session has ended. Sign in again.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(await storedSessions(page)).toEqual([]);
});

test('signing out in one tab signs out the console in the others', async ({ context }) => {
  const first = await context.newPage();
  await signIn(first, OWNER_EMAIL, PASSWORD);
  await expect(first.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  const second = await context.newPage();
  await second.goto(`${server.url}/console/users`);
  await expect(second.getByRole('table', { name: 'Users' })).toBeVisible();

  await second.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(second.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(first.getByText('Your session has ended. Sign in again.')).toBeVisible();
  await expect(first.getByRole('navigation', { name: 'Sections' })).toHaveCount(0);
});

test('an unreachable API is named, with a way to try again', async ({ page }) => {
  await page.route('**/auth/settings', (route) => route.abort('connectionrefused'));
  await page.goto(`${server.url}/console/`);
  await expect(page.getByRole('alert')).toContainText(`Cannot reach the API at ${server.url}`);
  await page.unroute('**/auth/settings');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();

  // Signed in, a screen whose data cannot be fetched says so in place and recovers on retry.
  await page.getByLabel('Email').fill(OWNER_EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  await page.route('**/admin/users*', (route) => route.abort('connectionrefused'));
  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('alert')).toContainText('Cannot reach the API');
  await page.unroute('**/admin/users*');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('table', { name: 'Users' })).toBeVisible();
});

test('the sign-in screen at a phone’s width', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${server.url}/console/`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await screenshot(page, 'sign-in');
});
