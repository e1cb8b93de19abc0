import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { generate } from 'otplib';
import { TOTP_PERIOD_SECONDS } from '@basalt/contract';
import { startOidcProvider, type TestOidcProvider } from '../test-support/oidc.js';
import { freePort } from '../test-support/ports.js';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, horizontalOverflow, http, screenshot, signInAsOwner, signInOverHttp, signUp, startServer, watchCsp } from './support.js';

/**
 * Identity providers in the console (issue 27) against a real OpenID Connect provider on loopback (oidc-provider, its
 * own login page): "Continue with …" on the sign-in card, the answers the browser brings back (?code=, ?error=), the
 * second step after a provider, a member refused, and linking and unlinking from the Account screen.
 */
test.describe.configure({ mode: 'serial' });

const PROVIDER = 'testidp';
const DISPLAY_NAME = 'Test IdP';
const OWNER_SUB = 'owner-at-idp';
const NEWCOMER_SUB = 'newcomer-at-idp';
const MEMBER_REFUSED = 'Only the project owner can use the console. You have been signed out.';

let dir: string;
let op: TestOidcProvider;
let server: SpawnedServer;

test.beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-providers-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  op = await startOidcProvider({ basaltCallbacks: [`${url}/auth/oauth/${PROVIDER}/callback`] });
  op.accounts.set(OWNER_SUB, { sub: OWNER_SUB, email: OWNER_EMAIL, email_verified: true, name: 'The owner' });
  op.accounts.set(NEWCOMER_SUB, { sub: NEWCOMER_SUB, email: 'newcomer@example.test', email_verified: true });
  const configPath = path.join(dir, 'config.json');
  const providers = { [PROVIDER]: { issuer: op.issuer, clientId: op.clientId, clientSecretEnv: 'TESTIDP_CLIENT_SECRET', displayName: DISPLAY_NAME } };
  await fs.writeFile(configPath, JSON.stringify({ signupEnabled: true, auth: { providers } }));
  server = await startServer({ env: { PORT: String(port), PUBLIC_URL: url, CONFIG_PATH: configPath, TESTIDP_CLIENT_SECRET: op.clientSecret } });
  await signUp(server, OWNER_EMAIL);
});
test.afterAll(async () => {
  await server?.stop();
  await op?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Signs in at the provider's own page (a fresh browser has no session there). */
async function atProvider(page: Page, login: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Test provider' })).toBeVisible();
  await page.getByLabel('Account').fill(login);
  await page.getByRole('button', { name: 'Sign in at the provider' }).click();
}

async function continueWithProvider(page: Page): Promise<void> {
  await page.goto(`${server.url}/console/`);
  await page.getByRole('button', { name: `Continue with ${DISPLAY_NAME}` }).click();
}

const signInHeading = (page: Page) => page.getByRole('heading', { name: 'Sign in' });
const tablesHeading = (page: Page) => page.getByRole('heading', { level: 1, name: 'Tables' });
const identities = (page: Page) => page.getByRole('region', { name: 'Identities' });

async function openAccount(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
}

test('a first provider sign-in with the owner’s unproven address is refused, and the card says what to do', async ({ page }) => {
  const csp = watchCsp(page);
  await continueWithProvider(page);
  await atProvider(page, OWNER_SUB);
  await expect(page.getByText('An account with this email already exists: sign in with its password, then link the provider from your account screen.')).toBeVisible();
  await expect(signInHeading(page)).toBeVisible();
  await screenshot(page, 'sign-in-providers');
  // The answer left the address: a reload does not repeat it.
  expect(new URL(page.url()).search).toBe('');
  expect(csp).toEqual([]);
});

test('the provider’s own refusal, and a code that is not this browser’s, read as such', async ({ page }) => {
  op.denyNext = true;
  await continueWithProvider(page);
  await expect(page.getByText('The sign-in was cancelled at the provider.')).toBeVisible();
  await page.goto(`${server.url}/console/?code=not-a-code`);
  await expect(page.getByText('This sign-in was already completed, has expired, or was started in another browser: sign in again.')).toBeVisible();
  expect(new URL(page.url()).search).toBe('');
});

test('the owner links the provider from the Account screen, then signs in with it', async ({ page }) => {
  await signInAsOwner(page, server);
  await openAccount(page);
  await expect(identities(page)).toContainText('No identity provider is linked to your account.');
  await identities(page).getByRole('button', { name: `Link ${DISPLAY_NAME}`, exact: true }).click();
  await atProvider(page, OWNER_SUB);
  await expect(page).toHaveURL(`${server.url}/console/account`);
  await expect(identities(page).getByText(`${DISPLAY_NAME} is linked: you can sign in with it now.`)).toBeVisible();
  const linked = identities(page).getByRole('list', { name: 'Linked identities' });
  await expect(linked).toContainText(DISPLAY_NAME);
  await expect(linked).toContainText(OWNER_EMAIL);
  await expect(identities(page).getByRole('button', { name: `Link ${DISPLAY_NAME}`, exact: true })).toHaveCount(0);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'account-identities');
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  // The provider remembers this browser: it sends it straight back with a code.
  await continueWithProvider(page);
  await expect(tablesHeading(page)).toBeVisible();
  expect(new URL(page.url()).search).toBe('');

  // An error the server sends back to the Account screen is the link's (CONFLICT: a second identity of one provider).
  await page.goto(`${server.url}/console/account?error=CONFLICT`);
  await expect(identities(page).getByText('Your account already has an identity of this provider: unlink it first.')).toBeVisible();
  await expect(page).toHaveURL(`${server.url}/console/account`);
});

test('with two-step sign-in on, a provider sign-in asks for the code too', async ({ page }) => {
  test.setTimeout(90_000);
  const owner = await signInOverHttp(server, OWNER_EMAIL);
  const enrolled = await http(server, 'POST', '/auth/mfa/totp', { token: owner.accessToken });
  const { secret } = enrolled.body.data as { secret: string };
  const epoch = Math.floor(Date.now() / 1000);
  const verified = await http(server, 'POST', '/auth/mfa/totp/verify', { token: owner.accessToken, body: { code: await generate({ secret, epoch }) } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  const stepped = (verified.body.data as { accessToken: string }).accessToken;
  try {
    await continueWithProvider(page);
    await atProvider(page, OWNER_SUB);
    await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
    expect(new URL(page.url()).search).toBe('');
    // The step whose code turned the factor on is spent: wait for the next one.
    const next = (Math.floor(epoch / TOTP_PERIOD_SECONDS) + 1) * TOTP_PERIOD_SECONDS * 1000;
    if (Date.now() < next) await page.waitForTimeout(next - Date.now() + 250);
    await page.getByLabel('6-digit code').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await expect(tablesHeading(page)).toBeVisible();
  } finally {
    expect((await http(server, 'DELETE', '/auth/mfa/totp', { token: stepped })).status).toBe(200);
  }
});

test('a newcomer’s provider sign-in makes a member, whom the console refuses', async ({ page }) => {
  await continueWithProvider(page);
  await atProvider(page, NEWCOMER_SUB);
  await expect(page.getByText(MEMBER_REFUSED)).toBeVisible();
  await expect(signInHeading(page)).toBeVisible();
});

test('the owner sees the providers on the API and Users screens, and unlinks theirs', async ({ page }) => {
  await signInAsOwner(page, server);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API', exact: true }).click();
  const card = page.getByRole('region', { name: 'Identity providers' });
  await expect(card).toContainText(DISPLAY_NAME);
  await expect(card).toContainText(`${server.url}/auth/oauth/${PROVIDER}/callback`);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, 'api-providers');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  const users = page.getByRole('table', { name: 'Users' });
  await expect(users.getByRole('row', { name: /newcomer@example\.test/ })).toContainText(PROVIDER);
  await expect(users.getByRole('row', { name: new RegExp(OWNER_EMAIL) })).toContainText(PROVIDER);
  await screenshot(page, 'users-identities');

  await openAccount(page);
  await identities(page).getByRole('button', { name: `Unlink ${DISPLAY_NAME}` }).click();
  await expect(identities(page)).toContainText('No identity provider is linked to your account.');
  await expect(identities(page).getByRole('button', { name: `Link ${DISPLAY_NAME}`, exact: true })).toBeVisible();
});
