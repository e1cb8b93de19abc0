import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { startSmtpCatcher, type CaughtMail, type SmtpCatcher } from '../test-support/smtp.js';
import { OWNER_EMAIL, PASSWORD, horizontalOverflow, http, screenshot, signInAsOwner, signUp, startServer, watchCsp } from './support.js';

/**
 * Email (issue 26) in the console: recovery from "Forgot password?" to the confirm page a mail's link opens, with a
 * real SMTP server and without one (the owner passes links on from the Outbox), and the owner's mail tools.
 */
const RECOVERY_SENT = 'If an account exists for this address, a mail is on its way.';
const LINK_SPENT = 'This link was already used or has expired: ask for a new mail or use the code.';
const NEW_PASSWORD = 'a brand new password';
const FROM = 'no-reply@example.test';

/** A port free right now: PUBLIC_URL must name the server's own address before it starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A server whose mails' links point at itself (PUBLIC_URL), sending through `smtpUrl` when given. */
async function startMailingServer(dir: string, smtpUrl?: string): Promise<SpawnedServer> {
  const configPath = path.join(dir, smtpUrl ? 'smtp.json' : 'no-smtp.json');
  await fs.writeFile(configPath, JSON.stringify({ signupEnabled: true, email: { from: FROM, projectName: 'Basalt e2e' } }));
  const port = await freePort();
  return startServer({
    env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, CONFIG_PATH: configPath, ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}) },
  });
}

/** The latest mail of a kind (`#type=` of its link) the catcher received for an address. */
async function mailOfKind(catcher: SmtpCatcher, to: string, kind: string): Promise<CaughtMail> {
  const find = () => catcher.to(to).filter((mail) => mail.link?.includes(`#type=${kind}&`)).at(-1);
  await expect.poll(() => find() !== undefined, { message: `a ${kind} mail to ${to}`, timeout: 15_000 }).toBe(true);
  return find()!;
}

const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' });

/** Asks for a recovery mail on the console's sign-in screen, as someone who forgot the password does. */
async function askForRecovery(page: Page, server: SpawnedServer, email: string): Promise<void> {
  await page.goto(`${server.url}/console/`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/console\/recover$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send the recovery mail' }).click();
  await expect(page.getByRole('status')).toContainText(RECOVERY_SENT);
}

/** Sets a new password on the confirm page a recovery link opened. */
async function setPasswordOnConfirmPage(page: Page, password: string): Promise<void> {
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Repeat the new password').fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
}

let dir: string;
test.beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-email-e2e-'));
});
test.afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

test.describe('with an SMTP server', () => {
  let catcher: SmtpCatcher;
  let server: SpawnedServer;
  test.beforeAll(async () => {
    catcher = await startSmtpCatcher();
    server = await startMailingServer(dir, catcher.url);
    await signUp(server, OWNER_EMAIL);
  });
  test.afterAll(async () => {
    await server?.stop();
    await catcher?.close();
  });
  test.afterEach(() => catcher.accept());

  test('a mail the SMTP server refuses waits queued in the Outbox, and Retry sends it at once', async ({ page }) => {
    const to = 'tester@example.test';
    catcher.refuse(451, 'try again later');
    await page.setViewportSize({ width: 1366, height: 768 });
    await signInAsOwner(page, server);
    await sections(page).getByRole('link', { name: 'API', exact: true }).click();
    await expect(page.getByTestId('smtp-status')).toHaveText('configured (SMTP_URL)');
    await expect(page.getByRole('region', { name: 'Email' })).toContainText(FROM);
    await page.getByLabel('Send a test mail to').fill(to);
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await expect(page.getByRole('status').filter({ hasText: `A test mail to ${to} is queued.` })).toBeVisible();

    await page.getByRole('status').getByRole('link', { name: 'Outbox' }).click();
    const row = page.getByRole('table', { name: 'Outbox' }).getByRole('row', { name: new RegExp(to) });
    await expect(row).toContainText('queued');
    // Three refusals in, the next attempt is 8 s away (2, 4, 8 s backoff): a retry now is the button's doing.
    await expect(row.locator('td.numeric')).toHaveText(/^[3-9]$/, { timeout: 30_000 });
    await expect(row).toContainText('451');
    catcher.accept();
    await row.getByRole('button', { name: `Retry the test mail to ${to}` }).click();
    await catcher.waitFor(to, 1, 4_000);
    await expect(row).toContainText('sent', { timeout: 10_000 });
    await expect(row.getByRole('button', { name: /Retry/ })).toHaveCount(0);
  });

  test('the owner recovers the account: forgot password, the mail’s link, a new password, signed in', async ({ page, browser }) => {
    const csp = watchCsp(page);
    await askForRecovery(page, server, OWNER_EMAIL);
    await screenshot(page, 'recover');
    const mail = await mailOfKind(catcher, OWNER_EMAIL, 'recover');
    expect(mail.from).toBe(FROM);
    expect(mail.link).toMatch(new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/auth/confirm#type=recover&token=`));
    expect(mail.code).toMatch(/^\d{6}$/);

    // An unknown address gets the very same answer.
    await askForRecovery(page, server, 'nobody@example.test');

    // Opening the link asks nothing of the API: the page and its assets, no more (a mail scanner spends nothing).
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await page.goto(mail.link!);
    await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/confirm$/); // the token left the address bar
    expect(requests.filter((request) => !/^GET (\/auth\/confirm|\/console\/assets\/)/.test(request))).toEqual([]);
    // Opened once more elsewhere (a mail scanner): still nothing spent, as the password set below shows.
    const scanner = await browser.newContext();
    await (await scanner.newPage()).goto(mail.link!);
    await scanner.close();
    await screenshot(page, 'confirm-recover');

    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('Use at least 8 characters.')).toBeVisible();
    await setPasswordOnConfirmPage(page, NEW_PASSWORD);
    await expect(page.getByRole('status')).toContainText('Your password is set.');
    expect(requests.filter((request) => request.startsWith('POST'))).toEqual(['POST /auth/reset']);
    expect((await http(server, 'POST', '/auth/signin', { body: { email: OWNER_EMAIL, password: PASSWORD } })).status).toBe(401);

    // On to the console, and in with the new password.
    await page.getByRole('link', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/console\/$/);
    await page.getByLabel('Email').fill(OWNER_EMAIL);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();

    // The link worked once.
    const again = await browser.newContext();
    const second = await again.newPage();
    await second.goto(mail.link!);
    await setPasswordOnConfirmPage(second, 'yet another password');
    await expect(second.getByRole('alert')).toHaveText(LINK_SPENT);
    await again.close();
    expect(csp).toEqual([]);
  });
});

test.describe('without SMTP', () => {
  let server: SpawnedServer;
  test.beforeAll(async () => {
    server = await startMailingServer(dir);
    await signUp(server, OWNER_EMAIL);
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test('the owner finds a recovery mail’s link in the Outbox and passes it on', async ({ page, browser }) => {
    const member = await signUp(server, 'forgetful@example.test');
    await askForRecovery(page, server, member.email);

    await signInAsOwner(page, server);
    await sections(page).getByRole('link', { name: 'Outbox' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Outbox' })).toBeVisible();
    await expect(page.getByText('No SMTP server is configured')).toBeVisible();
    await page.getByLabel('Status').selectOption('unsent');
    const proof = page.getByRole('group', { name: `Link and code of the recover mail to ${member.email}` });
    const link = await proof.getByTestId('outbox-link').textContent();
    expect(link).toMatch(new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/auth/confirm#type=recover&token=`));
    await expect(proof.getByTestId('outbox-code')).toHaveText(/^\d{6}$/);
    await expect(proof.getByRole('button', { name: 'Copy link' })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Outbox' }).getByRole('row', { name: new RegExp(member.email) }).first()).toContainText('unsent: no SMTP');
    await screenshot(page, 'outbox');

    // The member opens it in their own browser.
    const context = await browser.newContext();
    const visitor = await context.newPage();
    await visitor.goto(link!);
    await setPasswordOnConfirmPage(visitor, NEW_PASSWORD);
    await expect(visitor.getByRole('status')).toContainText('Your password is set.');
    expect((await http(server, 'POST', '/auth/signin', { body: { email: member.email, password: NEW_PASSWORD } })).status).toBe(200);

    // The verification mail from the sign-up: its link asks for a click, which proves the address.
    const verifyLink = await page.getByRole('group', { name: `Link and code of the verify mail to ${member.email}` }).getByTestId('outbox-link').textContent();
    await visitor.goto(verifyLink!);
    await expect(visitor.getByRole('heading', { name: 'Confirm your email address' })).toBeVisible();
    await visitor.getByRole('button', { name: 'Confirm my email address' }).click();
    await expect(visitor.getByRole('status')).toContainText(`Your email address ${member.email} is confirmed.`);
    await expect(visitor.getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/console/');
    await context.close();

    // An empty filter says what the outbox is for.
    await page.getByLabel('Status').selectOption('failed');
    await expect(page.getByText('No failed mail')).toBeVisible();
  });

  test('the owner invites, sends mails again and a test mail, at a desktop’s and a phone’s width', async ({ page, browser }) => {
    const csp = watchCsp(page);
    const invitee = 'invitee@example.test';
    await page.setViewportSize({ width: 1366, height: 768 });
    await signInAsOwner(page, server);
    await sections(page).getByRole('link', { name: 'Users' }).click();
    const users = page.getByRole('table', { name: 'Users' });
    await expect(users.getByRole('row', { name: new RegExp(OWNER_EMAIL) })).toBeVisible();

    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByLabel('Email address').fill(invitee);
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expect(page.getByRole('status').filter({ hasText: `The invitation to ${invitee} is queued.` })).toContainText('waits in the Outbox');
    await expect(users.getByRole('row', { name: new RegExp(invitee) })).toContainText('invited');

    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByLabel('Email address').fill(invitee);
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expect(page.getByText('An account with this address exists.')).toBeVisible();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: `Resend mail to ${invitee}` }).click();
    await expect(page.getByRole('status').filter({ hasText: `The invitation to ${invitee} is queued again.` })).toBeVisible();
    await expect(page.getByRole('button', { name: `Resend mail to ${OWNER_EMAIL}` })).toHaveCount(0);
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'users-invite');

    await sections(page).getByRole('link', { name: 'API', exact: true }).click();
    await expect(page.getByTestId('smtp-status')).toContainText('not configured');
    await page.getByLabel('Send a test mail to').fill('someone@example.test');
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'A test mail to someone@example.test is queued.' })).toBeVisible();
    await screenshot(page, 'api-email');

    await sections(page).getByRole('link', { name: 'Outbox' }).click();
    const outbox = page.getByRole('table', { name: 'Outbox' });
    await expect(outbox.getByRole('row', { name: /someone@example\.test/ }).getByRole('cell').nth(1)).toHaveText('test');
    const invites = page.getByRole('group', { name: `Link and code of the invite mail to ${invitee}` });
    await expect(invites).toHaveCount(2);
    expect(await horizontalOverflow(page)).toEqual([]);

    // The invitee follows the newest invitation and chooses a password: the account is theirs, its address proven.
    const inviteLink = await invites.first().getByTestId('outbox-link').textContent();
    const context = await browser.newContext();
    const visitor = await context.newPage();
    await visitor.goto(inviteLink!);
    await expect(visitor.getByRole('heading', { name: 'Accept your invitation' })).toBeVisible();
    await setPasswordOnConfirmPage(visitor, NEW_PASSWORD);
    await expect(visitor.getByRole('status')).toContainText('Your password is set and your address confirmed');
    await context.close();
    expect((await http(server, 'POST', '/auth/signin', { body: { email: invitee, password: NEW_PASSWORD } })).status).toBe(200);

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(outbox).toBeVisible();
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'outbox');
    await sections(page).getByRole('link', { name: 'Users' }).click();
    await page.reload(); // the list the screen showed a moment ago is not asked again so soon
    await expect(users.getByRole('row', { name: new RegExp(invitee) })).toContainText('verified');
    await expect(page.getByRole('button', { name: `Resend mail to ${invitee}` })).toHaveCount(0);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(page.getByLabel('Email address')).toBeVisible();
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'users-invite');
    await sections(page).getByRole('link', { name: 'API', exact: true }).click();
    await expect(page.getByLabel('Send a test mail to')).toBeVisible();
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'api-email');
    expect(csp).toEqual([]);
  });
});
