import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, PASSWORD, http, screenshot, signInOverHttp, signUp, startServer, watchCsp, type Account, signInAsOwner } from './support.js';

/**
 * The owner's account tools in the console (issue 13): helping users (reset link, sign-out everywhere, deletion), the
 * owner's API keys and sessions, the reset page a user opens, and a Content-Security-Policy no page of it breaks.
 */
let server: SpawnedServer;
let owner: Account;

test.beforeAll(async () => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
});
test.afterAll(async () => {
  await server?.stop();
});

const signIn = (page: Page) => signInAsOwner(page, server);

const refreshStatus = async (refreshToken: string) => (await http(server, 'POST', '/auth/refresh', { body: { refreshToken } })).status;

test('the owner makes a reset link, and the user sets a new password on the reset page', async ({ page, browser }) => {
  const csp = watchCsp(page);
  const user = await signUp(server, 'forgetful@example.test');
  await signIn(page);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  await page.getByRole('button', { name: `Reset link for ${user.email}` }).click();
  const link = await page.getByTestId('reset-link').textContent();
  expect(link).toMatch(/\/console\/reset#token=/);
  await screenshot(page, 'users-reset-link');

  // The user opens it in their own browser, signed in nowhere.
  const context = await browser.newContext();
  const visitor = await context.newPage();
  const visitorCsp = watchCsp(visitor);
  await visitor.goto(link!);
  await expect(visitor.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
  await expect(visitor).toHaveURL(/\/console\/reset$/); // the token left the address bar
  await visitor.getByLabel('New password', { exact: true }).fill('short');
  await visitor.getByRole('button', { name: 'Set password' }).click();
  await expect(visitor.getByText('Use at least 8 characters.')).toBeVisible();
  await visitor.getByLabel('New password', { exact: true }).fill('a fresh password');
  await visitor.getByLabel('Repeat the new password').fill('a fresh password');
  await visitor.getByRole('button', { name: 'Set password' }).click();
  await expect(visitor.getByText('Your password is set.')).toBeVisible();
  await signInOverHttp(server, user.email, 'a fresh password');

  // The link was single use (opened again in a new tab).
  const again = await context.newPage();
  await again.goto(link!);
  await again.getByLabel('New password', { exact: true }).fill('yet another one');
  await again.getByLabel('Repeat the new password').fill('yet another one');
  await again.getByRole('button', { name: 'Set password' }).click();
  await expect(again.getByRole('alert')).toContainText('unknown, was already used or has expired');
  await context.close();
  expect([...csp, ...visitorCsp]).toEqual([]);
});

test('the owner signs a user out everywhere, then deletes them', async ({ page }) => {
  const user = await signUp(server, 'leaving@example.test');
  const session = (await http(server, 'POST', '/auth/signin', { body: { email: user.email, password: PASSWORD } })).body.data as { refreshToken: string };
  await signIn(page);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  await page.getByRole('button', { name: `Sign out ${user.email} everywhere` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  expect(await refreshStatus(session.refreshToken)).toBe(401);

  await page.getByRole('button', { name: `Delete ${user.email}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete account' }).click();
  await expect(page.getByRole('row', { name: new RegExp(user.email) })).toHaveCount(0);
  expect((await http(server, 'POST', '/auth/signin', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
  // The owner's own row offers none of it.
  await expect(page.getByRole('button', { name: `Delete ${OWNER_EMAIL}` })).toHaveCount(0);
});

test('the owner creates an API key, sees it once, uses it, and revokes it', async ({ page }) => {
  const csp = watchCsp(page);
  await http(server, 'POST', '/admin/tables', { token: owner.accessToken, body: { name: 'reports', policy: 'private', columns: [{ name: 'title', type: 'text' }] } });
  await signIn(page);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByText('Name the key after what will use it.')).toBeVisible();
  await page.getByLabel('Name').fill('nightly export');
  await page.getByLabel('Access').selectOption('read');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-api-key').textContent())!;
  expect(key).toMatch(/^bsk_/);
  await expect(page.getByRole('row', { name: /nightly export/ })).toContainText('read');
  await screenshot(page, 'api-keys');

  expect((await http(server, 'GET', '/api/reports', { token: key })).status).toBe(200);
  expect((await http(server, 'POST', '/api/reports', { token: key, body: { title: 'no' } })).status).toBe(403);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-api-key')).toHaveCount(0);

  await page.getByRole('button', { name: 'Revoke key nightly export' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  expect((await http(server, 'GET', '/api/reports', { token: key })).status).toBe(401);
  expect(csp).toEqual([]);
  // The policy is in force on the console's pages: an inline script put into the page does not run, and says why.
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'document.body.dataset.inline = "ran"';
    document.body.append(script);
    return document.body.dataset.inline ?? 'refused';
  });
  expect(ran).toBe('refused');
  await expect.poll(() => csp.length).toBeGreaterThan(0);
});

test('the owner sees their devices, signs one out, and changes the password', async ({ page }) => {
  const elsewhere = (await http(server, 'POST', '/auth/signin', { body: { email: OWNER_EMAIL, password: PASSWORD } })).body.data as { refreshToken: string };
  await signIn(page);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Account' }).click();
  const rows = page.getByRole('table', { name: 'Sessions' }).getByRole('row');
  await expect(rows.filter({ hasText: 'this browser' })).toHaveCount(1);
  const others = rows.filter({ has: page.getByRole('button', { name: /Sign out device/ }) });
  expect(await others.count()).toBeGreaterThanOrEqual(1);
  await screenshot(page, 'account');

  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill('the owner’s new password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('currentPassword is not the account')).toBeVisible();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password changed. Every other device was signed out.')).toBeVisible();
  expect(await refreshStatus(elsewhere.refreshToken)).toBe(401);
  await expect(rows.filter({ has: page.getByRole('button', { name: /Sign out device/ }) })).toHaveCount(0);
  // Still signed in here: the console goes on with its new tokens, also after a reload.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
  // Back to the old password for the other tests of this file.
  await page.getByLabel('Current password').fill('the owner’s new password');
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password changed.')).toBeVisible();
});

test('sign-in says how long to wait when the limit refuses it', async ({ page }) => {
  const user = await signUp(server, 'guessed@example.test');
  for (let attempt = 0; attempt < 10; attempt++) await http(server, 'POST', '/auth/signin', { body: { email: user.email, password: 'wrong password' } });
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/Too many attempts\. Try again in 1[45] minutes\./);
});
