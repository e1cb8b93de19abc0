import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhookReceiver.js';
import { OWNER_EMAIL, horizontalOverflow, http, screenshot, signInAsOwner, signUp, startServer, watchCsp, type Account } from './support.js';

/**
 * Webhooks (issue 29) in the console: the owner makes one to a real node:http receiver on loopback (config.json lets
 * webhooks reach 127.0.0.1) that checks every signature with the `standardwebhooks` package, using the secret the
 * console shows once; a record made in the console arrives verified and is listed delivered; a refused attempt is
 * listed failed with its status code and the console's Retry sends it; replay, edit, rotation and deletion.
 */

// The replay's datetime input is the browser's local time: UTC here, as the test writes it.
test.use({ timezoneId: 'UTC' });

let dir: string;
let server: SpawnedServer;
let receiver: WebhookReceiver;
let owner: Account;

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-webhooks-e2e-'));
  const configPath = path.join(dir, 'config.json');
  await fs.writeFile(configPath, JSON.stringify({ signupEnabled: true, webhooks: { allowPrivateTargets: true } }));
  server = await startServer({ env: { CONFIG_PATH: configPath } });
  owner = await signUp(server, OWNER_EMAIL);
  const created = await http(server, 'POST', '/admin/tables', {
    token: owner.accessToken,
    body: { name: 'orders', policy: 'public-read', columns: [{ name: 'status', type: 'text' }, { name: 'total', type: 'integer' }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});
test.afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });
const webhookCard = (page: Page) => page.getByRole('article', { name: `Webhook to ${receiver.url}` });
/** A delivery's row in the deliveries table, by its row header ("update of orders <id>"). */
const deliveryRow = (page: Page, change: string): Locator =>
  page.getByRole('table', { name: 'Deliveries' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: change, exact: true }) });
/** A delivery row's cells after its row header: status, attempts, last status, last error, latency, time. */
const cell = (row: Locator, name: 'status' | 'attempts' | 'last status' | 'last error' | 'latency') =>
  row.getByRole('cell').nth(['status', 'attempts', 'last status', 'last error', 'latency'].indexOf(name));

/** How long until a failed delivery's next attempt, in ms, as the admin API answers (0 when it is not failed). */
async function nextAttemptIn(deliveryId: string): Promise<number> {
  const webhooks = (await http(server, 'GET', '/admin/webhooks', { token: owner.accessToken })).body.data as Array<{ id: string }>;
  for (const { id } of webhooks) {
    const page = (await http(server, 'GET', `/admin/webhooks/${id}/deliveries?status=failed`, { token: owner.accessToken })).body.data as Array<{ id: string; nextAttemptAt: string }>;
    const found = page.find((delivery) => delivery.id === deliveryId);
    if (found) return Date.parse(found.nextAttemptAt) - Date.now();
  }
  return 0;
}

/** `YYYY-MM-DDTHH:mm:ss` of an instant in UTC, as a datetime-local input takes it. */
const localInput = (at: Date) => at.toISOString().slice(0, 19);

test('the owner sends changes to a receiver, sees them delivered and retries a refused one, at a desktop’s and a phone’s width', async ({ page }) => {
  test.setTimeout(120_000);
  const csp = watchCsp(page);
  const startedAt = new Date(Date.now() - 60_000);
  await page.setViewportSize({ width: 1366, height: 768 });
  await signInAsOwner(page, server);
  await nav(page, 'Webhooks').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
  await expect(page.getByText('No webhooks yet')).toBeVisible();

  // The form: its own checks, then the server's refusal, each under the field it is about.
  await page.getByRole('button', { name: 'New webhook' }).click();
  const form = page.getByRole('form', { name: 'New webhook' });
  await expect(form.getByRole('checkbox', { name: 'insert' })).toBeChecked();
  await expect(form.getByRole('checkbox', { name: 'update' })).toBeChecked();
  await expect(form.getByRole('checkbox', { name: 'delete' })).toBeChecked();
  await expect(form.getByRole('checkbox', { name: 'truncate' })).not.toBeChecked();
  await expect(form.getByLabel('Enabled')).toBeChecked();
  await form.getByLabel('URL').fill('ftp://example.com/hook');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(form.getByLabel('URL')).toHaveAccessibleDescription('Use an http:// or https:// address.');
  await expect(form.getByRole('group', { name: 'Tables', exact: true })).toHaveAccessibleDescription('Choose at least one table, or every table.');
  await form.getByLabel('URL').fill(receiver.url);
  await form.getByRole('checkbox', { name: 'orders' }).check();
  await form.getByLabel('Filter').fill('nope > 1');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(form.getByLabel('Filter')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Filter')).toHaveAccessibleDescription(/nope/);
  await form.getByLabel('Filter').fill('');
  await form.getByRole('button', { name: 'Add a header' }).click();
  await expect(form.getByLabel('Header 1 name')).toBeFocused();
  await page.keyboard.type('Authorization');
  await form.getByLabel('Header 1 value').fill('Bearer for-the-receiver');
  await form.getByRole('button', { name: 'Create webhook' }).click();

  // The secret, shown this once, is the one the receiver verifies with.
  const callout = page.getByRole('status', { name: 'Webhook secret' });
  await expect(callout).toContainText('it will not be shown again');
  await expect(callout.getByRole('button', { name: 'Copy secret' })).toBeVisible();
  const secret = (await callout.getByTestId('webhook-secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_/);
  receiver.secrets = [secret];
  await expect(webhookCard(page)).toContainText('orders');
  await expect(webhookCard(page)).toContainText('insert, update, delete');
  await expect(webhookCard(page)).toContainText('Authorization');
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'webhooks');
  await callout.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await expect(webhookCard(page)).toBeVisible();
  await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);

  // A record made in the console arrives, signed: the receiver verifies it with that secret.
  await nav(page, 'Tables').click();
  await page.getByRole('table', { name: 'Tables' }).getByRole('link', { name: 'orders', exact: true }).click();
  await page.getByRole('button', { name: 'New record' }).click();
  const recordForm = page.getByRole('form', { name: /^New record in orders/ });
  await recordForm.getByLabel('status', { exact: true }).fill('new');
  await recordForm.getByLabel('total', { exact: true }).fill('120');
  await recordForm.getByRole('button', { name: 'Create record' }).click();
  const [arrived] = await receiver.waitForDistinct(1);
  expect(arrived).toMatchObject({ verified: true, payload: { type: 'insert', table: 'orders', record: { status: 'new', total: 120 }, old: null } });
  expect(arrived!.headers.authorization).toBe('Bearer for-the-receiver');
  const orderId = String(arrived!.payload.record!.id);

  // Listed delivered under the webhook's deliveries, its payload a click (or Enter) away.
  await nav(page, 'Webhooks').click();
  await webhookCard(page).getByRole('link', { name: /^Deliveries/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Webhook' })).toBeVisible();
  const inserted = deliveryRow(page, `insert of orders ${orderId}`);
  await expect(cell(inserted, 'status')).toHaveText('delivered', { timeout: 10_000 });
  await expect(cell(inserted, 'attempts')).toHaveText('1');
  await expect(cell(inserted, 'last status')).toHaveText('200');
  await expect(cell(inserted, 'latency')).toHaveText(/^\d+ ms$/);
  const summary = page.locator('summary', { hasText: `of the insert of orders ${orderId}` });
  await expect(summary).toContainText(arrived!.id);
  await summary.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: `Payload of the insert of orders ${orderId}` })).toContainText('"total": 120');
  await screenshot(page, 'webhook-deliveries');

  // The receiver refuses: the update is listed failed with the status it answered.
  receiver.answer(500);
  const changed = await http(server, 'PUT', `/api/orders/${orderId}`, { token: owner.accessToken, body: { status: 'paid' } });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('failed');
  const updated = deliveryRow(page, `update of orders ${orderId}`);
  await expect(cell(updated, 'status')).toHaveText('failed', { timeout: 10_000 });
  await expect(cell(updated, 'last status')).toHaveText('500');
  await expect(cell(updated, 'last error')).toHaveText('status 500');
  await expect(inserted).toHaveCount(0);
  // Two refusals in (the second one's outcome written), the next attempt is about 30 s away: a delivery now is the
  // Retry button's doing.
  const refusedId = receiver.attempts.find((attempt) => attempt.status === 500)!.id;
  await expect.poll(() => nextAttemptIn(refusedId), { timeout: 15_000 }).toBeGreaterThan(15_000);
  await expect(cell(updated, 'attempts')).toHaveText('2', { timeout: 5_000 });
  receiver.accept();
  await updated.getByRole('button', { name: `Retry the update of orders ${orderId}` }).click();
  await expect.poll(() => receiver.received.some((r) => r.id === refusedId && r.verified), { timeout: 5_000 }).toBe(true);
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('delivered');
  await expect(cell(updated, 'status')).toHaveText('delivered', { timeout: 10_000 });
  await expect(cell(updated, 'last status')).toHaveText('200');
  await expect(cell(updated, 'attempts')).toHaveText('3');

  // Replay since before both changes: queued again as new deliveries, and received.
  await page.getByLabel('Replay since').fill(localInput(startedAt));
  await page.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'queued again' })).toHaveText('2 changes queued again.');
  await receiver.waitForDistinct(4);
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('');
  await expect(page.getByRole('table', { name: 'Deliveries' }).getByRole('rowheader', { name: `update of orders ${orderId}` })).toHaveCount(2);

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Deliveries' })).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'webhook-deliveries');

  // Disable and enable, edit, rotate the secret (shown once again), at a phone's width.
  await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Webhooks' }).click();
  const card = webhookCard(page);
  await card.getByRole('button', { name: /^Disable/ }).click();
  await expect(card).toContainText('disabled');
  await card.getByRole('button', { name: /^Enable/ }).click();
  await expect(card.locator('.badge')).toHaveText('enabled');
  await card.getByRole('button', { name: /^Edit/ }).click();
  const edit = page.getByRole('form', { name: `Edit the webhook to ${receiver.url}` });
  await expect(edit.getByLabel('URL')).toHaveValue(receiver.url);
  await expect(edit.getByLabel('Header 1 value')).toHaveValue('Bearer for-the-receiver');
  await edit.getByRole('checkbox', { name: 'truncate' }).check();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'webhooks-edit');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(card).toContainText('insert, update, delete, truncate');
  await card.getByRole('button', { name: /^Rotate secret/ }).click();
  await expect(callout).toContainText('Copy the new secret now: it will not be shown again.');
  await expect(callout).toContainText('signed with both secrets until');
  const rotated = (await callout.getByTestId('webhook-secret').textContent()) ?? '';
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'webhooks');

  // Deleting asks first, naming the URL.
  await card.getByRole('button', { name: /^Delete/ }).click();
  const dialog = page.getByRole('dialog', { name: `Delete the webhook to ${receiver.url}?` });
  await dialog.getByRole('button', { name: 'Delete webhook' }).click();
  await expect(dialog).toBeHidden();
  await expect(card).toHaveCount(0);
  await expect(page.getByText('No webhooks yet')).toBeVisible();
  expect((await http(server, 'GET', '/admin/webhooks', { token: owner.accessToken })).body.data).toEqual([]);
  expect(csp).toEqual([]);
});
