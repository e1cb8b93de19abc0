import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, http, signInAsOwner, signUp, startServer, type Account } from './support.js';

/**
 * The records grid and the indexes panel at their edges, on a table made over HTTP: columns named like the list's own
 * parameters, Escape and blur in the filter row, what starts paging again, keyset paging while rows are inserted, and
 * an index build that takes a while or is refused. console.spec.ts walks the ordinary path.
 */
test.describe.configure({ mode: 'serial' });

let server: SpawnedServer;
let context: BrowserContext;
let page: Page;
let owner: Account;

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  const created = await http(server, 'POST', '/admin/tables', {
    token: owner.accessToken,
    body: {
      name: 'slots',
      columns: [
        { name: 'limit', type: 'integer', nullable: false },
        { name: 'order', type: 'text', nullable: false },
        { name: 'note', type: 'text', unique: true },
      ],
      policy: 'private',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const rows = Array.from({ length: 25 }, (_, i) => ({ limit: i + 1, order: i % 2 === 0 ? 'odd' : 'even', note: `n${i + 1}` }));
  const inserted = await http(server, 'POST', '/admin/tables/slots/records', { token: owner.accessToken, body: rows });
  expect(inserted.status, JSON.stringify(inserted.body)).toBe(201);

  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  await signInAsOwner(page, server);
  await page.getByRole('table', { name: 'Tables' }).getByRole('link', { name: 'slots', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'slots' })).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
  await server?.stop();
});

const grid = () => page.getByRole('table', { name: 'Records of slots' });
const status = () => page.locator('.pager-status');
const filterInput = (columnName: string) => page.getByLabel(`Filter ${columnName}`, { exact: true });

/** The grid's values of the `limit` column, top to bottom. */
async function limits(): Promise<string[]> {
  const headers = await grid().locator('thead tr').first().locator('th').allInnerTexts();
  const index = headers.findIndex((text) => text.split('\n')[0]?.replace(/[▲▼]/g, '').trim() === 'limit');
  return grid().locator(`tbody tr td:nth-child(${index + 1})`).allInnerTexts();
}

test('columns named like the list parameters are filtered like any other', async () => {
  await expect(status()).toHaveText('1–20 of 25 · page 1 of 2');
  await page.getByLabel('Operator for limit').selectOption('gte');
  await filterInput('limit').fill('20');
  await filterInput('limit').press('Enter');
  await expect(status()).toHaveText('1–6 of 6 · page 1 of 1');
  await filterInput('order').fill('odd');
  await filterInput('order').press('Enter');
  await expect(status()).toHaveText('1–3 of 3 · page 1 of 1');
  expect((await limits()).sort()).toEqual(['21', '23', '25']);
  // The same filter over HTTP, as the client sends it: the key carries the operator, so `limit` is not the page size.
  const answer = await http(server, 'GET', '/admin/tables/slots/records?limit[gte]=20&order[eq]=odd', { token: owner.accessToken });
  expect(answer.body.total).toBe(3);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(status()).toHaveText('1–20 of 25 · page 1 of 2');
});

test('Escape reverts a filter being typed, leaving the field applies it', async () => {
  await filterInput('note').fill('n7');
  await filterInput('note').press('Escape');
  await expect(filterInput('note')).toHaveValue('');
  await filterInput('note').fill('n7');
  await page.getByRole('heading', { level: 1, name: 'slots' }).click();
  await expect(status()).toHaveText('1–1 of 1 · page 1 of 1');
  expect(await limits()).toEqual(['7']);
  // Escape after applying goes back to the applied value, not to empty.
  await filterInput('note').fill('n8');
  await filterInput('note').press('Escape');
  await expect(filterInput('note')).toHaveValue('n7');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(filterInput('note')).toHaveValue('');
  await expect(status()).toHaveText('1–20 of 25 · page 1 of 2');
});

test('pages by cursor: a row inserted behind the page neither shifts nor repeats the next one', async () => {
  const sortByLimit = page.getByRole('button', { name: 'limit', exact: true });
  await sortByLimit.click();
  await page.getByLabel('Rows per page').selectOption('10');
  await expect(status()).toHaveText('1–10 of 25 · page 1 of 3');
  await expect.poll(limits).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);

  // A row that sorts first arrives meanwhile: paging by offset would show 10 again; the cursor goes on from 10.
  const inserted = await http(server, 'POST', '/admin/tables/slots/records', { token: owner.accessToken, body: { limit: 0, order: 'even' } });
  expect(inserted.status).toBe(201);
  const request = page.waitForRequest((candidate) => candidate.url().includes('/admin/tables/slots/records?'));
  await page.getByRole('button', { name: 'Next' }).click();
  const sent = new URL((await request).url());
  expect(sent.searchParams.get('after')).toBeTruthy();
  expect(sent.searchParams.has('offset')).toBe(false);
  await expect(status()).toHaveText('11–20 of 26 · page 2 of 3');
  await expect.poll(limits).toEqual(['11', '12', '13', '14', '15', '16', '17', '18', '19', '20']);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(status()).toHaveText('21–25 of 26 · page 3 of 3');
  await expect.poll(limits).toEqual(['21', '22', '23', '24', '25']);
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(status()).toHaveText('11–20 of 26 · page 2 of 3');

  // A new order, a filter or a page size starts again at the first page.
  await sortByLimit.click();
  await expect(status()).toHaveText('1–10 of 26 · page 1 of 3');
  await expect.poll(limits).toEqual(['25', '24', '23', '22', '21', '20', '19', '18', '17', '16']);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(status()).toHaveText('11–20 of 26 · page 2 of 3');
  await page.getByLabel('Operator for limit').selectOption('lt');
  await filterInput('limit').fill('15');
  await filterInput('limit').press('Enter');
  await expect(status()).toHaveText('1–10 of 15 · page 1 of 2');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(status()).toHaveText('11–15 of 15 · page 2 of 2');
  await page.getByLabel('Rows per page').selectOption('20');
  await expect(status()).toHaveText('1–15 of 15 · page 1 of 1');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await sortByLimit.click();
  // This first page was read before the HTTP insert and is still fresh to the console's cache: a reload reads it anew.
  await page.reload();
  await expect(status()).toHaveText('1–20 of 26 · page 1 of 2');
});

test('an index build shows that it is under way, and a refused one says why on the form', async () => {
  const indexes = page.getByRole('table', { name: 'Indexes of slots' });
  const form = page.getByRole('form', { name: 'New index' });
  // Neither the primary key's index nor the unique column's can be dropped.
  await expect(indexes.locator('tbody tr')).toHaveCount(2);
  await expect(indexes.getByRole('button', { name: /^Drop index/ })).toHaveCount(0);

  // Held back a moment, as a build on a big table would be: the form says so and takes no other choice meanwhile.
  await page.route('**/admin/tables/slots/indexes', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.continue();
  });
  await form.getByLabel('limit', { exact: true }).check();
  await form.getByLabel('order', { exact: true }).check();
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(form.getByRole('button', { name: 'Building the index…' })).toBeDisabled();
  await expect(form.getByLabel('note', { exact: true })).toBeDisabled();
  await expect(indexes.getByText('slots_limit_order_idx')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Create index' })).toBeEnabled();
  await expect(form.getByLabel('limit', { exact: true })).not.toBeChecked();
  await page.unroute('**/admin/tables/slots/indexes');
  const described = await http(server, 'GET', '/admin/tables/slots', { token: owner.accessToken });
  expect((described.body.data as { indexes: unknown[] }).indexes).toContainEqual({ name: 'slots_limit_order_idx', columns: ['limit', 'order'], unique: false, kind: 'btree' });

  // The same index again: the server's 409 shows on the form, and a new choice clears it.
  await form.getByLabel('limit', { exact: true }).check();
  await form.getByLabel('order', { exact: true }).check();
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(form.getByRole('alert')).toContainText('already exists');
  await form.getByLabel('order', { exact: true }).uncheck();
  await expect(form.getByRole('alert')).toHaveCount(0);

  // The form's own check for a search index, cleared likewise by changing the kind back.
  await form.getByLabel('Kind').selectOption('search');
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(form.getByRole('alert')).toContainText('exactly one text column');
  await form.getByLabel('Kind').selectOption('btree');
  await expect(form.getByRole('alert')).toHaveCount(0);
  await form.getByLabel('limit', { exact: true }).uncheck();
  await expect(indexes.getByRole('button', { name: /^Drop index/ })).toHaveCount(1);
});
