import fs from 'node:fs/promises';
import { expect, test, type BrowserContext, type Locator, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import {
  OWNER_EMAIL,
  PASSWORD,
  http,
  horizontalOverflow,
  screenshot,
  signInOverHttp,
  signUp,
  startServer,
  type Account,
} from './support.js';

/**
 * The owner's whole first session, in order, on one fresh project: each step builds on the one before (the table
 * created in one test is filled in the next), so the tests run serially in one browser page. Between the console
 * steps, an app's view over plain HTTP checks that what the console set is what the API enforces.
 */
test.describe.configure({ mode: 'serial' });

let server: SpawnedServer;
let context: BrowserContext;
let page: Page;
let owner: Account;
let member: Account;
let anonKey: string;

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await server?.stop();
});

const tableLink = (name: string) => page.getByRole('table', { name: 'Tables' }).getByRole('link', { name, exact: true });
const grid = (table: string) => page.getByRole('table', { name: `Records of ${table}` });
const gridRows = (table: string) => grid(table).locator('tbody tr');
const recordForm = () => page.getByRole('form', { name: /^(New record in|Edit record)/ });
const column = (index: number) => page.getByRole('group', { name: `Column ${index}` });

/** The text of one column's cells, top to bottom. */
async function columnValues(table: string, columnName: string): Promise<string[]> {
  const headers = await grid(table).locator('thead tr').first().locator('th').allInnerTexts();
  const index = headers.findIndex((text) => text.split('\n')[0]?.replace(/[▲▼]/g, '').trim() === columnName);
  expect(index, `column ${columnName} in ${headers.join(' | ')}`).toBeGreaterThanOrEqual(0);
  return gridRows(table).locator(`td:nth-child(${index + 1})`).allInnerTexts();
}

async function fillColumn(index: number, spec: { name: string; type: string; nullable?: boolean; unique?: boolean; default?: string }) {
  const group = column(index);
  await group.getByLabel('Name', { exact: true }).fill(spec.name);
  await group.getByLabel('Type', { exact: true }).selectOption(spec.type);
  if (spec.default !== undefined) {
    const input = group.getByLabel('Default', { exact: true });
    if (spec.type === 'boolean') await input.selectOption(spec.default);
    else await input.fill(spec.default);
  }
  await group.getByLabel('Nullable').setChecked(spec.nullable ?? true);
  await group.getByLabel('Unique').setChecked(spec.unique ?? false);
}

async function openTable(name: string) {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tables' }).click();
  await tableLink(name).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
}

async function createRecord(values: Record<string, string>) {
  await page.getByRole('button', { name: 'New record' }).click();
  const form = recordForm();
  for (const [name, value] of Object.entries(values)) {
    const input = form.getByLabel(name, { exact: true });
    if ((await input.evaluate((element) => element.tagName)) === 'SELECT') await input.selectOption(value);
    else await input.fill(value);
  }
  await form.getByRole('button', { name: 'Create record' }).click();
}

async function choosePolicy(policy: string) {
  await page.getByRole('radio', { name: new RegExp(`^${policy}`) }).click();
  // A policy change is confirmed first: no table is published by a stray click.
  const dialog = page.getByRole('dialog', { name: new RegExp(` to ${policy}\\?$`) });
  await dialog.getByRole('button', { name: `Apply ${policy}` }).click();
  await expect(dialog).toBeHidden();
  // The header shows the policy the server answered with, so it changes only once the change is in effect.
  await expect(page.locator('.page-meta .badge').first()).toHaveText(policy);
  await expect(page.getByText('Saved, in effect now')).toBeVisible();
}

function rowOf(table: string, text: string): Locator {
  return gridRows(table).filter({ has: page.getByRole('cell', { name: text, exact: true }) });
}

test('first run: the console offers to create the owner account', async () => {
  await page.goto(`${server.url}/`);
  await expect(page).toHaveURL(/\/console\/$/);
  await expect(page.getByRole('heading', { name: 'Create the owner account' })).toBeVisible();
  await screenshot(page, 'first-run');

  // The form checks what the server would refuse before sending it.
  await page.getByLabel('Email').fill('not-an-email');
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Create the owner account' }).click();
  await expect(page.getByText('Enter a valid email address')).toBeVisible();
  await expect(page.getByText('Use at least 8 characters.')).toBeVisible();

  await page.getByLabel('Email').fill(OWNER_EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create the owner account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  await expect(page.getByText('No tables yet')).toBeVisible();
  await expect(page.getByText(OWNER_EMAIL)).toBeVisible();

  const settings = await http(server, 'GET', '/auth/settings');
  expect(settings.body.data).toMatchObject({ hasOwner: true });
  owner = await signInOverHttp(server, OWNER_EMAIL);
  expect(owner.role).toBe('owner');
  member = await signUp(server, 'member@example.test');
  expect(member.role).toBe('member');
});

test('creates tables with several column types, checked as the server checks them', async () => {
  await page.getByRole('button', { name: 'Create your first table' }).click();
  await page.getByLabel('Table name').fill('Posts');
  await fillColumn(1, { name: 'title', type: 'text', nullable: false, unique: true });
  await page.getByRole('button', { name: 'Add a column' }).click();
  await fillColumn(2, { name: 'views', type: 'integer', nullable: false, default: 'ten' });
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.getByText('Use lower-case letters, digits and _')).toBeVisible();
  await expect(column(2).getByText('The default must be a whole number.')).toBeVisible();

  await page.getByLabel('Table name').fill('posts');
  await fillColumn(2, { name: 'views', type: 'integer', nullable: false, default: '0' });
  for (const [index, spec] of [
    [3, { name: 'rating', type: 'real' }],
    [4, { name: 'published', type: 'boolean', nullable: false, default: 'false' }],
    [5, { name: 'published_at', type: 'timestamp' }],
    [6, { name: 'meta', type: 'json' }],
  ] as const) {
    await page.getByRole('button', { name: 'Add a column' }).click();
    await fillColumn(index, spec);
  }
  await page.getByLabel('Policy').selectOption('private');
  await expect(page.getByText('Only the project owner reads and writes.')).toBeVisible();
  await screenshot(page, 'create-table');
  await page.getByRole('button', { name: 'Create table' }).click();

  await expect(page).toHaveURL(/\/console\/tables\/posts$/);
  await expect(page.getByRole('heading', { level: 1, name: 'posts' })).toBeVisible();
  const columns = page.getByRole('table', { name: 'Columns of posts' });
  for (const name of ['id', 'title', 'views', 'rating', 'published', 'published_at', 'meta', 'createdAt', 'updatedAt']) {
    await expect(columns.getByRole('rowheader', { name: new RegExp(`^${name}( owner)?$`) })).toBeVisible();
  }
  await expect(page.getByText('No records yet')).toBeVisible();

  // A name that is taken: the server's 409 lands on the name field.
  await page.getByRole('link', { name: 'Tables' }).first().click();
  await page.getByRole('button', { name: 'New table' }).click();
  await page.getByLabel('Table name').fill('posts');
  await column(1).getByLabel('Name', { exact: true }).fill('title');
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.locator('.field-invalid', { has: page.getByLabel('Table name') })).toContainText('already exists');

  // An owner column makes the automatic policy owner-scoped.
  await page.getByLabel('Table name').fill('notes');
  await fillColumn(1, { name: 'user_id', type: 'text' });
  await page.getByRole('button', { name: 'Add a column' }).click();
  await fillColumn(2, { name: 'body', type: 'text', nullable: false });
  await expect(page.getByLabel('Policy')).toContainText('Automatic (owner-scoped)');
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'notes' })).toBeVisible();
  await expect(page.locator('.page-meta')).toContainText('owner-scoped');

  await page.getByRole('link', { name: 'Tables' }).first().click();
  await page.getByRole('button', { name: 'New table' }).click();
  await page.getByLabel('Table name').fill('secrets');
  await fillColumn(1, { name: 'value', type: 'text' });
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'secrets' })).toBeVisible();

  await page.getByRole('link', { name: 'Tables' }).first().click();
  const list = page.getByRole('table', { name: 'Tables' });
  await expect(list.locator('tbody tr')).toHaveCount(3);
  await expect(list.getByRole('row', { name: /^posts/ })).toContainText('private');
  await expect(list.getByRole('row', { name: /^notes/ })).toContainText('owner-scoped');
});

test('changes a policy once confirmed, and shows when one cannot apply', async () => {
  await openTable('posts');
  await expect(page.getByText(/Everyone, anon included, reads the whole table/)).toBeVisible();
  // Cancelled, nothing changes.
  await page.getByRole('radio', { name: /^public-read/ }).click();
  await page.getByRole('dialog', { name: 'Set posts to public-read?' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('.page-meta .badge').first()).toHaveText('private');
  await choosePolicy('public-read');
  await expect(page.locator('.page-meta')).toContainText('public-read');

  await openTable('secrets');
  await choosePolicy('owner-scoped');
  // No owner column: the API treats the table as private, and the console says so, here and in the list.
  await expect(page.getByText('so it cannot be scoped to owners')).toBeVisible();
  await page.getByRole('link', { name: 'Tables' }).first().click();
  await expect(page.getByRole('table', { name: 'Tables' }).getByRole('row', { name: /^secrets/ })).toContainText('acts as private');
});

test('adds, edits and deletes records, with validation errors on the field', async () => {
  await openTable('posts');

  // The server refuses a value: its message shows on that field.
  await createRecord({ title: 'Hello', views: 'lots' });
  await expect(recordForm().locator('.field-invalid', { has: page.getByLabel('views', { exact: true }) })).toContainText(
    'must be a whole number',
  );
  await recordForm().getByLabel('views', { exact: true }).fill('5');
  await recordForm().getByRole('button', { name: 'Create record' }).click();
  await expect(recordForm()).toHaveCount(0);
  await expect(rowOf('posts', 'Hello')).toHaveCount(1);

  await createRecord({ title: 'World', views: '2', published: 'true', published_at: '2025-03-01T09:30:00Z' });
  await expect(rowOf('posts', 'World')).toHaveCount(1);
  await createRecord({ title: 'Third', views: '9', rating: '4.5', meta: '{"tags": ["x", "y"]}' });
  await expect(rowOf('posts', 'Third')).toContainText('{"tags":["x","y"]}');

  // A unique column: the 409 names the column, shown on its field.
  await createRecord({ title: 'Hello' });
  await expect(recordForm().locator('.field-invalid', { has: page.getByLabel('title', { exact: true }) })).toContainText('already exists');
  await page.getByRole('button', { name: 'Cancel' }).click();

  // A JSON value that does not parse is caught before sending: any text would otherwise be a valid JSON string.
  await rowOf('posts', 'World').getByRole('button', { name: /^Edit/ }).click();
  await recordForm().getByLabel('meta', { exact: true }).fill('{oops');
  await recordForm().getByRole('button', { name: 'Save changes' }).click();
  await expect(recordForm().getByText('meta must be valid JSON')).toBeVisible();
  await recordForm().getByLabel('meta', { exact: true }).fill('{"featured": true}');
  // The message was about the old text: it goes once the field is edited.
  await expect(recordForm().getByText('meta must be valid JSON')).toHaveCount(0);
  await recordForm().getByLabel('views', { exact: true }).fill('7');
  await screenshot(page, 'record-form');
  await recordForm().getByRole('button', { name: 'Save changes' }).click();
  await expect(recordForm()).toHaveCount(0);
  await expect(rowOf('posts', 'World')).toContainText('{"featured":true}');
  expect(await columnValues('posts', 'views')).toEqual(expect.arrayContaining(['7']));

  await rowOf('posts', 'Third').getByRole('button', { name: /^Delete/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this record?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(rowOf('posts', 'Third')).toHaveCount(1);
  await rowOf('posts', 'Third').getByRole('button', { name: /^Delete/ }).click();
  await dialog.getByRole('button', { name: 'Delete record' }).click();
  await expect(rowOf('posts', 'Third')).toHaveCount(0);
  await expect(gridRows('posts')).toHaveCount(2);

  const stored = await http(server, 'GET', '/admin/tables/posts/records?order=title.asc', { token: owner.accessToken });
  expect(stored.body.data).toEqual([
    expect.objectContaining({ title: 'Hello', views: 5, published: false, rating: null }),
    expect.objectContaining({ title: 'World', views: 7, published: true, published_at: '2025-03-01T09:30:00.000Z', meta: { featured: true } }),
  ]);
});

test('orders, filters and pages the grid', async () => {
  // Enough rows for three pages of ten, written the way an app would fill the table.
  for (let i = 1; i <= 20; i++) {
    const created = await http(server, 'POST', '/admin/tables/posts/records', {
      token: owner.accessToken,
      body: { title: `Bulk ${String(i).padStart(2, '0')}`, views: 100 + i, published: i % 2 === 0 },
    });
    expect(created.status).toBe(201);
  }
  await page.reload();
  await expect(page.getByText('1–20 of 22')).toBeVisible();

  const views = page.getByRole('button', { name: 'views', exact: true });
  await views.click();
  await expect(page.getByRole('columnheader', { name: /^views/ })).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(() => columnValues('posts', 'views').then((values) => values.slice(0, 3))).toEqual(['5', '7', '101']);
  await views.click();
  await expect(page.getByRole('columnheader', { name: /^views/ })).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => columnValues('posts', 'views').then((values) => values.slice(0, 2))).toEqual(['120', '119']);

  await page.getByLabel('Rows per page').selectOption('10');
  await expect(page.getByText('1–10 of 22 · page 1 of 3', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('11–20 of 22 · page 2 of 3', { exact: true })).toBeVisible();
  await expect.poll(() => columnValues('posts', 'views').then((values) => values[0])).toBe('110');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('21–22 of 22 · page 3 of 3', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('11–20 of 22 · page 2 of 3', { exact: true })).toBeVisible();

  await page.getByLabel('Filter published', { exact: true }).selectOption('true');
  await expect(page.getByText('1–10 of 11 · page 1 of 2', { exact: true })).toBeVisible();
  await page.getByLabel('Filter title', { exact: true }).fill('World');
  await page.getByLabel('Filter title', { exact: true }).press('Enter');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  expect(await columnValues('posts', 'title')).toEqual(['World']);

  await page.getByLabel('Filter title', { exact: true }).fill('nothing like this');
  await page.getByLabel('Filter title', { exact: true }).press('Enter');
  await expect(page.getByText('No records match these filters')).toBeVisible();

  // A filter value the column's type cannot take: the server's 400 is shown, and the filter marked.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Filter views', { exact: true }).fill('many');
  await page.getByLabel('Filter views', { exact: true }).press('Enter');
  await expect(page.getByRole('alert')).toContainText('views');
  await expect(page.getByLabel('Filter views', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Filter views', { exact: true }).fill('7');
  await page.getByLabel('Filter views', { exact: true }).press('Enter');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByText('1–10 of 22')).toBeVisible();
  await views.click();
  await page.getByLabel('Rows per page').selectOption('20');
  await screenshot(page, 'table');
});

test('filters with the operators of each type, pages by cursor, and builds and drops indexes', async () => {
  const filterBy = async (columnName: string, op: string, value?: string) => {
    await page.getByLabel(`Operator for ${columnName}`).selectOption(op);
    if (value === undefined) return;
    await page.getByLabel(`Filter ${columnName}`, { exact: true }).fill(value);
    await page.getByLabel(`Filter ${columnName}`, { exact: true }).press('Enter');
  };
  // integer >=, then text like on top of it, then a boolean: each narrows the rows, the total follows.
  await filterBy('views', 'gte', '115');
  await expect(page.getByText('1–6 of 6')).toBeVisible();
  await filterBy('title', 'like', 'Bulk 1*');
  await expect(page.getByText('1–5 of 5')).toBeVisible();
  await page.getByLabel('Filter published', { exact: true }).selectOption('true');
  await expect(page.getByText('1–2 of 2')).toBeVisible();
  expect((await columnValues('posts', 'title')).sort()).toEqual(['Bulk 16', 'Bulk 18']);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  // A list of values, a timestamp range, and a null test.
  await filterBy('views', 'in', '5, 7, 999');
  await expect(page.getByText('1–2 of 2')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await filterBy('published_at', 'gt', '2025-01-01');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  expect(await columnValues('posts', 'title')).toEqual(['World']);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await filterBy('rating', 'notnull');
  await expect(page.getByText('No records match these filters')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  // A value the operator's column cannot take: the server's 400 names views[in], and that filter is marked.
  await filterBy('views', 'in', '1, many');
  await expect(page.getByRole('alert')).toContainText('views[in]');
  await expect(page.getByLabel('Filter views', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await page.getByRole('button', { name: 'Clear filters' }).click();

  // Pages by cursor: forward and back, each page new rows, the total shown throughout.
  await page.getByLabel('Rows per page').selectOption('10');
  await expect(page.getByText('1–10 of 22 · page 1 of 3', { exact: true })).toBeVisible();
  const first = await columnValues('posts', 'title');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('11–20 of 22 · page 2 of 3', { exact: true })).toBeVisible();
  const second = await columnValues('posts', 'title');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('21–22 of 22 · page 3 of 3', { exact: true })).toBeVisible();
  const third = await columnValues('posts', 'title');
  expect(new Set([...first, ...second, ...third]).size).toBe(22);
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('11–20 of 22 · page 2 of 3', { exact: true })).toBeVisible();
  expect(await columnValues('posts', 'title')).toEqual(second);
  await page.getByLabel('Rows per page').selectOption('20');

  // Indexes: a btree and a full-text one, listed on the table screen and in the API; then one dropped.
  const indexes = page.getByRole('table', { name: 'Indexes of posts' });
  const form = page.getByRole('form', { name: 'New index' });
  await form.getByLabel('views').check();
  await form.getByLabel('Kind').selectOption('search');
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(form.getByRole('alert')).toContainText('exactly one text column');
  await form.getByLabel('Kind').selectOption('btree');
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(indexes.getByText('posts_views_idx')).toBeVisible();
  await form.getByLabel('title').check();
  await form.getByLabel('Kind').selectOption('search');
  await form.getByRole('button', { name: 'Create index' }).click();
  await expect(indexes.getByText('posts_title_search')).toBeVisible();
  const described = await http(server, 'GET', '/admin/tables/posts', { token: owner.accessToken });
  expect((described.body as { data: { indexes: Array<{ name: string; kind: string }> } }).data.indexes).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'posts_views_idx', kind: 'btree' }), expect.objectContaining({ name: 'posts_title_search', kind: 'search' })]),
  );
  await filterBy('title', 'search', 'world');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(indexes.getByRole('button', { name: 'Drop index posts_pkey' })).toHaveCount(0);
  await indexes.getByRole('button', { name: 'Drop index posts_views_idx' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Drop index' }).click();
  await expect(indexes.getByText('posts_views_idx')).toHaveCount(0);
  const after = await http(server, 'GET', '/admin/tables/posts', { token: owner.accessToken });
  expect((after.body as { data: { indexes: Array<{ name: string }> } }).data.indexes.map((index) => index.name)).not.toContain('posts_views_idx');
});

test('adds and drops a column', async () => {
  const add = page.getByRole('form', { name: 'Add a column' });
  await add.getByLabel('Name', { exact: true }).fill('views');
  await add.getByRole('button', { name: 'Add column' }).click();
  await expect(add.getByText('views is already a column of this table.')).toBeVisible();

  await add.getByLabel('Name', { exact: true }).fill('summary');
  await add.getByRole('button', { name: 'Add column' }).click();
  const columns = page.getByRole('table', { name: 'Columns of posts' });
  await expect(columns.getByRole('rowheader', { name: 'summary' })).toBeVisible();
  await expect(grid('posts').getByRole('button', { name: 'summary', exact: true })).toBeVisible();

  await columns.getByRole('button', { name: 'Drop column summary' }).click();
  const dialog = page.getByRole('dialog', { name: 'Drop column summary?' });
  await dialog.getByRole('button', { name: 'Drop column' }).click();
  await expect(dialog).toBeHidden();
  await expect(columns.getByRole('rowheader', { name: 'summary' })).toHaveCount(0);
  await expect(grid('posts').getByRole('button', { name: 'summary', exact: true })).toHaveCount(0);
  const table = await http(server, 'GET', '/admin/tables/posts', { token: owner.accessToken });
  expect((table.body.data as { columns: { name: string }[] }).columns.map((c) => c.name)).not.toContain('summary');
});

test('writes rows for another user through the owner column', async () => {
  await openTable('notes');
  await createRecord({ user_id: member.id, body: 'the member’s note' });
  await expect(rowOf('notes', 'the member’s note')).toHaveCount(1);
  await createRecord({ user_id: owner.id, body: 'the owner’s note' });
  await expect(rowOf('notes', 'the owner’s note')).toHaveCount(1);
  // A user id that does not exist: the reference fails and the server names the column.
  await createRecord({ user_id: 'nobody', body: 'orphan' });
  await expect(recordForm().locator('.field-invalid', { has: page.getByLabel('user_id', { exact: true }) })).toContainText('user_id');
  await page.getByRole('button', { name: 'Cancel' }).click();
});

test('the API screen copies the anon key and shows the generated types', async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'API' })).toBeVisible();
  await expect(page.getByTestId('api-url')).toHaveText(server.url);
  const shown = (await page.getByTestId('anon-key').textContent())?.trim() ?? '';
  expect(shown).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
  await expect(page.getByTestId('types-source')).toContainText('export interface Database');
  await screenshot(page, 'api');

  await page.getByRole('button', { name: 'Copy anon key' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  anonKey = await page.evaluate(() => navigator.clipboard.readText());
  expect(anonKey).toBe(shown);
  if (server.anonKey) expect(anonKey).toBe(server.anonKey);

  const snippets = page.getByRole('region', { name: 'Examples' });
  await snippets.getByLabel('Table').selectOption('posts');
  await expect(snippets).toContainText(`${server.url}/api/posts`);
  await expect(snippets).toContainText(`apikey: ${anonKey}`);
  await expect(snippets).toContainText(`basalt.from("posts")`);
  // The example insert is one the API accepts as it stands.
  const curl = (await snippets.locator('pre').first().textContent()) ?? '';
  const example = JSON.parse(/-d '(\{"title".*\})'$/m.exec(curl)?.[1] ?? 'null') as Record<string, unknown>;
  expect(Object.keys(example)).toEqual(['title', 'views', 'rating', 'published', 'published_at', 'meta']);
  const inserted = await http(server, 'POST', '/admin/tables/posts/records', { token: owner.accessToken, body: example });
  expect(inserted.status, JSON.stringify(inserted.body)).toBe(201);
  const insertedId = (inserted.body.data as { id: string }).id;
  expect((await http(server, 'DELETE', `/admin/tables/posts/records/${insertedId}`, { token: owner.accessToken })).status).toBe(200);

  const types = page.getByTestId('types-source');
  await expect(types).toContainText('export interface Database');
  await expect(types).toContainText('posts: {');
  await expect(types).toContainText('notes: {');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download database.ts' }).click()]);
  expect(download.suggestedFilename()).toBe('database.ts');
  const downloaded = await fs.readFile(await download.path(), 'utf8');
  expect(downloaded).toBe(await types.textContent());
  await page.getByRole('button', { name: 'Copy types' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(downloaded);
});

test('the users screen lists the accounts with their roles', async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  const users = page.getByRole('table', { name: 'Users' });
  await expect(users.locator('tbody tr')).toHaveCount(2);
  await expect(users.getByRole('row', { name: new RegExp(OWNER_EMAIL) })).toContainText('owner');
  await expect(users.getByRole('row', { name: /member@example\.test/ })).toContainText('member');
  await expect(page.getByText('2 accounts')).toBeVisible();
  await screenshot(page, 'users');
});

test('an app sees exactly the policies the console set', async () => {
  const anon = { apikey: anonKey };
  const asMember = { token: member.accessToken };

  // posts: public-read, set on its page.
  const anonPosts = await http(server, 'GET', '/api/posts?limit=5', anon);
  expect(anonPosts.status).toBe(200);
  expect(anonPosts.body.total).toBe(22);
  expect((await http(server, 'GET', '/api/posts?title=World', asMember)).body.total).toBe(1);
  expect((await http(server, 'POST', '/api/posts', { ...anon, body: { title: 'spam' } })).status).toBe(403);
  const memberWrite = await http(server, 'POST', '/api/posts', { ...asMember, body: { title: 'spam' } });
  expect(memberWrite.status).toBe(403);
  expect(memberWrite.body.error?.details).toMatchObject({ table: 'posts', policy: 'public-read', operation: 'write' });

  // notes: owner-scoped, chosen automatically for its user_id column.
  expect((await http(server, 'GET', '/api/notes', anon)).status).toBe(403);
  const memberNotes = await http(server, 'GET', '/api/notes', asMember);
  expect(memberNotes.status).toBe(200);
  expect(memberNotes.body.data).toEqual([expect.objectContaining({ body: 'the member’s note', user_id: member.id })]);
  const forced = await http(server, 'POST', '/api/notes', { ...asMember, body: { body: 'mine', user_id: owner.id } });
  expect(forced.status).toBe(201);
  expect(forced.body.data).toMatchObject({ user_id: member.id });

  // secrets: set to owner-scoped, but without an owner column it is private for everyone but the owner.
  expect((await http(server, 'GET', '/api/secrets', anon)).status).toBe(403);
  const memberSecrets = await http(server, 'GET', '/api/secrets', asMember);
  expect(memberSecrets.status).toBe(403);
  expect(memberSecrets.body.error?.details).toMatchObject({ policy: 'private' });
  expect((await http(server, 'GET', '/api/secrets', { token: owner.accessToken })).status).toBe(200);

  // A change in the console applies to the app's very next request.
  await openTable('notes');
  await choosePolicy('private');
  expect((await http(server, 'GET', '/api/notes', asMember)).status).toBe(403);
  await choosePolicy('public-read');
  const anonNotes = await http(server, 'GET', '/api/notes', anon);
  expect(anonNotes.status).toBe(200);
  expect(anonNotes.body.total).toBe(3);
  expect((await http(server, 'POST', '/api/notes', { ...asMember, body: { body: 'no' } })).status).toBe(403);
  await choosePolicy('owner-scoped');
  expect((await http(server, 'GET', '/api/notes', asMember)).body.total).toBe(2);
  await page.getByRole('link', { name: 'Tables' }).first().click();
  await expect(page.getByRole('table', { name: 'Tables' }).getByRole('row', { name: /^notes/ })).toContainText('3');
  await screenshot(page, 'tables');
});

test('works at a phone’s width', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole('table', { name: 'Tables' })).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'tables');

  await tableLink('posts').click();
  await expect(page.getByRole('heading', { level: 1, name: 'posts' })).toBeVisible();
  await expect(gridRows('posts')).toHaveCount(20);
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'table');

  await page.getByRole('button', { name: 'New record' }).click();
  await expect(recordForm()).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('link', { name: 'API', exact: true }).click();
  await expect(page.getByTestId('types-source')).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'api');
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('drops a table after the name is typed, and signs out', async () => {
  await openTable('secrets');
  await page.getByRole('button', { name: 'Drop table' }).click();
  const dialog = page.getByRole('dialog', { name: 'Drop table secrets?' });
  await expect(dialog.getByRole('button', { name: 'Drop table' })).toBeDisabled();
  await dialog.getByLabel('Type secrets to confirm').fill('secrets');
  await dialog.getByRole('button', { name: 'Drop table' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  await expect(tableLink('secrets')).toHaveCount(0);
  expect((await http(server, 'GET', '/api/secrets', { token: owner.accessToken })).status).toBe(404);

  // A deep link keeps working after a reload (the server answers every /console/ path with the app).
  await page.goto(`${server.url}/console/tables/posts`);
  await expect(page.getByRole('heading', { level: 1, name: 'posts' })).toBeVisible();
  await page.goto(`${server.url}/console/tables/nope`);
  await expect(page.getByRole('heading', { level: 1, name: 'No table nope' })).toBeVisible();

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});
