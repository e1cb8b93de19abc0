import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { generate } from 'otplib';
import { RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS } from '@basalt/contract';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, PASSWORD, horizontalOverflow, http, screenshot, signInAsOwner, signUp, startServer, watchCsp } from './support.js';

/**
 * Two-step sign-in in the console (issue 27): the owner turns it on from the Account screen with a real authenticator
 * computation (otplib, cross-checked with Debian's oathtool), keeps the recovery codes, and signs in again with a
 * fresh code and with recovery codes; a member with a factor is still refused after the second step; the owner removes
 * a member's factor from the Users screen. The tests share one server and one account, so they run in order.
 */
test.describe.configure({ mode: 'serial' });

const MEMBER_EMAIL = 'member@example.test';
const MEMBER_REFUSED = 'Only the project owner can use the console. You have been signed out.';
const WRONG_CODE = 'The code is wrong or was already used';
const WRONG_RECOVERY_CODE = 'The recovery code is wrong or was already used';

let server: SpawnedServer;
let page: Page;
let secret = '';
/** The last time step whose code the server accepted for the owner: each step is accepted once. */
let ownerStep = 0;
let recoveryCodes: string[] = [];
let member: { secret: string; step: number };

const stepOf = (epochSeconds: number) => Math.floor(epochSeconds / TOTP_PERIOD_SECONDS);

/** The code of a base32 secret at a moment, by otplib and by oathtool (RFC 6238 twice, independently): they must agree. */
async function totpAt(base32: string, epochSeconds: number): Promise<string> {
  const ours = await generate({ secret: base32, epoch: epochSeconds });
  let debian: string;
  try {
    debian = execFileSync('/usr/bin/oathtool', ['--totp', '-b', base32, '--now', `@${epochSeconds}`], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new Error(`oathtool failed (the cross-check needs Debian's oathtool at /usr/bin/oathtool: apt-get install oathtool): ${String(error)}`);
  }
  expect(debian, `oathtool and otplib disagree on the code of ${base32} at ${epochSeconds}`).toBe(ours);
  return ours;
}

/** A code of a time step after `used`, waiting for the next step when the current one was spent already. */
async function freshCode(base32: string, used: number): Promise<{ code: string; step: number }> {
  const nextStepAt = (used + 1) * TOTP_PERIOD_SECONDS * 1000;
  if (Date.now() < nextStepAt) await new Promise((resolve) => setTimeout(resolve, nextStepAt - Date.now() + 250));
  const epoch = Math.floor(Date.now() / 1000);
  return { code: await totpAt(base32, epoch), step: stepOf(epoch) };
}

/** A six-digit code that is not the account's current one, nor a neighbour the server would accept. */
async function wrongCode(base32: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const near = await Promise.all([-1, 0, 1].map((offset) => totpAt(base32, now + offset * TOTP_PERIOD_SECONDS)));
  return ['000000', '111111', '222222', '333333'].find((code) => !near.includes(code))!;
}

async function signOut(): Promise<void> {
  // The card shows the sign-in form at once; the stored session goes when the server has answered the sign-out, so
  // a page loaded before that would find it again (the next step loads the console anew).
  const told = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/signout');
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await told;
  await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => localStorage.getItem(key)?.includes('refreshToken')).length)).toBe(0);
}

/** The password step of the console's sign-in, for an account with a factor on: the card asks for the code next. */
async function passwordStep(email: string): Promise<void> {
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
  await expect(page.getByText('Enter the 6-digit code from your authenticator app.')).toBeVisible();
}

const tablesHeading = () => page.getByRole('heading', { level: 1, name: 'Tables' });
const twoStep = () => page.getByRole('region', { name: 'Two-step sign-in' });
const sections = () => page.getByRole('navigation', { name: 'Sections' });

async function openAccount(): Promise<void> {
  await sections().getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
}

/** Turns a member's factor on over the API, as an app would. */
async function memberWithFactor(): Promise<{ secret: string; step: number }> {
  const account = await signUp(server, MEMBER_EMAIL);
  const enrolled = await http(server, 'POST', '/auth/mfa/totp', { token: account.accessToken });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  const memberSecret = (enrolled.body.data as { secret: string }).secret;
  const { code, step } = await freshCode(memberSecret, 0);
  const verified = await http(server, 'POST', '/auth/mfa/totp/verify', { token: account.accessToken, body: { code } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return { secret: memberSecret, step };
}

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  server = await startServer();
  await signUp(server, OWNER_EMAIL);
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
});
test.afterAll(async () => {
  await page?.context().close();
  await server?.stop();
});

test('the owner turns two-step sign-in on and keeps the ten recovery codes', async () => {
  const csp = watchCsp(page);
  await signInAsOwner(page, server);
  await openAccount();
  await expect(twoStep().getByText('off', { exact: true })).toBeVisible();
  await twoStep().getByRole('button', { name: 'Turn on' }).click();

  // The QR code is drawn in the page (a decoded image, not a broken one) and the key is shown to type in.
  const qr = twoStep().getByRole('img', { name: 'QR code for your authenticator app', exact: true });
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
  secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await screenshot(page, 'account-two-step-enroll');

  const codeField = twoStep().getByLabel('6-digit code from the app');
  await codeField.fill('12345');
  await twoStep().getByRole('button', { name: 'Verify and turn on' }).click();
  await expect(twoStep().getByText('The code is 6 digits, as your authenticator app shows it.')).toBeVisible();
  await codeField.fill(await wrongCode(secret));
  await twoStep().getByRole('button', { name: 'Verify and turn on' }).click();
  await expect(twoStep().locator('.field-error')).toBeVisible();

  const { code, step } = await freshCode(secret, 0);
  await codeField.fill(code);
  await twoStep().getByRole('button', { name: 'Verify and turn on' }).click();
  ownerStep = step;

  const list = page.getByRole('list', { name: 'Recovery codes' });
  await expect(list.getByRole('listitem')).toHaveCount(RECOVERY_CODE_COUNT);
  recoveryCodes = (await list.getByRole('listitem').allTextContents()).map((text) => text.trim());
  for (const recoveryCode of recoveryCodes) expect(recoveryCode).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
  await expect(twoStep().getByText('on', { exact: true })).toBeVisible();
  await screenshot(page, 'account-recovery-codes');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download as .txt' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^recovery-codes-127\.0\.0\.1-\d+\.txt$/);
  const saved = await fs.readFile((await download.path())!, 'utf8');
  for (const recoveryCode of recoveryCodes) expect(saved).toContain(`\n${recoveryCode}\n`);
  expect(saved).toContain(OWNER_EMAIL);

  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(list).toHaveCount(0);
  await expect(twoStep().getByRole('button', { name: 'New recovery codes' })).toBeVisible();
  // The session went on at aal 2: the owner is still here, and the factor's own settings answer.
  await page.reload();
  await expect(twoStep().getByText('on', { exact: true })).toBeVisible();
  expect(csp).toEqual([]);
});

test('signing in asks for the code after the password: a wrong one is refused on the field, a fresh one signs in', async () => {
  test.setTimeout(120_000);
  await signOut();
  await passwordStep(OWNER_EMAIL);
  await screenshot(page, 'sign-in-second-step');
  const field = page.getByLabel('6-digit code');
  await field.fill(await wrongCode(secret));
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(page.locator('.field-error')).toContainText(WRONG_CODE);
  await expect(field).toHaveAttribute('aria-invalid', 'true');

  // The step whose code turned the factor on is spent: the next one is needed.
  const { code, step } = await freshCode(secret, ownerStep);
  await field.fill(code);
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(tablesHeading()).toBeVisible();
  ownerStep = step;
});

test('the way back leads to the password form, and a member with a factor is still refused after the code', async () => {
  test.setTimeout(120_000);
  member = await memberWithFactor();
  await signOut();
  await passwordStep(OWNER_EMAIL);
  await page.getByRole('button', { name: 'Back to sign-in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();

  await passwordStep(MEMBER_EMAIL);
  const { code } = await freshCode(member.secret, member.step);
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText(MEMBER_REFUSED)).toBeVisible();
});

test('a recovery code signs in once, and is refused when used again', async () => {
  const [first, second] = recoveryCodes;
  await passwordStep(OWNER_EMAIL);
  await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
  await expect(page.getByLabel('Recovery code')).toBeVisible();
  await page.getByLabel('Recovery code').fill(first!);
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(tablesHeading()).toBeVisible();
  await signOut();

  await passwordStep(OWNER_EMAIL);
  await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
  await page.getByLabel('Recovery code').fill(first!);
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(page.locator('.field-error')).toContainText(WRONG_RECOVERY_CODE);
  // Case does not matter, as the codes are read back by people.
  await page.getByLabel('Recovery code').fill(second!.toLowerCase());
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await expect(tablesHeading()).toBeVisible();
});

test('the owner removes a member’s second factor from the Users screen, at a phone’s width too', async () => {
  await sections().getByRole('link', { name: 'Users' }).click();
  const row = page.getByRole('table', { name: 'Users' }).getByRole('row', { name: new RegExp(MEMBER_EMAIL) });
  await expect(row.getByText('2FA', { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'users-mfa');
  await page.setViewportSize({ width: 1280, height: 900 });

  await row.getByRole('button', { name: `Remove second factor of ${MEMBER_EMAIL}` }).click();
  const dialog = page.getByRole('dialog', { name: `Remove the second factor of ${MEMBER_EMAIL}?` });
  await expect(dialog).toContainText('sign in with the password alone');
  await dialog.getByRole('button', { name: 'Remove second factor' }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByText('2FA', { exact: true })).toHaveCount(0);
  await expect(row.getByRole('button', { name: /Remove second factor/ })).toHaveCount(0);
  const signIn = await http(server, 'POST', '/auth/signin', { body: { email: MEMBER_EMAIL, password: PASSWORD } });
  expect(signIn.status).toBe(200);
  expect((signIn.body.data as { accessToken?: string }).accessToken).toEqual(expect.any(String));
});

test('the owner makes new recovery codes and turns two-step sign-in off', async () => {
  await openAccount();
  await twoStep().getByRole('button', { name: 'New recovery codes' }).click();
  let dialog = page.getByRole('dialog', { name: 'Make new recovery codes?' });
  await dialog.getByRole('button', { name: 'Make new codes' }).click();
  const list = page.getByRole('list', { name: 'Recovery codes' });
  await expect(list.getByRole('listitem')).toHaveCount(RECOVERY_CODE_COUNT);
  const fresh = (await list.getByRole('listitem').allTextContents()).map((text) => text.trim());
  expect(fresh.filter((code) => recoveryCodes.includes(code))).toEqual([]);
  await page.getByRole('button', { name: 'I have saved them' }).click();

  await page.setViewportSize({ width: 390, height: 844 });
  expect(await horizontalOverflow(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });

  await twoStep().getByRole('button', { name: 'Turn off' }).click();
  dialog = page.getByRole('dialog', { name: 'Turn off two-step sign-in?' });
  await dialog.getByRole('button', { name: 'Turn off' }).click();
  await expect(dialog).toBeHidden();
  await expect(twoStep().getByText('off', { exact: true })).toBeVisible();
  await expect(twoStep().getByRole('button', { name: 'Turn on' })).toBeVisible();
  const signIn = await http(server, 'POST', '/auth/signin', { body: { email: OWNER_EMAIL, password: PASSWORD } });
  expect((signIn.body.data as { accessToken?: string }).accessToken).toEqual(expect.any(String));
});

test('without providers, the API screen shows how to configure one', async () => {
  await sections().getByRole('link', { name: 'API', exact: true }).click();
  const card = page.getByRole('region', { name: 'Identity providers' });
  await expect(card).toContainText('None configured');
  await expect(card.locator('pre')).toContainText('"clientSecretEnv": "GOOGLE_CLIENT_SECRET"');
  await expect(card).toContainText(`${server.url}/auth/oauth/google/callback`);
  // No provider, no "Continue with" on the sign-in card.
  await signOut();
  await expect(page.getByRole('button', { name: /^Continue with/ })).toHaveCount(0);
});
